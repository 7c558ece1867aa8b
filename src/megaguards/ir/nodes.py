"""IR nodes: frozen records (megaguards/record.py), one per construct the kernels support.

Expressions carry ``type`` (None until ``analysis.typeinfer`` fills it in) and
every node carries the source ``line``/``col`` it came from, for diagnostics.
Arrays are named by their live-in path ("A", "self.grid"); scalars by variable
name ("s", "self.n" for an attribute read).
"""
from __future__ import annotations

import re

from .. import record as records
from ..record import record
from .types import Scalar


@record
class Node:
    line: int = records.field(default=0, kw_only=True, compare=False)
    col: int = records.field(default=0, kw_only=True, compare=False)
    # The node's position in the typed loop's preorder walk (-1 before type inference
    # numbers it): the key of every analysis fact, the same in every process that types
    # the same loop for the same signature, unlike id().
    nid: int = records.field(default=-1, kw_only=True, compare=False, repr=False)


@record
class Expr(Node):
    type: Scalar | None = records.field(default=None, kw_only=True)


@record
class Const(Expr):
    value: object


@record
class Name(Expr):
    id: str


@record
class Load(Expr):
    array: str
    indices: tuple[Expr, ...]


@record
class Length(Expr):
    """``len(array[p0]...[pk-1])``: size of dimension ``len(prefix)``."""

    array: str
    prefix: tuple[Expr, ...]


@record
class Shape(Expr):
    """``array.shape[dim]`` of a NumPy array (dim already made non-negative)."""

    array: str
    dim: int


@record
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr
    sum_step: bool = records.field(default=False, kw_only=True)  # a sum()'s +: compensated on 3.12+ (analysis/compensation.py)


@record
class UnaryOp(Expr):
    op: str
    operand: Expr


@record
class Compare(Expr):
    """A possibly chained comparison ``a < b <= c``."""

    left: Expr
    ops: tuple[str, ...]
    comparators: tuple[Expr, ...]


@record
class BoolOp(Expr):
    op: str  # "and" | "or"
    values: tuple[Expr, ...]


@record
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@record
class Call(Expr):
    """A pure built-in or ``math`` function, by qualified name ("abs", "math.sqrt")."""

    function: str
    args: tuple[Expr, ...]


@record
class Stmt(Node):
    pass


@record
class Assign(Stmt):
    target: str
    value: Expr


@record
class Store(Stmt):
    array: str
    indices: tuple[Expr, ...]
    value: Expr


@record
class Append(Stmt):
    """``values.append(value)`` on a list bound before the loop that the loop only appends to
    (``Loop.appended``): the kernel collects the values in order, and they join the list when
    the compiled run ends without a flag.  The loops around it never run in parallel."""

    array: str
    value: Expr


@record
class AppendRow(Append):
    """``table.append(row)`` of a row list the loop builds (``row = []`` then ``row.append(v)``:
    frontend/built_rows.py): the row ends here.  The kernel appends to ``table``'s buffer where
    it ends in ``row``'s buffer of values (``value`` is a placeholder int); after a clean run
    each row becomes a new list of its values, appended to ``table`` in order."""

    row: str


@record
class AppendAt(Append):
    """``table[key].append(v)``: v joins a row of ``table`` (a list of lists, or a dict of lists
    whose keys are the ints 0 .. m-1), chosen by ``value``, the key.  The kernel checks the
    key as CPython's lookup would find a row (a list's negative keys wrap), keeps it in
    ``table``'s buffer and v, appended just before to the hidden list ``values``, in that
    one's; after a clean run marshal.c appends each v to its row, in order (the loop reads
    neither the table nor its rows: frontend/keyed_appends.py).  ``source``: the list whose
    rows the values index (``for p in data: groups[k].append(p)`` appends p's index), else ""."""

    values: str
    source: str = ""


@record
class Rebind(Stmt):
    """``a, b = b, a``: array names exchange the arrays they name (a double buffer).  Each
    of ``targets`` names, after it, the array its ``sources`` entry named before it; the two
    hold the same names.  The loops around it never run in parallel (each iteration works on
    what the one before left); the arrays themselves are never copied."""

    targets: tuple[str, ...]
    sources: tuple[str, ...]


@record
class RowSwap(Stmt):
    """``a[i], a[j] = a[j], a[i]`` on a table (a list of rows): the rows exchange places, each
    row object unchanged.  The kernel indexes the table through a map of its rows (codegen:
    ``mg_rows_``), which the swap changes; after a clean run marshal.c puts the list's row
    objects in the map's order.  Never in a parallel loop, never on the GPU."""

    array: str
    first: Expr
    second: Expr


@record
class If(Stmt):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    # analysis/distribution.py's guard of two loops exchanged: ``orelse`` is the nest as
    # written, run only where a range is empty (nothing to say about its loops)
    exchange_guard: bool = records.field(default=False, kw_only=True)


