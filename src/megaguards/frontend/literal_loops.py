"""Loops over a tuple or list display written in the loop (``for dx in (-1, 0, 1)``,
``for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1))``: a stencil's neighbours).  Python
builds the display once, then iterates it; the rewritten loop counts over its positions and
binds the target to the element at a position through a chain of conditional expressions,
so ``break``, ``continue`` and the target's value after the loop stay Python's, on every
backend.  Only displays whose elements are the same at every iteration qualify: number
constants (signed), names the loop does not assign, or tuples of those of one width (for a
tuple target).  A display of ints in arithmetic progression under a plain name becomes the
range it equals (``for dx in (-1, 0, 1)``: ``range(-1, 2)``), whose variable the bounds
analysis follows: ``if 0 <= i + dx < n: g[i + dx]`` then keeps no check in the loop."""
from __future__ import annotations

import ast
import copy

from .syntax import int_literal

MAX_ELEMENTS = 32   # a longer display is a table, better kept as a list the loop reads


def literal_elements(node: ast.expr, assigned: set[str]) -> list | None:
    """The display's elements (each an expression, or a list of expressions for a row of a
    tuple target), or None when ``node`` is not such a display."""
    if not isinstance(node, (ast.Tuple, ast.List)) or not 0 < len(node.elts) <= MAX_ELEMENTS:
        return None
    if all(_fixed(element, assigned) for element in node.elts):
        return list(node.elts)
    rows = [element.elts for element in node.elts if isinstance(element, (ast.Tuple, ast.List))]
    if len(rows) == len(node.elts) and len({len(row) for row in rows}) == 1 and rows[0] \
            and all(_fixed(value, assigned) for row in rows for value in row):
        return [list(row) for row in rows]
    return None


def progression(node: ast.For) -> ast.Call | None:
    """``range(first, past, step)`` for ``for name in (ints in arithmetic progression)``,
    else None.  The name then takes the same ints, in the same order, and keeps the last."""
    values = [int_literal(element) for element in getattr(node.iter, "elts", ())]
    if not isinstance(node.target, ast.Name) or not isinstance(node.iter, (ast.Tuple, ast.List)) \
            or not 0 < len(values) <= MAX_ELEMENTS or None in values:
        return None
    step = values[1] - values[0] if len(values) > 1 else 1
    if step == 0 or any(later - earlier != step for earlier, later in zip(values, values[1:])):
        return None
    return ast.Call(func=ast.Name(id="range", ctx=ast.Load()), keywords=[],
                    args=[ast.Constant(values[0]), ast.Constant(values[-1] + step), ast.Constant(step)])


def element_at(elements: list, index: ast.expr):
    """The element at ``index`` (an int expression in range): an expression, or a tuple of
    them, one per column, for rows."""
    if isinstance(elements[0], list):
        return tuple(_chosen([row[column] for row in elements], index) for column in range(len(elements[0])))
    return _chosen(elements, index)


def _chosen(values: list[ast.expr], index: ast.expr) -> ast.expr:
    """``values[0] if index == 0 else values[1] if index == 1 else ... values[-1]``."""
    chosen = copy.deepcopy(values[-1])
    for position in range(len(values) - 2, -1, -1):
        test = ast.Compare(left=copy.deepcopy(index), ops=[ast.Eq()], comparators=[ast.Constant(position)])
        chosen = ast.IfExp(test=test, body=copy.deepcopy(values[position]), orelse=chosen)
    return chosen


def _fixed(node: ast.expr, assigned: set[str]) -> bool:
    """A number constant (signed), or a name the loop does not assign."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool)
    return isinstance(node, ast.Name) and node.id not in assigned
