"""The only IR walker: typed loop IR -> C-style source, for any dialect.

Every operation that can raise in Python renders as a prelude helper taking
``&mg_err``; a statement that used one is followed by a jump to ``mg_exit``
when the flag is set, so no later statement runs on a bad value.  The number
of such helpers in the loop body is reported as ``checks_in_loop``.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..analysis.bounds import HoistFacts
from ..analysis.parallel import ParallelPlan
from ..analysis.typeinfer import TypedLoop
from ..ir import nodes as ir
from ..ir.types import Scalar, buffer_ctype
from .calls import render_call
from .dialects.base import Dialect
from .layout import BOX_TAGS, Layout
from .openmp import render_parallel_loop
from .prologue import PrologueWriter

ERR = "&mg_err"
COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
EXACT_LIMIT = {"double": "9007199254740992LL", "float": "16777216LL"}
MATH_ONE_ARG = {"math.exp": "exp", "math.sin": "sin", "math.cos": "cos", "math.tan": "tan",
                "math.asin": "asin", "math.acos": "acos", "math.atan": "atan", "math.sinh": "sinh",
                "math.cosh": "cosh", "math.tanh": "tanh"}


@dataclass(frozen=True)
class RenderedKernel:
    source: str
    checks_in_loop: int           # checks inside the loop that runs when the hoisted ones pass
    preconditions: tuple = ()     # descriptions of the hoisted checks, by number
    parallel: bool = False        # uses OpenMP (compile with -fopenmp)


def zero_of(scalar: Scalar) -> str:
    """The initial value of a variable not bound before the loop."""
    return "mg_cmake(0.0, 0.0)" if scalar.is_complex else "0"


@functools.lru_cache(maxsize=4096)   # called for every name the renderer writes
def mangle(name: str) -> str:
    """A C identifier for a Python name or attribute path, one-to-one (θ, self.grid)."""
    return _NOT_ALPHANUMERIC.sub(lambda m: f"_{ord(m.group()):x}_", name)


_NOT_ALPHANUMERIC = re.compile(r"[^0-9A-Za-z]")


def c_name(name: str) -> str:
    return "v_" + mangle(name)


def array_name(name: str) -> str:
    return "a_" + mangle(name)


class Renderer:
    def __init__(self, typed: TypedLoop, layout: Layout, dialect: Dialect, facts: HoistFacts | None = None,
                 plan: ParallelPlan | None = None, threads: int = 0, work_threshold: int = 20000,
                 entry: str = "mg_kernel") -> None:
        self.typed = typed
        self.plan = plan if plan is not None else ParallelPlan({}, ())
        self.threads = threads
        self.work_threshold = work_threshold
        self.parallel = None  # the ParallelContext while rendering a parallel loop's body
        self.flags_outside_checks = False  # e.g. an int reduction's merge can overflow
        self.gpu = False        # rendering the body of a CUDA thread (one band iteration)
        self.loop_depth = 0     # loops entered inside the code being rendered
        self.facts = facts if facts is not None and not facts.empty else None
        self.fast = False  # rendering a copy that relies on the hoisted checks: "direct" or "wrap"
        self.layout = layout
        self.dialect = dialect
        self.entry = entry
        self.lines: list[str] = []
        self.checks = 0
        self.labels = 0

    # -- top level ---------------------------------------------------------------
    def render(self) -> RenderedKernel:
        self.emit(0, f"{self.dialect.kernel_prefix} {self.entry}(char **mg_arrays, int64_t *mg_ints, double *mg_floats) {{")
        self.emit(1, "int mg_err = 0;")
        self.declare_arrays()
        self.declare_scalars()
        self.emit(1, "int mg_fast = 1; int64_t mg_failed = -1;")
        preconditions: list[str] = []
        if self.facts is None:
            placeholder = self.shadow_switch()
            before = self.checks
            self.statement(self.typed.body, 1)
            checks = self.checks - before
        else:
            self.emit(1, "int mg_negative = 0;  /* some wrapped subscript is negative somewhere */")
            preconditions = PrologueWriter(self, self.facts).render(1)
            self.export_prologue()
            placeholder = self.shadow_switch()
            wraps = any(h.wrap for h in self.facts.indices)
            # Copies of the loop: subscripts proven non-negative (no wrap at all), proven
            # within [-n, n) (branch-free wrap), and the one with every check inside.
            self.emit(1, "if (mg_fast && !mg_negative) {" if wraps else "if (mg_fast) {")
            before, self.fast = self.checks, "direct"
            self.statement(self.typed.body, 2)
            checks = self.checks - before
            if wraps:
                self.emit(1, "} else if (mg_fast) {")
                self.fast = "wrap"
                self.statement(self.typed.body, 2)
            self.fast = False
            self.emit(1, "} else {")
            self.statement(self.typed.body, 2)
            self.emit(1, "}")
        can_flag = checks > 0 or self.flags_outside_checks
        self.lines[placeholder] = self.lines[placeholder].replace("MG_CHECK_FREE", "0" if can_flag else "1")
        self.emit(0, "mg_exit:")
        self.emit(1, f"mg_ints[{self.layout.precondition_slot}] = mg_failed;")
        self.emit(1, "if (mg_err) return mg_err;")
        for name, (bank, slot) in self.layout.scalars.items():
            if name in self.layout.assigned_flags:
                if self.typed.variables[name].is_complex:
                    self.emit(1, f"mg_floats[{slot}] = {c_name(name)}.re; mg_floats[{slot + 1}] = {c_name(name)}.im;")
                else:
                    cast = "(double)" if bank == "floats" else "(int64_t)"
                    self.emit(1, f"mg_{bank}[{slot}] = {cast}{c_name(name)};")
                self.emit(1, f"mg_ints[{self.layout.assigned_flags[name]}] = mg_set_{c_name(name)};")
            if name in self.layout.box_tags:
                self.emit(1, f"mg_ints[{self.layout.box_tags[name]}] = mg_tag_{c_name(name)};")
        self.emit(1, "return 0;")
        self.emit(0, "}")
        headers = "#include <omp.h>\n" if self.uses_openmp else ""
        source = headers + self.dialect.prelude + "\n" + "\n".join(self.lines) + "\n"
        return RenderedKernel(source, checks, tuple(preconditions), self.uses_openmp)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def declare_arrays(self) -> None:
        for index, name in enumerate(self.layout.arrays):
            info = self.typed.arrays[name]
            base = self.layout.dims[name]
            self.emit(1, f"{buffer_ctype(info.element)} *{array_name(name)} = "
                         f"({buffer_ctype(info.element)} *)mg_arrays[{index}];")
            qualifier = "" if name in self.layout.shadows else "const "  # shadows may replace it
            for d in range(info.rank):
                self.emit(1, f"const int64_t {array_name(name)}_n{d} = mg_ints[{base + d}];")
                if d == info.rank - 1 and info.unit_stride:  # known at compile time: vectorizable
                    self.emit(1, f"const int64_t {array_name(name)}_s{d} = 1;")
                else:
                    self.emit(1, f"{qualifier}int64_t {array_name(name)}_s{d} = mg_ints[{base + info.rank + d}];")

    def export_prologue(self) -> None:
        """In mode 1 (the GPU host's call) the kernel stops after its hoisted checks and
        reports them with the loops' ranges, which give the GPU grid."""
        slot = self.layout.intervals_slot
        self.emit(1, f"if (mg_ints[{self.layout.mode_slot}]) {{")
        self.emit(2, f"mg_ints[{slot}] = mg_fast; mg_ints[{slot + 1}] = mg_negative;")
        for k in range(len(self.facts.loops)):
            self.emit(2, f"mg_ints[{slot + 2 + 2 * k}] = (int64_t)mg_L{k}_lo; "
                         f"mg_ints[{slot + 3 + 2 * k}] = (int64_t)mg_L{k}_hi;")
        self.emit(2, "return 0;")
        self.emit(1, "}")

    def shadow_switch(self) -> int:
        """NumPy arrays are written in place only when the loop that runs cannot raise a
        flag; otherwise into shadow copies, committed by the caller after success.
        Returns the index of the line whose MG_CHECK_FREE is decided after rendering."""
        self.emit(1, "const int mg_in_place = mg_fast && MG_CHECK_FREE;")
        placeholder = len(self.lines) - 1
        self.emit(1, f"mg_ints[{self.layout.in_place_slot}] = mg_in_place;")
        for name, index in self.layout.shadows.items():
            info, array = self.typed.arrays[name], array_name(name)
            rank = info.rank
            self.emit(1, f"if (!mg_in_place && mg_arrays[{index}]) {{")
            shape = ", ".join(f"{array}_n{d}" for d in range(rank))
            strides = ", ".join(f"{array}_s{d}" for d in range(rank))
            self.emit(2, f"const int64_t shape[] = {{{shape}}}, strides[] = {{{strides}}};")
            self.emit(2, f"mg_copy_strided(mg_arrays[{index}], (const char *){array}, {rank}, shape, strides, "
                         f"sizeof(*{array}));")
            self.emit(2, f"{array} = ({buffer_ctype(info.element)} *)mg_arrays[{index}];")
            for d in reversed(range(rank)):
                if d == rank - 1 and info.unit_stride:
                    continue  # already the constant 1
                following = "1" if d == rank - 1 else f"{array}_s{d + 1} * ({array}_n{d + 1} ? {array}_n{d + 1} : 1)"
                self.emit(2, f"{array}_s{d} = {following};")
            self.emit(1, "}")
        return placeholder

    def declare_scalars(self) -> None:
        for name, scalar in self.typed.variables.items():
            if name in self.typed.live_ins:
                bank, slot = self.layout.scalars[name]
                value = (f"mg_cmake(mg_floats[{slot}], mg_floats[{slot + 1}])" if scalar.is_complex
                         else f"({scalar.ctype})mg_{bank}[{slot}]")
                self.emit(1, f"{scalar.ctype} {c_name(name)} = {value};")
            else:
                self.emit(1, f"{scalar.ctype} {c_name(name)} = {zero_of(scalar)};")
            if name in self.layout.assigned_flags:
                self.emit(1, f"int mg_set_{c_name(name)} = 0;")
            if name in self.layout.box_tags:
                self.emit(1, f"int mg_tag_{c_name(name)} = 0;")

    # -- statements ----------------------------------------------------------------
    def block(self, statements, depth: int) -> None:
        for statement in statements:
            self.statement(statement, depth)

    def guarded(self, depth: int, before: int) -> None:
        """Leave the kernel if a helper of the statement just rendered set the flag."""
        if self.checks != before:
            self.emit(depth, "if (MG_UNLIKELY(mg_err)) {")
            self.error_exit(depth + 1)
            self.emit(depth, "}")

    @property
    def uses_openmp(self) -> bool:
        return bool(self.plan.loops) and self.facts is not None

    def error_exit(self, depth: int) -> None:
        """Leave on a flag: the kernel, or (in a parallel loop) this iteration, stopping the rest."""
        if self.gpu:  # every thread must reach the block's barrier: jump, don't return
            self.emit(depth, "atomicCAS(mg_flag, 0, mg_err);")
            self.emit(depth, "goto mg_iteration_end;")
            return
        if self.parallel is None:
            self.emit(depth, "goto mg_exit;")
            return
        self.emit(depth, "#pragma omp atomic write")
        self.emit(depth, f"{self.parallel.label}_error = mg_err;")
        self.emit(depth, f"goto {self.parallel.label}_next;")

    def statement(self, node: ir.Stmt, depth: int) -> None:
        before = self.checks
        if isinstance(node, ir.EmptyReduction):  # typing kept it: Python's result has another type
            self.checks += 1
            self.emit(depth, "mg_err = MG_ERR_TYPE;")
            self.error_exit(depth)
        elif isinstance(node, ir.Assign):
            target = self.typed.variables[node.target]
            self.emit(depth, f"{c_name(node.target)} = {self.convert(node.value, target)};")
            self.mark_assigned(node.target, node.value.type, depth)
            self.guarded(depth, before)
        elif isinstance(node, ir.Store):
            element = self.typed.arrays[node.array].element
            address = self.element_address(node)
            value = self.store_value(node.value, element, self.typed.arrays[node.array].is_list)
            self.emit(depth, f"{address} = {value};")
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
            self.emit(depth, "for (;;) {")
            test = self.truth(node.test)
            if self.checks != before:
                label = self.fresh("cond")
                self.emit(depth + 1, f"int {label} = {test};")
                self.guarded(depth + 1, before)
                test = label
            self.emit(depth + 1, f"if (!({test})) break;")
            self.loop_depth += 1
            self.block(node.body, depth + 1)
            self.loop_depth -= 1
            self.emit(depth, "}")
        elif isinstance(node, ir.For):
            self.range_loop(node, depth)
        elif isinstance(node, ir.Break):
            self.emit(depth, "break;")
        elif isinstance(node, ir.Continue):
            # In a GPU thread the band loops are the grid, not C loops: end this iteration.
            self.emit(depth, "goto mg_iteration_end;" if self.gpu and self.loop_depth == 0 else "continue;")
        elif isinstance(node, ir.Pass):
            pass
        else:
            raise TypeError(f"cannot render {type(node).__name__}")

    def range_loop(self, node: ir.For, depth: int, allow_parallel: bool = True) -> None:
        if allow_parallel and self.fast and self.parallel is None and id(node) in self.plan.loops:
            render_parallel_loop(self, node, self.plan.loops[id(node)], depth, self.threads, self.work_threshold)
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
        self.emit(depth + 1, f"for (uint64_t {label}_k = 0; {label}_k < {label}_trips; {label}_k++) {{")
        self.emit(depth + 2, f"{c_name(node.var)} = mg_range_value({label}_start, {label}_k, {label}_step);")
        self.mark_assigned(node.var, Scalar.PY_INT, depth + 2)
        self.loop_depth += 1
        self.block(node.body, depth + 2)
        self.loop_depth -= 1
        self.emit(depth + 1, "}")
        self.emit(depth, "}")

    def mark_assigned(self, name: str, scalar: Scalar, depth: int) -> None:
        if self.parallel is not None and name in self.parallel.variables:
            self.emit(depth, f"{self.parallel.label}_at_{c_name(name)} = {self.parallel.label}_k;")
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
        terms = []
        for d, index in enumerate(access.indices):
            value = self.convert(index, Scalar.PY_INT)
            hoisted = self.facts.index(access, d) if self.fast else None
            if hoisted is None:
                self.checks += 1
                position = f"mg_index({value}, {name}_n{d}, {ERR})"
            elif hoisted.wrap and self.fast == "wrap":
                position = f"mg_wrap({value}, {name}_n{d})"
            else:
                position = value
            terms.append(f"{position} * {name}_s{d}")
        return f"{name}[{' + '.join(terms)}]"

    def dimension(self, access: int, dim: int) -> str:
        """The size of dimension ``dim`` of the array a hoisted access reads or writes."""
        hoisted = next(h for h in self.facts.indices if h.access == access and h.dim == dim)
        return f"{array_name(hoisted.array)}_n{dim}"

    def proven(self, node: ir.Expr) -> bool:
        """Integer arithmetic the prologue proved within int64 (in the fast copy only)."""
        return self.fast and id(node) in self.facts.unchecked

    def store_value(self, value: ir.Expr, element: Scalar, is_list: bool) -> str:
        if is_list or element.is_bool:
            return self.truth(value) if element.is_bool else self.convert(value, element)
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
        return f"({self.expr(node)} != 0)"

    def convert(self, node: ir.Expr, target: Scalar) -> str:
        return self.cast(self.expr(node), node.type, target)

    def cast(self, text: str, source: Scalar, target: Scalar) -> str:
        if source.ctype == target.ctype:
            return text
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
            self.checks += 1
            return f"(float)mg_exact_int({text}, {EXACT_LIMIT['float']}, {ERR})"
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
        if type(value) is int:
            return f"{value}LL" if value != -(2**63) else "INT64_MIN"
        if value != value:
            return "NAN"
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
        if op == "/" and not (left.type.is_float or right.type.is_float):
            self.checks += 1
            return (f"mg_truediv_ii({self.cast(self.expr(left), left.type, Scalar.PY_INT)}, "
                    f"{self.cast(self.expr(right), right.type, Scalar.PY_INT)}, {ERR})")
        a, b = self.operand(left, result), self.operand(right, result)
        if result.is_float:
            suffix = "f64" if result.ctype == "double" else "f32"
            if op in ("+", "-", "*"):
                if self.dialect.name == "cuda":  # round-to-nearest intrinsics: no contraction, no rewriting
                    kind = "d" if result.ctype == "double" else "f"
                    return f"__{kind}{ {'+': 'add', '-': 'sub', '*': 'mul'}[op] }_rn({a}, {b})"
                return f"({a} {op} {b})"
            self.checks += 1
            helper = {"/": "div", "//": "floordiv", "%": "mod", "**": "pow"}[op]
            return f"mg_{helper}_{suffix}({a}, {b}, {ERR})"
        if op in ("&", "|", "^"):
            return f"({a} {op} {b})"
        if self.proven(node) and result is not Scalar.NP_INT32:
            if op == "//":
                return f"mg_fdiv_pos({a}, {b})"
            return f"mg_fmod_pos({a}, {b})" if op == "%" else f"({a} {op} {b})"
        self.checks += 1
        helper = {"+": "add", "-": "sub", "*": "mul", "//": "floordiv", "%": "mod", "**": "pow",
                  "<<": "lshift", ">>": "rshift"}[op]
        text = f"mg_{helper}_i64({a}, {b}, {ERR})"
        if result is Scalar.NP_INT32:
            self.checks += 1
            text = f"mg_to_i32({text}, {ERR})"
        return text

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
        if result.is_float:
            value = self.convert(operand, result)
            return f"(-{value})" if node.op == "-" else value
        value = self.cast(self.expr(operand), operand.type, Scalar.PY_INT)
        if node.op == "+":
            text = value
        elif node.op == "~":
            text = f"(~{value})"
        elif self.proven(node):
            text = f"(-{value})"
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
                    self.checks += 1
                    text = f"(double)mg_exact_int({text}, {EXACT_LIMIT['double']}, {ERR})"
                sides.append(f"mg_cmake((double){text}, 0.0)")
            return f"({'' if op == '==' else '!'}mg_ceq({sides[0]}, {sides[1]}))"
        if not any(t.is_float for t in types):
            return f"({self.cast(self.expr(left), left.type, Scalar.PY_INT)} {op} " \
                   f"{self.cast(self.expr(right), right.type, Scalar.PY_INT)})"
        weak = (Scalar.PY_INT, Scalar.PY_FLOAT, Scalar.PY_BOOL, Scalar.NP_FLOAT32)
        in_single = Scalar.NP_FLOAT32 in types and all(t in weak for t in types)
        target = Scalar.NP_FLOAT32 if in_single else Scalar.PY_FLOAT
        sides = []
        for side in (left, right):
            text = self.expr(side)
            if not side.type.is_float:
                self.checks += 1
                text = f"({target.ctype})mg_exact_int({text}, {EXACT_LIMIT[target.ctype]}, {ERR})"
            elif side.type.ctype != target.ctype:
                if target.ctype == "float":
                    self.checks += 1
                    text = f"mg_d2f({text}, {ERR})"
                else:
                    text = f"(double){text}"
            sides.append(text)
        return f"({sides[0]} {op} {sides[1]})"
