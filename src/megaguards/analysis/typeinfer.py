"""Type stability analysis (MegaGuards Algorithm 1) with Python's own result types.

Each variable gets the set of scalar types it may hold: its live-in type plus the
type of every value the loop assigns to it.  Iterated to a fixpoint.  The loop is
*stable* when every assignment to a variable yields one and the same type and all
types a variable may hold share one C representation (Python ``float`` and
``numpy.float64`` do; ``int`` and ``float`` do not).  Otherwise ``Unsupported``.

Operators' result types come from ``ir.types`` (probing Python/NumPy), so the
rules are exactly CPython's and NumPy's, including NEP 50 promotion.
"""
from __future__ import annotations

import itertools

from ..record import record
from .. import record as records
from ..errors import Unsupported
from ..ir import nodes as ir
from ..ir.intrinsics import CLASS_TESTS, PARTS
from ..ir.types import (INT64_MAX, INT64_MIN, MIXABLE, Scalar, binary_result, call_result, describe_types,
                        is_integral, joined, unary_result)
from .compensation import COMPENSATED_SUM, compensate, compensation_of
from .functions import COMPLEX_AS_PAIRS, EXCLUDED, FUNCTIONS

TypeSet = frozenset


@record
class ArrayInfo:
    element: Scalar
    rank: int
    is_list: bool
    unit_stride: bool = False  # the last dimension is contiguous (lists always are)
    buffer: bool = False       # an array.array or memoryview: a list's Python numbers, held as double or int64
    read_only: bool = False    # a str, bytes or bytearray: its code points or bytes, never written
    storage: str = ""          # a buffer's narrower items ("f4", "i2", "u8"...: guards/buffers.py's
                               # buffer_storage): each store rounds or is range-checked


@record
class TypedLoop:
    body: ir.For
    variables: dict          # name -> representative Scalar (the C type) of every scalar
    assigned_types: dict     # name -> frozenset of the types of the values the loop assigns it
    arrays: dict             # name -> ArrayInfo
    functions: dict          # call path as written -> canonical function name
    live_ins: frozenset      # scalar variables whose value comes from before the loop
    compensations: tuple = ()  # accumulators of compensated float sums (analysis/compensation.py)
    appended: dict = records.field(default_factory=dict)  # list appended to -> the Scalar its kernel
                                                              # collects (int-or-float: either class)
    row_lists: dict = records.field(default_factory=dict)  # list given rows the loop builds -> the row's
                                                               # name (ir.AppendRow; its buffer holds the ends)
    keyed: dict = records.field(default_factory=dict)  # table of ``table[k].append(v)`` -> (the hidden list
                                                           # of its values, the list they are rows of or "")
    references: dict = records.field(default_factory=dict)  # list appended to -> (list array, indices): its
    # values are that array's elements (rows, with fewer indices than its rank), appended as the objects
    # themselves: the kernel collects their indices (``reference_appends``)


def grown_lists(typed: TypedLoop) -> frozenset:
    """The lists the typed loop appends to and indexes (ir.grown_lists): grown in place."""
    return frozenset(typed.appended) & frozenset(typed.arrays)


def reference_appends(body: ir.For, arrays: dict, keyed: dict, rows: set, groups: dict) -> dict:
    """The lists appended to whose every value is an element of one list the loop never
    writes (``out.append(a[i])``, ``out.append(grid[i][j])``) or, for a table's values, a
    row of the list the loop walks (``groups[k].append(point)``): CPython appends those very
    objects, and so does marshal.c, from the indices the kernel collects (no value boxed
    anew: identity kept, nothing allocated); not a row the loop builds (``rows``: each becomes
    a new list of values); a list the loop writes under another name (``groups``: the names
    of one object) is written.  -> {list: (array, indices per value)}."""
    written = {node.array for node in ir.walk(body) if isinstance(node, ir.Store)} | ir.rebound_names(body)
    written = {groups.get(name, name) for name in written}
    found: dict = {values: (source, 1) for values, source in keyed.values() if source}
    sources: dict = {}
    for node in ir.walk(body):
        if type(node) is not ir.Append or node.array in found or node.array in rows or node.array in arrays:
            continue   # (a list indexed too grows in place: its buffer holds values)
        value, info = node.value, None
        if isinstance(value, ir.Load):
            info = arrays.get(value.array)
        if info is None or not info.is_list or info.buffer or info.read_only \
                or groups.get(value.array, value.array) in written \
                or len(value.indices) != info.rank:
            sources[node.array] = None   # some value is computed: every value of the list is boxed
        elif sources.setdefault(node.array, value.array) != value.array:
            sources[node.array] = None
    found.update((name, (source, arrays[source].rank)) for name, source in sources.items() if source is not None)
    return found


