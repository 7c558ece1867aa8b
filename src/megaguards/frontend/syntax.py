"""Small helpers over Python ``ast`` shared by the lowering's parts: locations,
dotted paths and the one-line reasons for unsupported constructs."""
from __future__ import annotations

import ast

from ..errors import Unsupported

_DESCRIBE = {
    ast.Return: "'return' inside the loop", ast.Yield: "'yield' inside the loop",
    ast.YieldFrom: "'yield from' inside the loop", ast.Await: "'await' inside the loop",
    ast.Try: "'try' inside the loop", ast.With: "'with' inside the loop",
    ast.Delete: "'del' inside the loop",
    ast.Global: "'global' inside the loop", ast.Nonlocal: "'nonlocal' inside the loop",
    ast.FunctionDef: "function definition inside the loop", ast.ClassDef: "class definition inside the loop",
    ast.Import: "import inside the loop", ast.ImportFrom: "import inside the loop",
    ast.Lambda: "lambda", ast.ListComp: "list comprehension", ast.DictComp: "dict comprehension",
    ast.SetComp: "set comprehension", ast.GeneratorExp: "generator expression",
    ast.List: "list display", ast.Dict: "dict display", ast.Set: "set display",
    ast.JoinedStr: "f-string", ast.NamedExpr: "assignment expression (:=)",
    ast.Starred: "starred expression", ast.Slice: "slice",
    ast.Match: "'match' inside the loop",
}


def _unsupported(node: ast.AST, what: str | None = None) -> Unsupported:
    what = what or _DESCRIBE.get(type(node)) or f"unsupported construct '{type(node).__name__}'"
    return Unsupported(what, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def _where(node: ast.AST) -> dict:
    return {"line": getattr(node, "lineno", 0), "col": getattr(node, "col_offset", 0)}


def dotted_path(node: ast.AST) -> str | None:
    """``self.grid`` -> "self.grid"; None for anything but names and attributes of names."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_path(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def int_literal(node: ast.expr) -> int | None:
    """The value of an int literal such as ``3`` or ``-2``, else None."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    inner = node.operand if negative else node
    if isinstance(inner, ast.Constant) and type(inner.value) is int:
        return -inner.value if negative else inner.value
    return None


def located(nodes, where: ast.AST):
    """``nodes`` with every node made without a location given ``where``'s (its line in reports)."""
    for node in nodes:
        for child in ast.walk(node):
            if isinstance(child, (ast.stmt, ast.expr)) and getattr(child, "lineno", None) is None:
                ast.copy_location(child, where)
    return nodes
