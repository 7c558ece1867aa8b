"""``sum()`` of floats as Python 3.12+ computes it: Neumaier's compensated summation.

CPython 3.12 (bltinmodule.c, ``builtin_sum_impl``) adds an exact float to a float
running sum ``f`` with a compensation term ``c``::

    t = f + x
    c += (f - t) + x  if fabs(f) >= fabs(x)  else  (x - t) + f
    f = t

ints and bools join ``f`` plainly, and ``c`` joins the result only at the end, when it is
non-zero and finite.  Before the first float the sum is an exact int; the first float
joins it plainly (``float(i) + x``) and starts ``f`` with no compensation.  The desugared
sums mark their steps (``ir.BinOp.sum_step``); once the types are known (``typeinfer``),
each step that adds a float to a float becomes the compensated step on a hidden
compensation variable; a step whose operands may be ints or floats tests their classes
at run time (the ``.is_float`` intrinsic) and takes the compensated step or the plain
one; every other assignment of the accumulator resets the compensation, and every read
of the accumulator outside its steps reads ``f + c`` where CPython would return it.  A
live-out accumulator (an expression site's) is corrected when the kernel writes it back
(``TypedLoop.compensations``).

Before 3.12 ``sum()`` is a plain left fold: nothing here applies.
"""
from __future__ import annotations

import sys

from .. import record as records
from ..errors import Unsupported
from ..ir import nodes as ir
from ..ir.types import Scalar, describe_types

COMPENSATED_SUM = sys.version_info >= (3, 12)
FLOATS = frozenset({Scalar.PY_FLOAT})
MAY_BE_FLOAT = frozenset({Scalar.PY_FLOAT, Scalar.PY_INT_OR_FLOAT})
NATIVE = frozenset({Scalar.PY_INT, Scalar.PY_FLOAT, Scalar.PY_INT_OR_FLOAT})   # each keeps its class
PLAIN, COMPENSATED, BY_CLASS = "plain", "compensated", "by class"


def compensation_of(accumulator: str) -> str:
    """The hidden variable holding the compensation of a float sum's accumulator."""
    return f"{accumulator}_comp"


def step_kind(elements: frozenset, running: frozenset, where: ir.Node) -> str:
    """How 3.12's sum() adds an element of the types ``elements`` to a running sum of the
    types ``running``: plainly, compensated (a float to a float), or by the classes the
    two values have at run time.  Unsupported where no kernel can tell."""
    if not elements & MAY_BE_FLOAT:   # ints (or NumPy numbers) join a running sum plainly
        return PLAIN
    if Scalar.PY_BOOL in running:   # neither an int nor a float: CPython's generic addition throughout
        raise Unsupported("sum() of floats from a bool start: Python 3.12+ adds them without "
                          "compensation", where.line, where.col)
    if elements | running <= NATIVE:
        if elements == FLOATS and running == FLOATS:
            return COMPENSATED
        return PLAIN if not running & MAY_BE_FLOAT else BY_CLASS   # the int phase's first float: plain
    if Scalar.PY_INT_OR_FLOAT in elements | running:
        mix = describe_types(elements | running, " and ")
        raise Unsupported(f"sum() of values that may be ints or floats along with other numbers ({mix}): "
                          "Python 3.12+ compensates exact floats only", where.line, where.col)
    if elements != FLOATS:   # which ones join plainly varies
        mix = describe_types(elements, " and ")
        raise Unsupported(f"sum() of a mix of floats and other numbers ({mix}): Python 3.12+ "
                          "compensates the floats only", where.line, where.col)
    return PLAIN   # floats joining a NumPy running sum: CPython's generic addition


def compensate(loop: ir.For, type_of) -> tuple[ir.For, tuple[str, ...]] | None:
    """The loop with its float sums compensated, and their accumulators; None when it has
    none.  ``type_of(expression)``: the set of types the (untyped) expression may have."""
    kinds = {}
    for node in ir.walk(loop):
        if isinstance(node, ir.Assign) and isinstance(node.value, ir.BinOp) and node.value.sum_step:
            kinds[id(node)] = step_kind(type_of(node.value.right), type_of(node.value.left), node)
    accumulators = {node.target for node in ir.walk(loop) if kinds.get(id(node), PLAIN) != PLAIN}
    if not accumulators:
        return None
    return _Rewriter(accumulators, kinds).statement(loop)[0], tuple(sorted(accumulators))


