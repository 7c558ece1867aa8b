"""The only IR walker: typed loop IR -> C-style source, for any target.

Every operation that can raise in Python renders as a prelude helper taking
``&mg_err``; a statement that used one is followed by a jump to ``mg_exit``
when the flag is set, so no later statement runs on a bad value.  The number
of such helpers in the loop body is reported as ``checks_in_loop``.

Where targets differ the walker asks the target's table (``codegen/targets/``): the
spelling of float arithmetic, how to leave on a flag, what ``continue`` becomes
outside C loops, and two hooks, the kernel wrapper and the parallel loop.
"""
from __future__ import annotations

import math

from ..analysis.floatstatus import NUMPY_FLOATS, SILENT_OPERATORS, numpy_float_operations
from ..analysis.bounds import HoistFacts
from ..analysis.mapping import GpuBand
from ..analysis.parallel import ParallelPlan
from ..analysis.typeinfer import TypedLoop
from ..ir import nodes as ir
from ..ir.types import Scalar, buffer_ctype
from .array_statements import declare_growing, render_append, render_rebind, render_row_swap, stored_in_buffer
from .calls import render_call
from .layout import BOX_TAGS, Layout
from .spelling import ERR, array_name, c_name
from .targets.base import Target
from .targets.cuda import CUDA, CudaKernel

EXACT_LIMIT = {"double": "9007199254740992LL", "float": "16777216LL"}


