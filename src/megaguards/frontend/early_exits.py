"""Early exits of loops inside a loop site, as AST rewrites before the lowering (issue 29's
"early exits"): ``for ... else`` / ``while ... else`` become a flag the loop's own ``break``s
set and an ``if not flag`` block; ``breaks_own_loop`` tells the lowering whether a loop can
leave early (a ``for row in table`` that breaks keeps its rows out of the row aliases)."""
from __future__ import annotations

import ast
import copy

from .syntax import located


def _assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=value)


def loop_else(node: ast.For | ast.While, fresh) -> list[ast.stmt]:
    """``for ... else`` (a loop inside a loop site): a flag its own ``break``s set, and the
    ``else`` block run when it is not set, as Python runs it after a loop that did not break."""
    flag = fresh()
    loop = copy.copy(node)
    loop.body = _BreakSetsFlag(flag).block(node.body)
    loop.orelse = []
    otherwise = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=flag, ctx=ast.Load())), body=node.orelse,
                       orelse=[])
    return located([_assign(flag, ast.Constant(False)), loop, otherwise], node)


def breaks_own_loop(statements) -> bool:
    """Does a ``break`` in these statements leave the loop that holds them (not a nested one's)?"""
    for statement in statements:
        if isinstance(statement, ast.Break):
            return True
        if isinstance(statement, ast.If) and (breaks_own_loop(statement.body) or breaks_own_loop(statement.orelse)):
            return True
        if isinstance(statement, (ast.For, ast.While)) and breaks_own_loop(statement.orelse):
            return True
    return False


class _BreakSetsFlag:
    """The statements with each ``break`` of the loop itself preceded by ``flag = True``: not
    those of nested loops, but those of a nested loop's ``else`` (they leave this loop)."""

    def __init__(self, flag: str) -> None:
        self.flag = flag

    def block(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        result = []
        for statement in statements:
            if isinstance(statement, ast.Break):
                result += located([_assign(self.flag, ast.Constant(True))], statement) + [statement]
                continue
            statement = copy.copy(statement)
            if isinstance(statement, ast.If):
                statement.body, statement.orelse = self.block(statement.body), self.block(statement.orelse)
            elif isinstance(statement, (ast.For, ast.While)):
                statement.orelse = self.block(statement.orelse)
            result.append(statement)
        return result