@record
class For(Stmt):
    """``for var in range(start, stop, step)``."""

    var: str
    start: Expr
    stop: Expr
    step: Expr
    body: tuple[Stmt, ...]


@record
class While(Stmt):
    test: Expr
    body: tuple[Stmt, ...]


@record
class Break(Stmt):
    pass


@record
class Continue(Stmt):
    pass


@record
class Pass(Stmt):
    pass


@record
class Raise(Stmt):
    """``raise ...``: the kernel stops with a flag and CPython runs the loop from its entry
    again, raising the exception itself (its expression is never evaluated in the kernel).
    ``returned_none``: an inlined function whose value is used returns None here (it ends
    without ``return``): the value no kernel holds, CPython's to give."""

    returned_none: bool = False


@record
class EmptyReduction(Assign):
    """``target = value`` after a reduction saw no element (``frontend/desugar.py``): exact
    only when ``value`` has the very type the reduction's other assignments give
    ``target`` (an empty ``sum`` is the int 0, even of floats); otherwise, or when
    ``raises`` (``max`` of nothing), the loop goes back to CPython. Typing turns it
    into a plain ``Assign`` or keeps it (the renderer then sets the flag)."""

    raises: bool = records.field(default=False, kw_only=True)


@record
class ArrayUse:
    """How the loop uses one array live-in: its rank and whether it writes it."""

    name: str
    rank: int
    written: bool
    tuple_indexed: bool = False  # some subscript is A[i, j] (a TypeError on a list)
    width: int = 0               # the loop unpacks its rows (``for x, y in A``): their length, else 0


@record
class Loop:
    """One loop site lowered: the outermost ``For`` plus what it reads and writes."""

    body: For
    scalars_in: tuple[str, ...]   # scalar paths the loop reads (live-ins are those bound before it)
    arrays: tuple[ArrayUse, ...]  # array live-ins
    assigned: tuple[str, ...]     # scalar variables the loop may assign (live-outs)
    functions: tuple[str, ...]    # global names of called functions (abs, math, ...)
    inlined: tuple = ()           # (path, code object) of each user function inlined
    assumed: tuple = ()           # (path, canonical name) of built-ins desugared forms rely on (sum, zip)
    appended: tuple[str, ...] = ()  # lists the loop only appends to (``Append``), sorted: the order of the
                                    # kernel's buffers (TypedLoop.appended, codegen/layout.py) and of the guard's
    row_aliases: tuple = ()  # (name, array) of the site's ``for row in table``: the row read in place
    object_aliases: tuple = ()  # (name, list): ``for p in ps``, ``best = p`` over objects hold the index (fields.py)
    compared_lists: tuple = ()  # lists whose objects the loop compares (``b1 is not b2``): by their indices
    collected: tuple = ()  # (list appended to, list of objects): ``out.append(p)`` appends p's index (fields.py)
    built_rows: tuple = ()  # (row, table): row lists the loop builds, joined whole to a list (``AppendRow``)
    keyed: tuple = ()  # (table, values, source): ``table[k].append(v)`` (``AppendAt``); source: the list
                       # whose rows the values are (``for p in data: groups[k].append(p)``), else ""
    column_aliases: tuple = ()  # (name, table) of the site's ``for col in zip(*table)``: read in place


def is_call_result(name: str) -> bool:
    """The temporary holding an inlined call's value (``frontend/inline.py``). Every path
    through the inlined body assigns it before the caller reads it, so it never carries
    a value from one iteration to the next (returns inside the callee's loops 'break'
    out of those loops, which therefore never run in parallel)."""
    return name.startswith("mg_tmp_") and name.endswith(CALL_RESULT_SUFFIX)


CALL_RESULT_SUFFIX = "_return"
# An inlined call's locals: ``mg_tmp_<k>_<length><function>_<name>`` (the k-th inlined
# call).  The function's name is counted, not delimited: it may hold digits and
# underscores (``step2``, ``step_2d``), and so may the local's.
_INLINED_LOCAL = re.compile(r"mg_tmp_\d+_(\d+)(\D.*)$")


def inlined_prefix(function: str, call: int) -> str:
    """The prefix of the locals of the ``call``-th inlined call, of function ``function``."""
    name = re.sub(r"[^0-9A-Za-z]", "_", function)
    return f"mg_tmp_{call}_{len(name)}{name}_"


def inlined_local(name: str) -> tuple[str, str] | None:
    """(function, local) of an inlined call's local (``inlined_prefix``), else None."""
    found = _INLINED_LOCAL.match(name)
    if found is None:
        return None
    length, rest = int(found.group(1)), found.group(2)
    if len(rest) < length + 2 or rest[length] != "_":
        return None
    return rest[:length], rest[length + 1:]
