"""The reference interpreter: the executable meaning of the loop IR.

It runs a lowered loop on the user's own Python objects with Python's operators,
so its results are CPython's by construction wherever the IR says what the source
said: ints never overflow, floats are Python's (or NumPy's, for NumPy scalars),
subscripts wrap and raise as Python's do.  Differential tests compare it with
CPython (is the lowering faithful?) and with the compiled kernels on the same
inputs (is the rendering faithful to the IR?).

The outcome of a run is what a compiled run has: the live-out values, or the
exception Python raised, or ``Declined`` where the IR itself sends the loop back to
CPython (a reduction that saw no element and would raise).  The interpreter writes
the arrays it is given: pass copies to compare.  Not a fast path: it exists to be
obviously right.
"""
from __future__ import annotations

import operator

from . import nodes as ir
from .intrinsics import INTRINSICS

BINARY = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
          "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<<": operator.lshift,
          ">>": operator.rshift, "&": operator.and_, "|": operator.or_, "^": operator.xor}
UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "not": operator.not_}
COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
           "!=": operator.ne}


class Declined(Exception):
    """The IR sends this entry back to CPython (the compiled kernel raises a flag here)."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def interpret(loop: ir.Loop, scalars: dict, arrays: dict, functions: dict) -> dict:
    """Run ``loop`` on live-in scalars (by path), arrays and lists appended to (by name, written in place) and
    the objects called names are bound to (by path).  Returns the final value of every
    scalar the loop assigned (those it never assigned are absent).  Raises what Python
    raises, or ``Declined``."""
    machine = _Machine(dict(scalars), arrays, {**INTRINSICS, **functions})
    machine.statement(loop.body)
    return {name: machine.values[name] for name in loop.assigned if name in machine.assigned}


def evaluate(expression: ir.Expr, values: dict, arrays: dict, functions: dict | None = None) -> object:
    """One expression's value (a GPU region's per-step loop bounds and scalar statements, on
    the host): scalars by path, arrays by name, the functions its calls name by path;
    raises what Python raises."""
    return _Machine(values, arrays, {**INTRINSICS, **(functions or {})}).expression(expression)


class _Machine:
    def __init__(self, values: dict, arrays: dict, functions: dict) -> None:
        self.values = values
        self.arrays = dict(arrays)   # a swap (ir.Rebind) exchanges names here, never the caller's
        self.rows: dict[str, list] = {}   # a row the loop builds -> its values so far (ir.AppendRow)
        self.functions = functions
        self.assigned: set[str] = set()

    # statements ---------------------------------------------------------------------
    def block(self, statements) -> None:
        for statement in statements:
            self.statement(statement)

    def statement(self, node: ir.Stmt) -> None:
        if isinstance(node, ir.For):
            self.loop(node)
        elif isinstance(node, ir.EmptyReduction):
            if node.raises:
                raise Declined(f"line {node.line}: a reduction over no element")
            self.assign(node.target, self.expression(node.value))
        elif isinstance(node, ir.Assign):
            self.assign(node.target, self.expression(node.value))
        elif isinstance(node, ir.Store):
            container, index = self.element(node.array, node.indices)
            container[index] = self.expression(node.value)
        elif isinstance(node, ir.AppendAt):   # the value just collected aside joins the row at the key
            table, key = self.arrays[node.array], self.expression(node.value)
            value = self.rows[node.values].pop()
            table[key].append(self.arrays[node.source][value] if node.source else value)
        elif isinstance(node, ir.AppendRow):   # the row built since its ``row = []`` joins its table
            self.arrays[node.array].append(self.rows.pop(node.row, []))
        elif isinstance(node, ir.Append):   # the list itself, by name among the arrays (a built row: aside)
            target = self.arrays.get(node.array)
            (self.rows.setdefault(node.array, []) if target is None else target).append(self.expression(node.value))
        elif isinstance(node, ir.RowSwap):   # the table's two rows exchange places, as the tuple assignment does
            table, first, second = self.arrays[node.array], self.expression(node.first), self.expression(node.second)
            table[first], table[second] = table[second], table[first]
        elif isinstance(node, ir.Rebind):
            named = [self.arrays[source] for source in node.sources]
            self.arrays.update(zip(node.targets, named))
        elif isinstance(node, ir.If):
            self.block(node.body if self.expression(node.test) else node.orelse)
        elif isinstance(node, ir.While):
            while self.expression(node.test) and self.iteration(node.body):
                pass
        elif isinstance(node, ir.Break):
            raise _Break
        elif isinstance(node, ir.Continue):
            raise _Continue
        elif isinstance(node, ir.Raise):
            raise Declined(f"line {node.line}: " + ("a function returned None" if node.returned_none else "'raise'"))
        elif not isinstance(node, ir.Pass):
            raise TypeError(f"the interpreter has no rule for {type(node).__name__}")

    def loop(self, node: ir.For) -> None:
        # range() evaluates its arguments once and raises as Python's does (a float, a zero step).
        for value in range(self.expression(node.start), self.expression(node.stop), self.expression(node.step)):
            self.assign(node.var, value)
            if not self.iteration(node.body):
                break

    def iteration(self, body) -> bool:
        """One pass over a loop body; False when it breaks out of the loop."""
        try:
            self.block(body)
        except _Continue:
            pass
        except _Break:
            return False
        return True

    def assign(self, name: str, value) -> None:
        self.values[name] = value
        self.assigned.add(name)

    # expressions --------------------------------------------------------------------
    def element(self, array: str, indices) -> tuple:
        """(container, index) of ``array[indices]``: nested lists one subscript at a time,
        a NumPy array with a tuple, as the user's ``A[i][j]`` and ``A[i, j]`` do."""
        container = self.arrays[array]
        values = [self.expression(index) for index in indices]
        if isinstance(container, list):
            for index in values[:-1]:
                container = container[index]
            return container, values[-1]
        return container, tuple(values) if len(values) > 1 else values[0]

    def expression(self, node: ir.Expr):
        if isinstance(node, ir.Const):
            return node.value
        if isinstance(node, ir.Name):
            return self.values[node.id]
        if isinstance(node, ir.Load):
            container, index = self.element(node.array, node.indices)
            return container[index]
        if isinstance(node, ir.Length):
            container = self.arrays[node.array]
            for index in node.prefix:
                container = container[self.expression(index)]
            return len(container)
        if isinstance(node, ir.Shape):
            return self.arrays[node.array].shape[node.dim]
        if isinstance(node, ir.BinOp):
            return BINARY[node.op](self.expression(node.left), self.expression(node.right))
        if isinstance(node, ir.UnaryOp):
            return UNARY[node.op](self.expression(node.operand))
        if isinstance(node, ir.Compare):
            left = self.expression(node.left)
            for op, comparator in zip(node.ops, node.comparators):
                right = self.expression(comparator)
                result = COMPARE[op](left, right)
                if not result:
                    return result
                left = right
            return result
        if isinstance(node, ir.BoolOp):
            for value in node.values[:-1]:
                result = self.expression(value)
                if (not result) if node.op == "and" else result:
                    return result
            return self.expression(node.values[-1])
        if isinstance(node, ir.IfExp):
            return self.expression(node.body if self.expression(node.test) else node.orelse)
        if isinstance(node, ir.Call):
            return self.functions[node.function](*(self.expression(argument) for argument in node.args))
        raise TypeError(f"the interpreter has no rule for {type(node).__name__}")
