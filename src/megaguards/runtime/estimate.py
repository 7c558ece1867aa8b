"""Evaluating a loop site's work formula (``frontend/work.py``) against one entry's
live-ins: the seconds CPython is estimated to take, read in a few microseconds without
running any user code (``runtime/tiering.py`` decides with it).  Interval arithmetic over
the formula's int expressions: a bound that depends on an enclosing loop's variable is
taken at its largest; ``len()`` only of built-in sequences and arrays.  A loop whose trips
cannot be told from the live-ins counts one trip, and a called function whose bytecode
loops counts as a call: the estimate is then a lower bound, said as such."""
from __future__ import annotations

import builtins
import functools
import types
from array import array as ArrayArray

NODE_SECONDS = 2.5e-9    # CPython 3.11-3.12: one syntax node of a loop body in a function, about
LOOP_WEIGHT = 3          # nodes an iteration costs beyond its body (the iterator, the target)


NOT_TOLD = (0.0, False)


def estimate(formula: tuple, values: tuple) -> tuple[float, bool]:
    """(seconds, exact): the CPython time one entry whose live-ins are ``values`` is
    estimated to take; not ``exact``: a lower bound, roughly (some trips not told)."""
    assumed, callees, inlined, work, exact = formula
    for position, name in assumed:
        if values[position] is not getattr(builtins, name):
            return NOT_TOLD   # range or len rebound: what the formula read is not what runs
    for position, name, line in inlined:
        code = getattr(values[position], "__code__", None) if type(values[position]) is types.FunctionType else None
        if code is None or code.co_name != name or code.co_firstlineno != line:
            return NOT_TOLD   # not the function the formula read (rebound, decorated)
    if exact and any(_loops_inside(values[position], attribute) for position, attribute in callees):
        exact = False
    evaluator = _Evaluator(values)
    weight = evaluator.work(work, {})
    return weight * NODE_SECONDS, exact and evaluator.exact


_SEQUENCES = (list, tuple, range, str, bytes, bytearray, ArrayArray)