# Routes from a function object to what its inlined body reads (frontend/lower_calls.py),
# followed by the guard (guards/signature.py): ``f.__globals__.N``, ``f.__closure__.k``,
# ``f.__defaults__.alpha``.
ROUTE_SEGMENTS = ("__globals__", "__closure__", "__defaults__")
# A field of the objects of a list (frontend/fields.py): ``ps.__items__.x`` is the array of
# ``ps[k].x`` over k, which the guard reads into a list (guards/fields.py FieldReader).
ITEMS_SEGMENT = "__items__"


def field_path(array: str, field: str) -> str:
    """The field array of ``array``'s objects' ``field``; a field of a field (``pos.x``: the
    objects' ``pos`` are objects too) is the field array of the field's objects."""
    return f"{array}.{ITEMS_SEGMENT}." + f".{ITEMS_SEGMENT}.".join(field.split("."))


def field_of(path: str) -> tuple[str, str] | None:
    """(list path, field) of a field array's path, else None."""
    array, found, field = path.rpartition(f".{ITEMS_SEGMENT}.")
    return (array, field) if found and array and "." not in field else None
_ROUTE = re.compile(r"(?<![^.])([^.]+)\.__(globals|closure|defaults)__\.")


def through_route(path: str) -> bool:
    """Does ``path`` go through a function object's globals, closure or defaults?"""
    return bool(_ROUTE.search(path))


def route_variable(path: str) -> str | None:
    """The global or closure variable a route from a function object reads (``f.__globals__.N``
    -> "N"), None for other paths (defaults are fixed objects, not variables)."""
    routes = [r for r in _ROUTE.finditer(path) if r.group(2) in ("globals", "closure")]
    if not routes:
        return None
    return path[routes[-1].end():].split(".")[0]


def describe_name(name: str) -> str:
    """A variable or path for messages, quoted, as the user wrote it: an inlined
    function's local or value, or what a route from a function object reads."""
    local = inlined_local(name)
    if local:
        function, variable = local
        if variable == CALL_RESULT_SUFFIX[1:]:
            return f"the value returned by '{function}'"
        return f"'{variable}' (in '{function}')"
    field = field_of(name)
    if field is not None:   # ps[...].pos.x for ps.__items__.pos.__items__.x
        head, *fields = name.split(f".{ITEMS_SEGMENT}.")
        return f"'{head}[...].{'.'.join(fields)}'"
    routes = list(_ROUTE.finditer(name))
    if routes:  # the last step is the one the user sees: a name read by the innermost function
        owner, kind = routes[-1].groups()
        rest = name[routes[-1].end():]
        what = {"globals": "global", "closure": "closure variable", "defaults": "default"}[kind]
        return f"'{rest}' ({what} of '{owner}')"
    return f"'{name}'"


def walk(node):
    """Every node below ``node`` (inclusive), expressions and statements alike, in preorder.
    A stack, not recursive generators: those cost a frame switch per level for every node."""
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        children = []
        for value in node.__dict__.values():
            if isinstance(value, tuple):
                children.extend(child for child in value if isinstance(child, Node))
            elif isinstance(value, Node):
                children.append(value)
        stack.extend(reversed(children))


def appends_in(node) -> frozenset:
    """The lists some ``Append`` below ``node`` appends to."""
    return frozenset(found.array for found in walk(node) if isinstance(found, Append))


def grown_lists(loop: "Loop") -> frozenset:
    """The lists a loop appends values to and also reads or writes by index (``fib.append(fib[-1]
    + fib[-2])``): the kernel's buffer of the list is its growing buffer (codegen: a grown
    list)."""
    return frozenset(loop.appended) & {use.name for use in loop.arrays}


def swapped_tables(node) -> frozenset:
    """The tables whose rows some ``RowSwap`` below ``node`` exchanges."""
    return frozenset(found.array for found in walk(node) if isinstance(found, RowSwap))


def rebound_names(node) -> frozenset:
    """The array names some ``Rebind`` below ``node`` exchanges."""
    return frozenset(name for found in walk(node) if isinstance(found, Rebind) for name in found.targets)


def loops_in(node) -> list:
    """The ``for`` and ``while`` loops at and below statement ``node``, in walk's preorder:
    statements only (expressions hold none), several times faster than ``walk``."""
    found, stack = [], [node]
    while stack:
        node = stack.pop()
        if isinstance(node, (For, While)):
            found.append(node)
            stack.extend(reversed(node.body))
        elif isinstance(node, If):
            stack.extend(reversed(node.orelse))
            stack.extend(reversed(node.body))
    return found


def int_constant(node) -> int | None:
    """The value of an integer literal, negated ones included (``-1`` is UnaryOp('-', 1)); else None."""
    if isinstance(node, Const) and type(node.value) in (int, bool):
        return int(node.value)
    if isinstance(node, UnaryOp) and node.op == "-":
        value = int_constant(node.operand)
        return None if value is None else -value
    return None