class _Rewriter:
    def __init__(self, accumulators: set, kinds: dict) -> None:
        self.accumulators = accumulators
        self.kinds = kinds

    def statement(self, node: ir.Stmt) -> list[ir.Stmt]:
        if isinstance(node, ir.Assign) and node.target in self.accumulators:
            return self.assignment(node)
        return [_rebuilt(node, self.reads, self.statement)]

    def assignment(self, node: ir.Assign) -> list[ir.Stmt]:
        target, value, where = node.target, node.value, {"line": node.line, "col": node.col}
        reset = ir.Assign(compensation_of(target), ir.Const(0.0, **where), **where)
        if not (isinstance(value, ir.BinOp) and value.sum_step):
            if isinstance(node, ir.EmptyReduction) and node.raises:
                return [records.replace(node, value=self.reads(value))]
            return [records.replace(node, value=self.reads(value)), reset]
        continues = isinstance(value.left, ir.Name) and value.left.id == target
        start = [] if continues else [reset]
        left = value.left if continues else self.reads(value.left)
        right = self.reads(value.right)
        kind = self.kinds[id(node)]
        if kind == PLAIN:   # an int joins the running sum plainly
            return start + [records.replace(node, value=records.replace(value, left=left, right=right,
                                                                        sum_step=False))]
        name = lambda identifier: ir.Name(identifier, **where)  # noqa: E731
        item, base = f"{target}_item", f"{target}_base"
        statements = start + [ir.Assign(item, right, **where)]
        if not isinstance(left, ir.Name):
            statements.append(ir.Assign(base, left, **where))
            left = name(base)
        if kind == COMPENSATED:
            return statements + self.neumaier(target, left, name(item), where)
        # By class: a float added to a float sum is compensated; an int, or the int phase's
        # first float, joins plainly (CPython's int phase is exact: the kernel's int-or-float
        # flags an int beyond 2**53).
        both_floats = ir.BoolOp("and", tuple(ir.Call(".is_float", (operand,), **where)
                                             for operand in (left, name(item))), **where)
        running, element = f"{target}_float", f"{target}_addend"
        as_floats = [ir.Assign(running, ir.Call(".as_float", (left,), **where), **where),
                     ir.Assign(element, ir.Call(".as_float", (name(item),), **where), **where)]
        plainly = ir.Assign(target, ir.BinOp("+", left, name(item), **where), **where)
        return statements + [ir.If(both_floats, tuple(as_floats + self.neumaier(
            target, name(running), name(element), where)), (plainly,), **where)]

    @staticmethod
    def neumaier(target: str, f: ir.Name, x: ir.Name, where: dict) -> list[ir.Stmt]:
        """``target = f + x`` with Neumaier's compensation, f and x floats held in names."""
        t, c = ir.Name(f"{target}_next", **where), ir.Name(compensation_of(target), **where)
        plus = lambda a, b: ir.BinOp("+", a, b, **where)  # noqa: E731
        minus = lambda a, b: ir.BinOp("-", a, b, **where)  # noqa: E731
        larger = ir.Compare(_fabs(f, where), (">=",), (_fabs(x, where),), **where)
        return [
            ir.Assign(t.id, plus(f, x), **where),
            ir.If(larger, (ir.Assign(c.id, plus(c, plus(minus(f, t), x)), **where),),
                  (ir.Assign(c.id, plus(c, plus(minus(x, t), f)), **where),), **where),
            ir.Assign(target, t, **where)]

    def reads(self, expression: ir.Expr) -> ir.Expr:
        """``expression`` reading each compensated accumulator's value as ``sum()`` returns it."""
        if isinstance(expression, ir.Name) and expression.id in self.accumulators:
            return corrected(expression.id, {"line": expression.line, "col": expression.col})
        return _rebuilt(expression, self.reads, self.statement)


def _rebuilt(node: ir.Node, expression, statement) -> ir.Node:
    """``node`` with ``expression`` applied to its expressions and ``statement`` (giving a
    list) to the statements of its blocks."""
    changes = {}
    for field in records.fields(node):
        value = getattr(node, field.name)
        if isinstance(value, ir.Expr):
            changes[field.name] = expression(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], ir.Expr):
            changes[field.name] = tuple(expression(v) for v in value)
        elif isinstance(value, tuple) and value and isinstance(value[0], ir.Stmt):
            changes[field.name] = tuple(s for child in value for s in statement(child))
    return records.replace(node, **changes) if changes else node


def corrected(accumulator: str, where: dict) -> ir.Expr:
    """``f + c`` where CPython adds the compensation (non-zero and finite: c - c == 0), else ``f``."""
    f, c = ir.Name(accumulator, **where), ir.Name(compensation_of(accumulator), **where)
    zero = ir.Const(0.0, **where)
    used = ir.BoolOp("and", (ir.Compare(c, ("!=",), (zero,), **where),
                             ir.Compare(ir.BinOp("-", c, c, **where), ("==",), (zero,), **where)), **where)
    return ir.IfExp(used, ir.BinOp("+", f, c, **where), f, **where)


def _fabs(value: ir.Expr, where: dict) -> ir.Expr:
    """fabs(value) for a comparison: NaN compares false either way, as fabs(NaN) does."""
    zero = ir.Const(0.0, **where)
    return ir.IfExp(ir.Compare(value, (">=",), (zero,), **where), value, ir.UnaryOp("-", value, **where), **where)