def representative(types: TypeSet) -> Scalar:
    """One type standing for a set of types with the same C representation (ints and floats:
    int-or-float, whose kernel value carries its class)."""
    return joined(types) or max(types, key=lambda t: (t.is_numpy, t.name))


def one_representation(types: TypeSet) -> TypeSet:
    """``types`` as one value of the kernel holds them: ints and floats joined."""
    mixed = joined(types)
    return TypeSet({mixed}) if mixed is not None else types


# What a list appended to in a kernel collects (each value boxed with its class at the end).
APPENDABLE = frozenset({Scalar.PY_BOOL, Scalar.PY_INT, Scalar.PY_FLOAT, Scalar.PY_INT_OR_FLOAT})

# What a list both appended to and indexed may hold (ir.grown_lists): one class of number.
GROWN_ELEMENTS = frozenset({Scalar.PY_INT, Scalar.PY_FLOAT})

# Calls whose result is int-or-float (the class of an argument): the others give one class.
KEEPS_CLASS = frozenset({"abs", "min", "max"})


class _Inference:
    def __init__(self, live_in_types: dict, arrays: dict, functions: dict, groups: dict | None = None) -> None:
        self.entry_types = live_in_types
        self.entry = {name: TypeSet({t}) for name, t in live_in_types.items()}
        self.arrays = arrays
        self.functions = functions
        self.groups = groups or {}   # array name -> the first name bound to the same list (infer_types)
        self.assigned: dict[str, TypeSet] = {}
        self.appends: dict[str, TypeSet] = {}   # list -> the types of the values appended to it
        self.row_lists: dict[str, str] = {}     # list given built rows -> the row (ir.AppendRow)
        self.keyed: dict[str, tuple] = {}       # table -> (values, source) (ir.AppendAt)
        self.sets = dict(self.entry)

    # pass over the loop, collecting assignment types ---------------------------
    def run(self, loop: ir.For) -> TypedLoop:
        for _ in range(8):
            self.assigned, self.appends = {}, {}
            self.statement(loop)
            sets = dict(self.entry)
            for name, types in self.assigned.items():
                sets[name] = sets.get(name, TypeSet()) | types
            if sets == self.sets:
                break
            self.sets = sets
        for name, types in self.sets.items():
            if len({t.ctype for t in one_representation(types)}) > 1:
                raise Unsupported(f"{ir.describe_name(name)} changes type inside the loop ({describe_types(types)}); "
                                  "the loop is not type-stable")
        if COMPENSATED_SUM:
            compensated = compensate(loop, lambda expression: self.expression(expression))
            if compensated is not None:   # typed again: the compensated steps bring new variables
                loop, accumulators = compensated
                # A compensation starts at 0.0 in the kernel (an expression site's sum reads it first).
                implicit = {compensation_of(name): Scalar.PY_FLOAT for name in accumulators}
                typed = _Inference({**self.entry_types, **implicit}, self.arrays, self.functions,
                                   self.groups).run(loop)
                return records.replace(typed, live_ins=typed.live_ins - set(implicit),
                                           compensations=accumulators)
        self.positions = itertools.count()
        typed = self.rebuild(loop)
        variables = {name: representative(types) for name, types in self.sets.items()}
        return TypedLoop(typed, variables, dict(self.assigned), self.arrays, self.functions,
                         frozenset(self.entry), appended=self.appended_types(), row_lists=dict(self.row_lists),
                         keyed=dict(self.keyed),
                         references=reference_appends(typed, self.arrays, self.keyed, set(self.row_lists.values()),
                                                      self.groups))

    def appended_types(self) -> dict:
        """Per list appended to, the one type its collected values have (ints and floats: int-or-float);
        sorted by name, as ``Loop.appended`` is: the buffers' order in the layout and the guard's."""
        found = {}
        for name, types in sorted(self.appends.items()):
            kept = one_representation(types)
            if len(kept) > 1 or not kept <= APPENDABLE:
                table = next((table for table, (values, _) in self.keyed.items() if values == name), None)
                shown = f"the rows of '{table}'" if table else f"'{name}'"   # (a table's values: a hidden list)
                raise Unsupported(f"values appended to {shown} are {describe_types(types)}: a compiled loop "
                                  "collects bools, or ints and floats (each keeps its class)")
            found[name] = next(iter(kept))
            info = self.arrays.get(name)
            element = info.element if info is not None else None
            if info is not None and (found[name] != element or element not in GROWN_ELEMENTS
                                     or not info.is_list or info.buffer or info.read_only):
                raise GrownTakesClass(name, found[name], f"values appended to '{name}' are {describe_types(types)} "
                                      f"where its elements are {describe_types(TypeSet({element}))}: a list indexed "
                                      "and appended to in a compiled loop holds ints, or floats")
        return found

    def statement(self, node: ir.Stmt) -> None:
        if isinstance(node, ir.EmptyReduction):
            self.expression(node.value)  # gives the target no type: the reduction's steps do
        elif isinstance(node, ir.Assign):
            result = one_representation(self.expression(node.value))
            if len(result) > 1:
                raise Unsupported(f"the value assigned to {ir.describe_name(node.target)} has a type that depends on "
                                  f"the iteration ({describe_types(result)})", node.line, node.col)
            self.assign(node.target, next(iter(result)), node)
        elif isinstance(node, ir.Store):
            self.store(node)
        elif isinstance(node, ir.AppendAt):   # the key, kept as an int (a dict's 1.0 would find 1: refused)
            self.integral(node.value, "the key of a row appended to")
            self.appends[node.array] = TypeSet({Scalar.PY_INT})
            self.keyed[node.array] = (node.values, node.source)
        elif isinstance(node, ir.Append):
            value = self.expression(node.value)
            if Scalar.PY_CHAR in value:
                raise Unsupported(f"appending a character of a str to {ir.describe_name(node.array)}",
                                  node.line, node.col)
            self.appends[node.array] = self.appends.get(node.array, TypeSet()) | value
            if isinstance(node, ir.AppendRow):
                self.row_lists[node.array] = node.row
        elif isinstance(node, ir.RowSwap):
            if self.arrays[node.array].rank != 2 or not self.arrays[node.array].is_list \
                    or self.arrays[node.array].buffer or self.arrays[node.array].read_only:
                raise Unsupported(f"rows of {ir.describe_name(node.array)} swapped: a compiled loop swaps the rows "
                                  "of a list of lists", node.line, node.col)
            if any(other != node.array and self.groups.get(other, other) == self.groups.get(node.array, node.array)
                   for other in self.arrays):
                raise Unsupported(f"rows of {ir.describe_name(node.array)} swapped while the loop names it twice",
                                  node.line, node.col)
            self.integral(node.first, "the index of a row swapped")
            self.integral(node.second, "the index of a row swapped")
        elif isinstance(node, ir.Rebind):
            kinds = {self.arrays[name] for name in node.targets}
            if len(kinds) > 1:   # one name would hold arrays of two element types, ranks or layouts
                raise Unsupported(f"arrays {', '.join(ir.describe_name(n) for n in node.targets)} are swapped but "
                                  f"differ in element type, rank or layout", node.line, node.col)
        elif isinstance(node, ir.For):
            for bound in (node.start, node.stop, node.step):
                self.integral(bound, "range() argument")
            self.assign(node.var, Scalar.PY_INT, node)
            self.block(node.body)
        elif isinstance(node, ir.While):
            self.test(node.test)
            self.block(node.body)
        elif isinstance(node, ir.If):
            self.test(node.test)
            self.block(node.body)
            self.block(node.orelse)

    def block(self, statements) -> None:
        for statement in statements:
            self.statement(statement)

    def assign(self, name: str, value: Scalar, node: ir.Node) -> None:
        # Python float and numpy.float64 (int and numpy.int64) share a C type: the
        # variable's class is then tracked at run time (a tag the kernel sets).
        types = self.assigned.get(name, TypeSet()) | {value}
        if len({t.ctype for t in one_representation(types)}) > 1:
            raise Unsupported(f"{ir.describe_name(name)} is assigned values of different types "
                              f"({describe_types(types)}); the loop is not type-stable", node.line, node.col)
        self.assigned[name] = types

    def store(self, node: ir.Store) -> None:
        info = self.arrays[node.array]
        if info.read_only:
            raise Unsupported(f"assigning into {ir.describe_name(node.array)}, a str, bytes or bytearray (CPython "
                              "raises TypeError, or checks each byte)", node.line, node.col)
        self.indices(node.indices, node)
        value = self.expression(node.value)
        if Scalar.PY_CHAR in value:
            raise Unsupported(f"storing a character of a str into {ir.describe_name(node.array)}", node.line, node.col)
        if info.buffer and value != {info.element}:
            raise Unsupported(f"storing {describe_types(value)} into the array.array {ir.describe_name(node.array)} "
                              f"of {describe_types({info.element})} (array.array converts or refuses it)",
                              node.line, node.col)
        if Scalar.PY_INT_OR_FLOAT in value and not info.is_list:
            raise Unsupported(f"storing an int-or-float value into the NumPy array '{node.array}'",
                              node.line, node.col)
        if info.is_list and value <= MIXABLE and (info.element.is_int_or_float or value == {info.element}):
            return
        if info.is_list and value <= MIXABLE and info.element in MIXABLE:
            raise ListTakesBothClasses(node.array, node.line, node.col)
        if info.is_list and value != {info.element}:
            raise Unsupported(f"storing {describe_types(value)} into list '{node.array}' of {describe_types({info.element})} "
                              "would change the list's element type", node.line, node.col)
        if Scalar.PY_COMPLEX in value:
            raise Unsupported(f"storing a complex number into the NumPy array '{node.array}' (NumPy raises "
                              "TypeError)", node.line, node.col)

    def indices(self, indices, node) -> None:
        for index in indices:
            self.integral(index, "index")

    def integral(self, expression: ir.Expr, what: str) -> None:
        types = self.expression(expression)
        if not all(is_integral(t) for t in types):
            raise Unsupported(f"{what} of type {describe_types(types)} (Python raises TypeError)",
                              expression.line, expression.col)

    # expressions: the set of types each may have --------------------------------
    def test(self, node: ir.Expr) -> TypeSet:
        """The types of a condition (an ``if``, a ``while``, a conditional expression)."""
        types = self.expression(node, test=True)
        if Scalar.PY_CHAR in types:   # a character is never empty: CPython's truth is not its code's
            raise Unsupported("the truth value of a character of a str", node.line, node.col)
        return types

    def expression(self, node: ir.Expr, test: bool = False) -> TypeSet:
        if isinstance(node, ir.Const):
            if type(node.value) is int and not INT64_MIN <= node.value <= INT64_MAX:
                raise Unsupported("integer constant outside int64", node.line, node.col)
            if type(node.value) is str and len(node.value) != 1:
                raise Unsupported(f"the str constant {node.value!r} (only one character compares with a character "
                                  "in a kernel)", node.line, node.col)
            return TypeSet({{bool: Scalar.PY_BOOL, int: Scalar.PY_INT, float: Scalar.PY_FLOAT,
                             complex: Scalar.PY_COMPLEX, str: Scalar.PY_CHAR}[type(node.value)]})
        if isinstance(node, ir.Name) and self.part_of(node.id):
            return self.call(part_call(node))
        if isinstance(node, ir.Name):
            if node.id not in self.sets:
                if node.id in self.assigned:
                    return one_representation(self.assigned[node.id])
                raise Unsupported(f"{ir.describe_name(node.id)} may be unbound or is not a number here", node.line, node.col)
            return one_representation(self.sets[node.id])
        if isinstance(node, ir.Load):
            info = self.arrays[node.array]
            self.indices(node.indices, node)
            return TypeSet({info.element})
        if isinstance(node, ir.Length):
            self.indices(node.prefix, node)
            return TypeSet({Scalar.PY_INT})
        if isinstance(node, ir.Shape):
            if self.arrays[node.array].is_list:
                raise Unsupported(f"'{node.array}.shape' of a list (Python raises AttributeError)",
                                  node.line, node.col)
            return TypeSet({Scalar.PY_INT})
        if isinstance(node, ir.BinOp):
            return self.combine(lambda l, r: self.binary(node.op, l, r, node),
                                self.expression(node.left), self.expression(node.right))
        if isinstance(node, ir.UnaryOp):
            operand = self.expression(node.operand, test=node.op == "not")
            return self.combine(lambda t: self.unary(node.op, t, node), operand)
        if isinstance(node, ir.Compare):
            operands = [self.expression(node.left)] + [self.expression(c) for c in node.comparators]
            results = TypeSet()
            for op, left, right in zip(node.ops, operands, operands[1:]):
                results |= self.combine(lambda l, r, op=op: self.binary(op, l, r, node), left, right)
            return self.single_or_test(results, test, node, "chained comparison")
        if isinstance(node, ir.BoolOp):
            results = TypeSet().union(*(self.expression(v, test) for v in node.values))
            if Scalar.PY_CHAR in results:
                raise Unsupported(f"'{node.op}' of characters of a str (its value is the first one CPython finds "
                                  "true)", node.line, node.col)
            return self.single_or_test(results, test, node, f"'{node.op}' of different types")
        if isinstance(node, ir.IfExp):
            self.test(node.test)
            results = self.expression(node.body, test) | self.expression(node.orelse, test)
            return self.single_or_test(results, test, node, "a conditional expression with branches of different types")
        if isinstance(node, ir.Call):
            return self.call(node)
        raise Unsupported(f"unexpected IR node {type(node).__name__}", node.line, node.col)

    def single_or_test(self, results: TypeSet, test: bool, node, what: str) -> TypeSet:
        if not test:
            results = one_representation(results)
        if not test and len({t.ctype for t in results}) > 1:
            raise Unsupported(f"{what} used as a value ({describe_types(results)})", node.line, node.col)
        return results

    @staticmethod
    def combine(function, *operand_sets) -> TypeSet:
        return TypeSet(function(*combination) for combination in itertools.product(*operand_sets))

    def binary(self, op: str, left: Scalar, right: Scalar, node) -> Scalar:
        if (left.is_char or right.is_char) and not (left is right and op in ("<", "<=", ">", ">=", "==", "!=")):
            raise Unsupported(f"'{op}' on {describe_types({left})} and {describe_types({right})}: a character of a "
                              "str only compares with another character", node.line, node.col)
        result = binary_result(op, left, right)
        if result is None:
            raise Unsupported(f"'{op}' on {describe_types({left})} and {describe_types({right})}", node.line, node.col)
        if result is Scalar.NP_BOOL and op not in ("<", "<=", ">", ">=", "==", "!=", "&", "|", "^"):
            raise Unsupported(f"arithmetic '{op}' on numpy.bool", node.line, node.col)
        if op in ("<<", ">>") and not (left.is_int or left.is_bool) :
            raise Unsupported(f"'{op}' on {describe_types({left})}", node.line, node.col)
        if result.is_int_or_float and op == "**":
            raise Unsupported(f"'**' on {describe_types({left})} and {describe_types({right})}: an int-or-float "
                              "power (the result's class and rounding depend on the values)", node.line, node.col)
        if op == "**" and result.is_float and result.is_numpy and result not in (left, right):
            # NumPy's scalar power, which calls the C library's pow, needs an operand of the
            # result's type; otherwise NumPy computes it with its power ufunc, whose SIMD pow
            # differs from the C library's in the last bit (int64 ** float32: 100 ** -2.5).
            raise Unsupported(f"'**' on {describe_types({left})} and {describe_types({right})}: NumPy computes it with "
                              "its power ufunc, whose results may differ from the C library's pow",
                              node.line, node.col)
        return result

    def unary(self, op: str, operand: Scalar, node) -> Scalar:
        result = None if operand.is_char else unary_result(op, operand)
        if result is None or (result is Scalar.NP_BOOL and op != "not" and op != "~"):
            raise Unsupported(f"unary '{op}' on {describe_types({operand})}", node.line, node.col)
        return result

    def part_of(self, path: str) -> bool:
        """``z.real`` / ``z.imag`` of a scalar variable: an attribute of its current value."""
        head, _, attribute = path.partition(".")
        return "." + attribute in PARTS and (head in self.sets or head in self.assigned)

    def call(self, node: ir.Call) -> TypeSet:
        if node.function in CLASS_TESTS:   # a compensated sum's step (analysis/compensation.py)
            self.expression(node.args[0])
            return TypeSet({Scalar.PY_BOOL if node.function == ".is_float" else Scalar.PY_FLOAT})
        canonical = self.functions.get(node.function, node.function if node.function in PARTS else None)
        if canonical in PARTS:
            operand = self.expression(node.args[0])
            if Scalar.PY_INT_OR_FLOAT in operand:
                raise Unsupported(f"'{canonical[1:]}' of an int-or-float value", node.line, node.col)
            return self.combine(lambda t: call_result(PARTS[canonical], (t,)) or Scalar.PY_FLOAT, operand)
        if canonical == "complex" and len(node.args) == 2 and any(
                Scalar.PY_COMPLEX in self.expression(a) for a in node.args):
            raise Unsupported("complex(a, b) with a complex part", node.line, node.col)
        excluded = EXCLUDED.get((canonical, len(node.args)))
        if excluded is None and canonical not in FUNCTIONS:
            excluded = EXCLUDED.get((canonical, None))
        if excluded:
            raise Unsupported(excluded, node.line, node.col)
        spec = FUNCTIONS.get(canonical)
        if spec is None:
            raise Unsupported(f"call to '{node.function}', which is not a supported built-in or math "
                              "function", node.line, node.col)
        if not spec.min_args <= len(node.args) <= spec.max_args:
            raise Unsupported(f"{canonical}() with {len(node.args)} arguments", node.line, node.col)
        argument_sets = [self.expression(a, test=canonical == "bool") for a in node.args]
        if canonical not in ("ord", "min", "max") and any(Scalar.PY_CHAR in types for types in argument_sets):
            raise Unsupported(f"{canonical}() of a character of a str", node.line, node.col)
        if canonical in ("min", "max"):
            union = TypeSet().union(*argument_sets)
            if Scalar.PY_COMPLEX in union:
                raise Unsupported(f"{canonical}() of complex numbers (Python raises TypeError)", node.line, node.col)
            if len(union) > 1 and joined(union) is not None:
                return TypeSet({joined(union)})   # the class of whichever argument wins
            if len(union) > 1:
                raise Unsupported(f"{canonical}() of different types ({describe_types(union)}): the result's "
                                  "type would depend on the values", node.line, node.col)
            return union

        def result(*types):
            found = call_result(spec.function, types)
            if found is None:
                raise Unsupported(f"{canonical}() on {describe_types(set(types))}", node.line, node.col)
            if found.is_int_or_float and canonical not in KEEPS_CLASS:
                raise Unsupported(f"{canonical}() on {describe_types(set(types))}: the result's class depends on "
                                  "the values", node.line, node.col)
            return found
        return self.combine(result, *argument_sets)

    # final pass: the typed IR ------------------------------------------------------
    def rebuild(self, node):
        if isinstance(node, ir.EmptyReduction):
            return self.empty_reduction(node)
        if isinstance(node, ir.Name) and self.part_of(node.id):
            node = part_call(node)  # analyses then see a read of the variable itself
        position = next(self.positions)   # preorder: the node before its children
        if isinstance(node, ir.Expr):
            types = self.expression(node, test=True)
            if Scalar.PY_COMPLEX in types and not COMPLEX_AS_PAIRS:
                raise Unsupported("complex arithmetic of Python 3.14+ (mixed real/complex rules changed)",
                                  node.line, node.col)
            changes = {key: self.rebuild_value(value) for key, value in node.__dict__.items()
                       if key not in ("line", "col", "type", "nid")}
            return records.replace(node, type=representative(types), nid=position, **changes)
        changes = {key: self.rebuild_value(value) for key, value in node.__dict__.items()
                   if key not in ("line", "col", "nid")}
        return records.replace(node, nid=position, **changes)

    def empty_reduction(self, node: ir.EmptyReduction) -> ir.Assign:
        """A plain assignment when its value has exactly the target's one type, else kept:
        the loop then goes back to CPython if no element was seen."""
        value = self.expression(node.value)
        exact = not node.raises and len(value) == 1 and self.assigned.get(node.target) == value
        kind = ir.Assign if exact else ir.EmptyReduction
        extra = {} if exact else {"raises": True}
        position = next(self.positions)
        return kind(node.target, self.rebuild(node.value), line=node.line, col=node.col, nid=position, **extra)

    def rebuild_value(self, value):
        if isinstance(value, tuple):
            return tuple(self.rebuild_value(v) for v in value)
        if isinstance(value, ir.Node):
            return self.rebuild(value)
        return value