class Renderer:
    def __init__(self, typed: TypedLoop, layout: Layout, target: Target, facts: HoistFacts | None = None,
                 plan: ParallelPlan | None = None, threads: int = 0, work_threshold: int = 20000,
                 entry: str = "mg_kernel") -> None:
        self.typed = typed
        self.plan = plan if plan is not None else ParallelPlan({}, ())
        self.threads = threads
        self.work_threshold = work_threshold
        self.region = None  # the target's parallel region while walking a parallel loop's body
        self.flags_outside_checks = False  # e.g. an int reduction's merge can overflow
        self.loop_depth = 0     # loops entered inside the code being rendered
        self.breaks: list[str] = []   # how a ``break`` leaves each enclosing loop, innermost last
        # Ctrl-C stops the kernel (the target's flag reads) unless it may write NumPy arrays in
        # place: stopped midway, a program whose SIGINT handler does not raise would run the
        # loop again in CPython over half-written arrays (lists and shadows commit nothing).
        self.polls_interrupts = target.polls_interrupts and not layout.shadows
        # NumPy float operations: the CPU kernel notes the IEEE flags (analysis/floatstatus.py).
        self.watches_float_status = bool(numpy_float_operations(typed))
        self.facts = facts if facts is not None and not facts.empty else None
        self.fast = False  # rendering a copy that relies on the hoisted checks: "direct" or "wrap"
        self.layout = layout
        self.target = target
        self.entry = entry
        self.swapped = ir.swapped_tables(typed.body)   # tables indexed through their row maps
        self.lines: list[str] = []
        self.checks = 0
        self.labels = 0

    # -- top level ---------------------------------------------------------------
    def render(self, **inputs):
        """The kernel, written by the target's wrapper around the walked loop; ``inputs``:
        what that wrapper needs besides the loop (CUDA: the band and the live-outs)."""
        return self.target.write_kernel(self, **inputs)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def declare_arrays(self) -> None:
        rebound = self.layout.rebound
        for index, name in enumerate(self.layout.arrays):
            info = self.typed.arrays[name]
            base = self.layout.dims[name]
            self.emit(1, f"{buffer_ctype(info.element)} *{array_name(name)} = "
                         f"({buffer_ctype(info.element)} *)mg_arrays[{index}];")
            # Shadows may replace an array's strides, a swap its dims and strides.
            qualifier = "" if name in self.layout.shadows or name in rebound else "const "
            dims = "" if name in rebound or name in self.typed.appended else "const "   # (grown in place)
            for d in range(info.rank):
                self.emit(1, f"{dims}int64_t {array_name(name)}_n{d} = mg_ints[{base + d}];")
                if d == info.rank - 1 and info.unit_stride:  # known at compile time: vectorizable
                    self.emit(1, f"const int64_t {array_name(name)}_s{d} = 1;")
                else:
                    self.emit(1, f"{qualifier}int64_t {array_name(name)}_s{d} = mg_ints[{base + info.rank + d}];")
        declare_growing(self)

    # -- statements ----------------------------------------------------------------
    def block(self, statements, depth: int) -> None:
        for statement in statements:
            self.statement(statement, depth)

    def region_block(self, region, statements, depth: int) -> None:
        """Statements walked inside a target's parallel region (its error exit, its marks)."""
        saved, self.region = self.region, region
        self.block(statements, depth)
        self.region = saved

    def guarded(self, depth: int, before: int) -> None:
        """Leave the kernel if a helper of the statement just rendered set the flag."""
        if self.checks != before:
            self.emit(depth, "if (MG_UNLIKELY(mg_err)) {")
            self.error_exit(depth + 1)
            self.emit(depth, "}")

    @property
    def uses_parallel_loops(self) -> bool:
        return self.target.parallel_loop is not None and bool(self.plan.loops) and self.facts is not None

    def error_exit(self, depth: int) -> None:
        """Leave on a flag: the kernel (or the GPU thread's iteration), or in a parallel
        region this iteration, stopping the rest."""
        for line in self.target.error_exit if self.region is None else self.region.error_exit:
            self.emit(depth, line)

    def statement(self, node: ir.Stmt, depth: int) -> None:
        before = self.checks
        if isinstance(node, ir.EmptyReduction):  # typing kept it: Python's result has another type
            self.checks += 1
            self.emit(depth, "mg_err = MG_ERR_TYPE;")
            self.error_exit(depth)
        elif isinstance(node, ir.Assign):
            target = self.typed.variables[node.target]
            form = self.region.folds.get(node.target) if self.region is not None else None
            if form:   # a step of an ordered fold (targets/openmp.py): its operand is kept
                operand = node.value.right if form.startswith("s") else node.value.left
                for line in self.region.keep(node.target, self.convert(operand, target)):
                    self.emit(depth, line)
            else:
                self.emit(depth, f"{c_name(node.target)} = {self.convert(node.value, target)};")
            self.mark_assigned(node.target, node.value.type, depth)
            self.guarded(depth, before)
        elif isinstance(node, ir.Store):
            info = self.typed.arrays[node.array]
            address = self.element_address(node)
            value = self.store_value(node.value, info.element, info.is_list)
            if info.storage:   # an array.array or memoryview of narrower items
                self.checks += 1
                value = stored_in_buffer(value, info.storage)
            self.emit(depth, f"{address} = {value};")
            self.guarded(depth, before)
        elif isinstance(node, ir.Append):
            render_append(self, node, depth)
            self.guarded(depth, before)
        elif isinstance(node, ir.Rebind):
            render_rebind(self, node, depth)
        elif isinstance(node, ir.RowSwap):
            render_row_swap(self, node, depth)
            self.guarded(depth, before)
        elif isinstance(node, ir.If):
            test = self.truth(node.test)
            if self.checks != before:
                label = self.fresh("cond")
                self.emit(depth, f"int {label} = {test};")
                self.guarded(depth, before)
                test = label
            self.emit(depth, f"if ({test}) {{")
            self.block(node.body, depth + 1)
            if node.orelse:
                self.emit(depth, "} else {")
                self.block(node.orelse, depth + 1)
            self.emit(depth, "}")
        elif isinstance(node, ir.While):
            self.breaks.append("break;")
            self.emit(depth, "for (;;) {")
            test = self.truth(node.test)
            if self.checks != before:
                label = self.fresh("cond")
                self.emit(depth + 1, f"int {label} = {test};")
                self.guarded(depth + 1, before)
                test = label
            self.emit(depth + 1, f"if (!({test})) break;")
            self.poll(depth + 1, every_time=False)
            self.loop_depth += 1
            self.block(node.body, depth + 1)
            self.loop_depth -= 1
            self.emit(depth, "}")
            self.breaks.pop()
        elif isinstance(node, ir.For):
            self.range_loop(node, depth)
        elif isinstance(node, ir.Break):
            self.emit(depth, self.breaks[-1])
        elif isinstance(node, ir.Continue):
            self.emit(depth, self.target.continue_outside_loops if self.loop_depth == 0 else "continue;")
        elif isinstance(node, ir.Pass):
            pass
        elif isinstance(node, ir.Raise):   # CPython runs the loop again and raises (or gives None)
            self.checks += 1
            self.emit(depth, f"mg_err = {'MG_ERR_NONE' if node.returned_none else 'MG_ERR_RAISE'};")
            self.error_exit(depth)
        else:
            raise TypeError(f"cannot render {type(node).__name__}")

    def range_loop(self, node: ir.For, depth: int, allow_parallel: bool = True) -> None:
        parallel_loop = self.target.parallel_loop
        if parallel_loop is not None and allow_parallel and self.fast and self.region is None \
                and node.nid in self.plan.loops:
            parallel_loop(self, node, self.plan.loops[node.nid], depth, self.threads, self.work_threshold)
            return
        label = self.fresh("r")
        before = self.checks
        bounds = [self.convert(e, Scalar.PY_INT) for e in (node.start, node.stop, node.step)]
        self.emit(depth, "{")
        self.emit(depth + 1, f"const int64_t {label}_start = {bounds[0]}, {label}_stop = {bounds[1]}, "
                             f"{label}_step = {bounds[2]};")
        self.guarded(depth + 1, before)
        if not (isinstance(node.step, ir.Const) and node.step.value != 0):  # range() step 0 raises
            self.checks += 1
            self.emit(depth + 1, f"if (MG_UNLIKELY({label}_step == 0)) {{")
            self.emit(depth + 2, "mg_err = MG_ERR_VALUE;")
            self.error_exit(depth + 2)
            self.emit(depth + 1, "}")
        self.emit(depth + 1, f"const uint64_t {label}_trips = mg_trip_count({label}_start, {label}_stop, {label}_step);")
        inner = depth + 1
        # Where the flag is read: each iteration of a loop that holds loops (a load and a
        # branch beside an inner loop's work), each MG_POLL_CHUNK iterations of a loop nest of
        # one level (in chunks, so that it still vectorizes); an innermost loop of a nest is
        # left as it is (its per-entry chunking cost mm 12%).
        holds_loops = any(isinstance(child, (ir.For, ir.While)) for child in ir.walk(node) if child is not node)
        narrow = self.target.narrow_counter_chunk
        chunked = (self.polls_interrupts and not holds_loops and self.loop_depth == 0) or narrow
        counter = f"{label}_k"
        if narrow:   # an int counter within chunks (base.Target.narrow_counter_chunk)
            self.emit(depth + 1, f"for (uint64_t {label}_chunk = 0; {label}_chunk < {label}_trips; "
                                 f"{label}_chunk += {narrow}ULL) {{")
            self.emit(depth + 2, f"const int {label}_count = (int)({label}_trips - {label}_chunk < {narrow}ULL ? "
                                 f"{label}_trips - {label}_chunk : {narrow}ULL);")
            self.emit(depth + 2, f"for (int {label}_m = 0; {label}_m < {label}_count; {label}_m++) {{")
            counter, inner = f"{label}_chunk + (uint64_t){label}_m", depth + 2
        elif chunked:   # chunks of MG_POLL_CHUNK iterations, the flag read before each
            self.emit(depth + 1, f"for (uint64_t {label}_chunk = 0; {label}_chunk < {label}_trips; "
                                 f"{label}_chunk += MG_POLL_CHUNK) {{")
            self.poll(depth + 2)
            self.emit(depth + 2, f"const uint64_t {label}_end = {label}_trips - {label}_chunk < MG_POLL_CHUNK ? "
                                 f"{label}_trips : {label}_chunk + MG_POLL_CHUNK;")
            self.emit(depth + 2, f"for (uint64_t {label}_k = {label}_chunk; {label}_k < {label}_end; {label}_k++) {{")
            inner = depth + 2
        else:
            self.emit(depth + 1, f"for (uint64_t {label}_k = 0; {label}_k < {label}_trips; {label}_k++) {{")
        value = f"mg_range_value({label}_start, {counter}, {label}_step)"
        if self.typed.variables[node.var].is_int_or_float:   # also given floats elsewhere in the loop
            value = self.cast(value, Scalar.PY_INT, self.typed.variables[node.var])
        self.emit(inner + 1, f"{c_name(node.var)} = {value};")
        self.mark_assigned(node.var, Scalar.PY_INT, inner + 1)
        if holds_loops:
            self.poll(inner + 1)
        self.loop_depth += 1
        self.breaks.append(f"goto {label}_break;" if chunked else "break;")
        self.block(node.body, inner + 1)
        self.breaks.pop()
        self.loop_depth -= 1
        self.emit(inner, "}")
        if chunked:
            self.emit(depth + 1, "}")
            self.emit(depth + 1, f"{label}_break: ;")
        self.emit(depth, "}")

    def poll(self, depth: int, every_time: bool = True) -> None:
        """Leave with MG_ERR_INTERRUPT once SIGINT set the flag (Ctrl-C): at each chunk of a
        range loop, or (``every_time`` False: a while loop) every MG_POLL_CHUNK iterations."""
        if not self.polls_interrupts:
            return
        if every_time:
            self.emit(depth, "if (MG_UNLIKELY(*mg_stop)) {")
        else:
            self.emit(depth, "if (MG_UNLIKELY(++mg_ticks % MG_POLL_CHUNK == 0 && *mg_stop)) {")
        self.emit(depth + 1, "mg_err = MG_ERR_INTERRUPT;")
        self.error_exit(depth + 1)
        self.emit(depth, "}")

    def mark_assigned(self, name: str, scalar: Scalar, depth: int) -> None:
        mark = self.region.assignment_mark(name) if self.region is not None else None
        if mark is not None:
            self.emit(depth, mark)
        if name in self.layout.assigned_flags:
            self.emit(depth, f"mg_set_{c_name(name)} = 1;")
        if name in self.layout.box_tags:
            self.emit(depth, f"mg_tag_{c_name(name)} = {BOX_TAGS[scalar]};")

    def fresh(self, stem: str) -> str:
        self.labels += 1
        return f"mg_{stem}{self.labels}"

    # -- arrays ------------------------------------------------------------------------
    def element_address(self, access: ir.Load | ir.Store) -> str:
        name = array_name(access.array)
        positions = self.positions(access)
        if access.array in self.swapped:   # a table whose rows the loop swaps: row r is the map's
            positions[0] = f"mg_rows_{name}[{positions[0]}]"
        terms = [f"{position} * {name}_s{d}" for d, position in enumerate(positions)]
        return f"{name}[{' + '.join(terms)}]"

    def positions(self, access: ir.Load | ir.Store) -> list[str]:
        """Each subscript of the access as the element's position in its dimension: checked
        and wrapped as Python's indexing does, unless the prologue proved it needs neither."""
        name = array_name(access.array)
        found = []
        for d, index in enumerate(access.indices):
            value = self.convert(index, Scalar.PY_INT)
            hoisted = self.facts.index(access, d) if self.fast else None
            if hoisted is None:
                self.checks += 1
                found.append(f"mg_index({value}, {name}_n{d}, {ERR})")
            elif hoisted.wrap and self.fast == "wrap":
                found.append(f"mg_wrap({value}, {name}_n{d})")
            else:
                found.append(value)
        return found

    def dimension(self, access: int, dim: int) -> str:
        """The size of dimension ``dim`` of the array a hoisted access reads or writes."""
        hoisted = next(h for h in self.facts.indices if h.access == access and h.dim == dim)
        return f"{array_name(hoisted.array)}_n{dim}"

    def proven(self, node: ir.Expr) -> bool:
        """Integer arithmetic the prologue proved within int64 (in the fast copy only)."""
        return self.fast and node.nid in self.facts.unchecked

    def store_value(self, value: ir.Expr, element: Scalar, is_list: bool) -> str:
        if value.type.is_int_or_float and not element.is_int_or_float:  # the list keeps its class
            self.checks += 1
            return f"mg_num_as_{'f64' if element.is_float else 'i64'}({self.expr(value)}, {ERR})"
        if is_list or element.is_bool:
            return self.truth(value) if element.is_bool else self.convert(value, element)
        if (element is Scalar.NP_FLOAT32 and value.type.ctype == "double" and self.target.computes_float_status):
            return f"mg_np_narrow({self.expr(value)}, &mg_fp)"   # NumPy's "overflow in cast"
        if element.is_int and value.type.is_float:
            self.checks += 1
            as_int = f"mg_f2i({self.expr(value)}, {ERR})"
            if element is Scalar.NP_INT32:
                self.checks += 1
                return f"mg_to_i32({as_int}, {ERR})"
            return as_int
        return self.convert(value, element)

    # -- expressions --------------------------------------------------------------------
    def truth(self, node: ir.Expr) -> str:
        if isinstance(node, ir.BoolOp):
            joiner = " && " if node.op == "and" else " || "
            return "(" + joiner.join(self.truth(v) for v in node.values) + ")"
        if isinstance(node, ir.UnaryOp) and node.op == "not":
            return f"(!{self.truth(node.operand)})"
        if isinstance(node, ir.Compare):
            return self.expr(node)
        if isinstance(node, ir.IfExp):  # its branches may differ in type: only truth matters here
            return f"({self.truth(node.test)} ? {self.truth(node.body)} : {self.truth(node.orelse)})"
        if node.type.is_complex:
            return f"mg_ctruth({self.expr(node)})"
        if node.type.is_int_or_float:
            return f"(({self.expr(node)}).v != 0)"
        return f"({self.expr(node)} != 0)"

    def convert(self, node: ir.Expr, target: Scalar) -> str:
        return self.cast(self.expr(node), node.type, target)

    def cast(self, text: str, source: Scalar, target: Scalar) -> str:
        if source.ctype == target.ctype:
            return text
        if target.is_int_or_float:
            if source.is_bool or source.is_float:
                return f"mg_num_make((double){text}, {'1.0' if source.is_float else '0.0'})"
            self.checks += 1
            return f"mg_num_of_i64({text}, {ERR})"
        if source.is_int_or_float:  # where Python converts the number (arithmetic, math, float())
            if target.is_complex:
                return f"mg_cmake(({text}).v, 0.0)"
            if target.is_bool:
                return f"(({text}).v != 0)"
            if target.ctype == "double":
                return f"({text}).v"
            raise TypeError(f"no conversion from {source} to {target}")
        if target.is_complex:  # CPython's to_complex: (float(x), +0.0)
            return f"mg_cmake((double){text}, 0.0)"
        if source.is_complex:
            if target.is_bool:
                return f"mg_ctruth({text})"
            raise TypeError(f"no conversion from {source} to {target}")
        if target.is_bool:
            return f"({text} != 0)"
        if target.ctype == "float":
            if source.ctype == "double":
                return f"(float){text}"
            return self.exact(text, source, "float")
        if target.ctype == "int32_t":
            self.checks += 1
            return f"mg_to_i32({text}, {ERR})"
        if target.is_float or target.ctype == "int64_t":
            return f"(({target.ctype}){text})"
        raise TypeError(f"no conversion from {source} to {target}")

    def expr(self, node: ir.Expr) -> str:
        if isinstance(node, ir.Const):
            return self.constant(node.value)
        if isinstance(node, ir.Name):
            return c_name(node.id)
        if isinstance(node, ir.Load):
            return self.element_address(node)
        if isinstance(node, ir.Length):
            name = array_name(node.array)
            checks = []
            for d, index in enumerate(node.prefix):
                self.checks += 1
                checks.append(f"mg_index({self.convert(index, Scalar.PY_INT)}, {name}_n{d}, {ERR})")
            return "(" + ", ".join(checks + [f"{name}_n{len(node.prefix)}"]) + ")"
        if isinstance(node, ir.Shape):
            rank = self.typed.arrays[node.array].rank
            return f"{array_name(node.array)}_n{node.dim % rank}"
        if isinstance(node, ir.BinOp):
            return self.binary(node)
        if isinstance(node, ir.UnaryOp):
            return self.unary(node)
        if isinstance(node, ir.Compare):
            return self.compare(node)
        if isinstance(node, ir.BoolOp):
            return self.bool_value(node.op, list(node.values), node.type)
        if isinstance(node, ir.IfExp):
            return (f"({self.truth(node.test)} ? {self.convert(node.body, node.type)} : "
                    f"{self.convert(node.orelse, node.type)})")
        if isinstance(node, ir.Call):
            return render_call(self, node)
        raise TypeError(f"cannot render {type(node).__name__}")

    @staticmethod
    def constant(value) -> str:
        if type(value) is complex:
            return f"mg_cmake({Renderer.constant(value.real)}, {Renderer.constant(value.imag)})"
        if type(value) is bool:
            return "1" if value else "0"
        if type(value) is str:   # one character (typeinfer): its code point
            return f"((mg_char){ord(value)})"
        if type(value) is int:
            return f"{value}LL" if value != -(2**63) else "INT64_MIN"
        if value != value:   # float("-nan") keeps its sign, as CPython's float() gives it
            return "(-NAN)" if math.copysign(1.0, value) < 0 else "NAN"
        if value in (float("inf"), float("-inf")):
            return "INFINITY" if value > 0 else "(-INFINITY)"
        return repr(float(value)) if "e" in repr(value) or "." in repr(value) else f"{value!r}.0"

    def bool_value(self, op: str, values: list, result: Scalar) -> str:
        first = self.convert(values[0], result)
        if len(values) == 1:
            return first
        rest = self.bool_value(op, values[1:], result)
        test = self.truth(values[0])
        return f"({test} ? {rest} : {first})" if op == "and" else f"({test} ? {first} : {rest})"

    def operand(self, node: ir.Expr, result: Scalar) -> str:
        """An operand converted to the C type its operation computes in."""
        if result is Scalar.NP_INT32 and node.type is Scalar.PY_INT:
            self.checks += 1  # NumPy refuses Python ints outside int32 here
            return f"mg_to_i32({self.expr(node)}, {ERR})"
        if result.is_float and node.type.ctype == "double" and result.ctype == "float":
            self.checks += 1
            return f"mg_d2f({self.expr(node)}, {ERR})"
        if result.is_int:
            return self.cast(self.expr(node), node.type, Scalar.PY_INT)
        return self.convert(node, result)

    def binary(self, node: ir.BinOp) -> str:
        op, result, left, right = node.op, node.type, node.left, node.right
        if result.is_complex:
            return self.complex_binary(node)
        if result.is_int_or_float:
            self.checks += 1
            a, b = self.convert(left, result), self.convert(right, result)
            names = {"+": "add", "-": "sub", "*": "mul", "//": "floordiv", "%": "mod"}
            return f"mg_num_{names[op]}({a}, {b}, {ERR})"
        if left.type.is_int_or_float or right.type.is_int_or_float:
            # a float result: an int side converts exactly (CPython divides two ints exactly,
            # rounding once), else the loop goes back to CPython
            a, b = (self.float_side(side, result) for side in (left, right))
            if op in ("+", "-", "*"):
                return self.target.float_arithmetic[op, result.ctype].format(a=a, b=b)
            self.checks += 1
            return f"{self.target.float_helpers[op, result.ctype]}({a}, {b}, {ERR})"
        if op == "/" and not (left.type.is_float or right.type.is_float):
            self.checks += 1
            return (f"mg_truediv_ii({self.cast(self.expr(left), left.type, Scalar.PY_INT)}, "
                    f"{self.cast(self.expr(right), right.type, Scalar.PY_INT)}, {ERR})")
        a, b = self.operand(left, result), self.operand(right, result)
        if result.is_float:
            suffix = "f32" if result.ctype == "float" else "f64"
            computed = self.target.computes_float_status and result in NUMPY_FLOATS and op in SILENT_OPERATORS
            if op in ("+", "-", "*"):
                if computed:
                    return f"mg_np_{ {'+': 'add', '-': 'sub', '*': 'mul'}[op] }_{suffix}({a}, {b}, &mg_fp)"
                return self.target.float_arithmetic[op, result.ctype].format(a=a, b=b)
            if self.fast and node.nid in self.facts.nonzero_divisions:   # its divisor tested at entry
                return f"({a} / {b})"
            self.checks += 1
            if computed:
                return f"mg_np_{ {'/': 'div', '//': 'floordiv', '%': 'mod'}[op] }_{suffix}({a}, {b}, &mg_fp, {ERR})"
            return f"{self.target.float_helpers[op, result.ctype]}({a}, {b}, {ERR})"
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if self.proven(node) and result is not Scalar.NP_INT32:
            if op == "//":
                return f"mg_fdiv_pos({a}, {b})"
            return f"mg_fmod_pos({a}, {b})" if op == "%" else f"({a} {op} {b})"
        self.checks += 1
        text = f"{self.target.integer_helpers[op]}({a}, {b}, {ERR})"
        if result is Scalar.NP_INT32:
            self.checks += 1
            text = f"mg_to_i32({text}, {ERR})"
        return text

    def exact(self, text: str, source: Scalar, ctype: str = "double") -> str:
        """A number where CPython compares or combines it with a float exactly: an int converts
        to ``ctype`` exactly (else the flag), an int-or-float is its value (an int in it is exact)."""
        if source.is_int_or_float:
            return f"({text}).v"
        self.checks += 1
        return f"({ctype})mg_exact_int({text}, {EXACT_LIMIT[ctype]}, {ERR})"

    def float_side(self, node: ir.Expr, result: Scalar) -> str:
        """An operand beside an int-or-float one in a float operation: an int converts exactly
        or sets the flag."""
        return self.exact(self.expr(node), node.type) if node.type.is_int else self.convert(node, result)

    def complex_binary(self, node: ir.BinOp) -> str:
        """Complex + - * / **: a real operand enters as (x, +0.0), as in CPython."""
        a, b = self.convert(node.left, node.type), self.convert(node.right, node.type)
        if node.op in ("+", "-", "*"):
            return f"mg_c{ {'+': 'add', '-': 'sub', '*': 'mul'}[node.op] }({a}, {b})"
        self.checks += 1
        return f"mg_c{ {'/': 'div', '**': 'pow'}[node.op] }({a}, {b}, {ERR})"

    def unary(self, node: ir.UnaryOp) -> str:
        operand, result = node.operand, node.type
        if node.op == "not":
            return f"(!{self.truth(operand)})"
        if result.is_bool:  # ~ on numpy.bool is logical not
            return f"(!{self.expr(operand)})"
        if result.is_complex:
            return f"mg_cneg({self.expr(operand)})" if node.op == "-" else self.expr(operand)
        if result.is_int_or_float:
            return f"mg_num_neg({self.expr(operand)})" if node.op == "-" else self.expr(operand)
        if result.is_float:
            value = self.convert(operand, result)
            return f"mg_neg_{'f32' if result.ctype == 'float' else 'f64'}({value})" if node.op == "-" else value
        value = self.cast(self.expr(operand), operand.type, Scalar.PY_INT)
        if node.op == "+":
            text = value
        elif node.op == "~":
            text = f"(~{value})"
        elif self.proven(node):
            text = f"(-({value}))"   # (a negative literal operand: "--2LL" would be C's decrement)
        else:
            self.checks += 1
            text = f"mg_neg_i64({value}, {ERR})"
        if result is Scalar.NP_INT32:
            self.checks += 1
            text = f"mg_to_i32({text}, {ERR})"
        return text

    def compare(self, node: ir.Compare) -> str:
        operands = [node.left, *node.comparators]
        parts = [self.comparison(op, a, b) for op, a, b in zip(node.ops, operands, operands[1:])]
        return parts[0] if len(parts) == 1 else "(" + " && ".join(parts) + ")"

    def comparison(self, op: str, left: ir.Expr, right: ir.Expr) -> str:
        types = (left.type, right.type)
        if any(t.is_complex for t in types):  # only == and != (typeinfer): both parts
            sides = []
            for side in (left, right):
                text = self.expr(side)
                if side.type.is_complex:
                    sides.append(text)
                    continue
                if not side.type.is_float:  # CPython compares an int with the real part exactly
                    text = self.exact(text, side.type)
                sides.append(f"mg_cmake((double){text}, 0.0)")
            return f"({'' if op == '==' else '!'}mg_ceq({sides[0]}, {sides[1]}))"
        if not any(t.is_float or t.is_int_or_float for t in types):
            return f"({self.cast(self.expr(left), left.type, Scalar.PY_INT)} {op} " \
                   f"{self.cast(self.expr(right), right.type, Scalar.PY_INT)})"
        weak = (Scalar.PY_INT, Scalar.PY_FLOAT, Scalar.PY_BOOL, Scalar.NP_FLOAT32)
        in_single = Scalar.NP_FLOAT32 in types and all(t in weak for t in types)
        target = Scalar.NP_FLOAT32 if in_single else Scalar.PY_FLOAT
        sides = []
        for side in (left, right):
            text = self.expr(side)
            if not side.type.is_float:   # CPython compares an int with a float exactly
                text = self.exact(text, side.type, target.ctype)
            elif side.type.ctype != target.ctype:
                if target.ctype == "float":
                    self.checks += 1
                    text = f"mg_d2f({text}, {ERR})"
                else:
                    text = f"(double){text}"
            sides.append(text)
        return f"({sides[0]} {op} {sides[1]})"


def render_cuda(typed: TypedLoop, layout: Layout, facts: HoistFacts, band: GpuBand,
                live_outs: tuple[str, ...]) -> CudaKernel:
    """The CUDA kernel of a band that goes to the GPU (``targets/cuda.py``)."""
    return Renderer(typed, layout, CUDA, facts).render(band=band, live_outs=live_outs)
