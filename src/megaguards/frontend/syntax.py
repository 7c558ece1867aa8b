"""Small helpers over Python ``ast`` shared by the lowering's parts: locations,
dotted paths, the one-line reasons for unsupported constructs, and the renaming and
nesting of a comprehension's clauses (desugar.py's reductions, lower_calls.py's rows)."""
from __future__ import annotations

import ast
import copy

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


def zipped_table(node: ast.expr) -> ast.expr | None:
    """``rows`` of ``zip(*rows)`` (one starred argument, no keywords), else None."""
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Starred) and not node.keywords):
        return node.args[0].value
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


def renamed(node: ast.AST, names: dict[str, str]) -> ast.AST:
    """A copy with the names in ``names`` replaced (generator and lambda variables are
    local to their scope; nested scopes that rebind them get the same rename,
    which keeps them consistent)."""
    node = copy.deepcopy(node)
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in names:
            child.id = names[child.id]
    return node


def nested_loops(clauses, body: list[ast.stmt]) -> list[ast.stmt]:
    """``body`` inside the clauses' ``for`` loops and ``if`` conditions, the first outermost."""
    for target, iterable, ifs in reversed(clauses):
        for condition in reversed(ifs):
            body = [ast.If(test=condition, body=body, orelse=[])]
        body = [ast.For(target=target, iter=iterable, body=body, orelse=[])]
    return body