class _Evaluator:
    def __init__(self, values: tuple) -> None:
        self.values = values
        self.exact = True     # False once some loop's trips are not told by the values

    def work(self, work: tuple, scope: dict) -> float:
        weight, loops = work
        total = float(weight)
        for trips, bindings, body in loops:
            count = self.trips(trips, scope)
            if count is None:   # counted as one trip, its variables unknown
                count, bindings = 1, ()
                self.exact = False
            if count == 0:
                continue
            inner = dict(scope)
            for name, how in bindings:
                inner[name] = self.binding(how, scope)
            total += count * (LOOP_WEIGHT + self.work(body, inner))
        return total

    def binding(self, how, scope: dict):
        """What a loop variable is known to be: an interval (lo, hi), a sample element
        ``("sample", value)``, or None."""
        if how is None:
            return None
        kind, what = how
        if kind == "index":
            return self.values_of(what, scope)
        sequence = self.sequence(what, scope)
        return ("sample", _first(sequence)) if sequence is not None and _length(sequence) else None

    def values_of(self, trips: tuple, scope: dict) -> tuple | None:
        """The interval a range's variable runs through (None: empty or not told)."""
        _, start, stop, step = trips
        start, stop, step = self.integer(start, scope), self.integer(stop, scope), self.integer(step, scope)
        if None in (start, stop, step):
            return None
        if step[0] > 0:
            return (start[0], stop[1] - 1) if stop[1] - 1 >= start[0] else None
        if step[1] < 0:
            return (stop[0] + 1, start[1]) if start[1] >= stop[0] + 1 else None
        return None

    def trips(self, trips: tuple, scope: dict) -> int | None:
        kind = trips[0]
        if kind == "range":
            start, stop, step = (self.integer(part, scope) for part in trips[1:])
            if None in (start, stop, step):
                return None
            if step[0] > 0:     # the most trips: the lowest start, the highest stop, the smallest step
                return max(0, -(-(stop[1] - start[0]) // step[0]))
            if step[1] < 0:
                return max(0, -(-(start[1] - stop[0]) // -step[1]))
            return None         # a step that may be 0 (ValueError) or change sign
        if kind == "each":
            sequence = self.sequence(trips[1], scope)
            return None if sequence is None else _length(sequence)
        counts = [self.trips(part, scope) for part in trips[1:]]   # zip: the shortest
        return None if None in counts else min(counts)

    def sequence(self, node: tuple, scope: dict):
        kind = node[0]
        if kind == "in":
            return self.values[node[1]]
        if kind == "attr":
            owner = self.sequence(node[1], scope)
            return None if owner is None else _attribute(owner, node[2])
        if kind == "built":   # a list comprehension: as long as its trips, its elements unknown
            count = self.trips(node[1], scope)
            return None if count is None else range(count)
        if kind == "lit":   # a list display: only its length is known, as a range's
            length = self.integer(node[1], scope)
            return None if length is None else range(max(0, length[1]))
        if kind == "item":
            outer = self.sequence(node[1], scope)
            return None if outer is None or not _length(outer) else _first(outer)
        known = scope.get(node[1])
        return known[1] if type(known) is tuple and known and known[0] == "sample" else None

    def integer(self, node: tuple, scope: dict) -> tuple | None:
        """The interval (lo, hi) of an int expression, or None."""
        kind = node[0]
        if kind == "c":
            return node[1], node[1]
        if kind == "in":
            value = _integer(self.values[node[1]])
            return None if value is None else (value, value)
        if kind == "var":
            known = scope.get(node[1])
            return known if type(known) is tuple and len(known) == 2 and type(known[0]) is int else None
        if kind == "attr":
            value = self.sequence(node, scope)
            return (value, value) if type(value) is int else None
        if kind == "len":
            sequence = self.sequence(node[1], scope)
            length = None if sequence is None else _length(sequence)
            return None if length is None else (length, length)
        operands = [self.integer(part, scope) for part in node[1:]]
        if None in operands:
            return None
        if kind == "neg":
            return -operands[0][1], -operands[0][0]
        if kind == "min":
            return min(o[0] for o in operands), min(o[1] for o in operands)
        if kind == "max":
            return max(o[0] for o in operands), max(o[1] for o in operands)
        (a, b), (c, d) = operands
        if kind == "+":
            return a + c, b + d
        if kind == "-":
            return a - d, b - c
        if kind == "*":
            products = (a * c, a * d, b * c, b * d)
            return min(products), max(products)
        if c <= 0 <= d:
            return None         # a divisor that may be 0
        if kind == "//":
            quotients = (a // c, a // d, b // c, b // d)
            return min(quotients), max(quotients)
        return (0, max(abs(c), abs(d)) - 1) if c > 0 else (-max(abs(c), abs(d)) + 1, 0)   # %


def _integer(value) -> int | None:
    """An int, or a NumPy integer's value (``n = a.sum()``; its ``__index__`` is NumPy's)."""
    cls = type(value)
    if cls is int:
        return value
    if cls.__module__ == "numpy" and cls.__name__.startswith(("int", "uint")):
        return int(value)
    return None


def _attribute(owner, name: str):
    """``owner.<name>`` where it is a plain value in the object's own ``__dict__`` or a
    slot, and no class of it defines ``name`` otherwise (a property, a ``__getattr__``:
    user code), else None."""
    cls = type(owner)
    if cls.__getattribute__ is not object.__getattribute__:
        return None
    for klass in cls.__mro__:
        if name in klass.__dict__:   # a slot reads the object's field; anything else may be user code
            slot = klass.__dict__[name]
            try:
                return slot.__get__(owner, cls) if type(slot) is types.MemberDescriptorType else None
            except AttributeError:   # an empty slot
                return None
    try:   # no class defines it: the object's own value, read without asking for its __dict__ (own_value)
        return object.__getattribute__(owner, name)
    except AttributeError:
        return None


def _method(owner, name: str):
    """What ``owner.<name>`` calls, found without running user code (a module's function,
    a function of the object's class), or None."""
    if type(owner) is types.ModuleType:
        return owner.__dict__.get(name)
    for klass in type(owner).__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _loops_inside(value, attribute: str | None) -> bool:
    """Does calling ``value`` (or what ``value.<attribute>(...)`` calls) run a Python
    function whose code loops?  Read from the bytecode, without running user code; a
    class is judged by its own ``__init__``."""
    if attribute is not None:
        value = _method(value, attribute)
    if isinstance(value, type):
        value = value.__dict__.get("__init__")
    code = getattr(value, "__code__", None) if type(value) in (types.FunctionType, types.MethodType) else None
    return code is not None and _code_loops(code)


@functools.lru_cache(maxsize=1)
def _loop_opcodes() -> frozenset:
    import opcode

    return frozenset(opcode.opmap[name] for name in ("FOR_ITER", "JUMP_BACKWARD", "JUMP_ABSOLUTE",
                                                    "JUMP_BACKWARD_NO_INTERRUPT") if name in opcode.opmap)


@functools.lru_cache(maxsize=4096)
def _code_loops(code) -> bool:
    """Does this code object (or code nested in it: a comprehension, a local function) loop?"""
    loops, raw = _loop_opcodes(), code.co_code
    return any(raw[k] in loops for k in range(0, len(raw), 2)) or any(
        type(constant) is types.CodeType and _code_loops(constant) for constant in code.co_consts)


def _first(sequence):
    """The first element of a non-empty built-in sequence or array (no user code runs)."""
    try:
        return sequence[0]
    except Exception:   # a zero-dimensional array: no rows
        return None


def _length(value) -> int | None:
    """len() of a built-in sequence or an array (never a user class's __len__)."""
    cls = type(value)
    if cls in _SEQUENCES:
        try:
            return len(value)
        except OverflowError:   # a range past sys.maxsize
            return None
    if cls.__name__ == "ndarray" and cls.__module__.split(".")[0] in ("numpy", "cupy"):
        shape = value.shape
        return shape[0] if shape else None
    return None