def part_call(node: ir.Name) -> ir.Call:
    head, _, attribute = node.id.partition(".")
    return ir.Call("." + attribute, (ir.Name(head, line=node.line, col=node.col),), line=node.line, col=node.col)


class ListTakesBothClasses(Unsupported):
    """A store gives a list of ints a float, or a list of floats an int: the loop is typed
    again with that list int-or-float (each element then keeps its own class)."""

    def __init__(self, array: str, line: int, col: int) -> None:
        super().__init__(f"list '{array}' would hold ints and floats", line, col)
        self.array = array


class GrownTakesClass(Unsupported):
    """Values of one class appended to a list grown in place that holds another: where the
    list was empty at entry (its element type unknown: ``None``), it is typed again as a list
    of that class."""

    def __init__(self, array: str, element: Scalar, message: str) -> None:
        super().__init__(message)
        self.array, self.element = array, element


def infer_types(loop: ir.For, live_in_types: dict, arrays: dict, functions: dict, groups: dict | None = None
                ) -> TypedLoop:
    """Type the loop for one signature; raises ``Unsupported`` if it is not type-stable.

    ``live_in_types``: scalar live-in name -> Scalar; ``arrays``: name -> ArrayInfo;
    ``functions``: call path as written -> canonical function name (see ``functions.py``);
    ``groups``: array name -> the first name bound to the same object (names of one list are
    typed alike: they share one buffer).
    """
    groups = groups or {}
    empty = {name for name, info in arrays.items() if info.element is None}   # grown lists empty at entry
    arrays = {name: records.replace(info, element=Scalar.PY_INT) if name in empty else info
              for name, info in arrays.items()}
    while True:
        try:
            return _Inference(live_in_types, arrays, functions, groups).run(loop)
        except GrownTakesClass as change:
            if change.array not in empty or change.element not in GROWN_ELEMENTS:
                raise Unsupported(str(change)) from None
            empty.discard(change.array)   # typed once more, at most, per list
            arrays = {**arrays, change.array: records.replace(arrays[change.array], element=change.element)}
        except ListTakesBothClasses as change:
            group = groups.get(change.array, change.array)
            arrays = {name: records.replace(info, element=Scalar.PY_INT_OR_FLOAT)
                      if groups.get(name, name) == group else info for name, info in arrays.items()}
