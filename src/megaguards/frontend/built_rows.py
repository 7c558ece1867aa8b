"""Rows a loop builds and appends whole to a list (issue 29, "growing lists"): the table
written row by row, as tutorials and most hand-written code build one::

    table = []
    for i in range(n):
        row = []                      # S1: the only binding of 'row' in the loop
        for j in range(m):
            row.append(f(i, j))       # only appended to, between S1 and S2
        table.append(row)             # S2: in S1's block, after it

The kernel collects the rows' values in one growing buffer and, per ``table.append(row)``,
where the row ends (ir.AppendRow); after a clean run each row becomes a new list of its
values, appended to ``table`` in order (runtime/marshal_appends.c).  So ``row = []`` itself
needs no code, provided every row S1 starts reaches S2 and nothing else sees the list:

* the loop binds ``row`` only at S1, ``row = []``, and names it nowhere but in
  ``row.append(v)``, ``row.extend([v, w])`` and ``row += [v]`` statements between S1 and S2
  (at any depth), and in S2;
* nothing between S1 and S2 leaves S1's block: no ``return``, and no ``break`` or
  ``continue`` but those of loops that are themselves between S1 and S2;
* ``table`` is a name or attribute path other than ``row``, given rows by this S2 only.

After the run the site gives ``row`` CPython's value: the last row built, ``table[-1]``, if
the run built one (runtime/site.py).  Anything else keeps the loop as it was (``row = []``
is then a list display the lowering refuses).
"""
from __future__ import annotations

import ast

from .syntax import dotted_path

APPENDING_METHODS = frozenset({"append", "extend"})


def built_rows(loop: ast.stmt) -> dict[str, str]:
    """``row -> the path of the list its rows join`` for each row list ``loop`` builds (see above)."""
    parents = {id(child): node for node in ast.walk(loop) for child in ast.iter_child_nodes(node)}
    found: dict[str, str] = {}
    for block in _blocks(loop):
        for position, statement in enumerate(block):
            row = _empty_list_binding(statement)
            if row is None or row in found:
                continue
            table = _joined(loop, row, block, position, parents)
            if table is not None:
                found[row] = table
    tables = list(found.values())   # one level only: no row of rows, no table given two rows
    return {row: table for row, table in found.items() if tables.count(table) == 1 and row not in tables
            and table not in found and table.split(".")[0] not in found}


def _blocks(loop: ast.stmt):
    """Every statement list inside ``loop`` (bodies, ``else`` blocks), the loop's own body first."""
    for node in ast.walk(loop):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _empty_list_binding(statement: ast.stmt) -> str | None:
    """``row`` of ``row = []``, else None."""
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.List)
            and not statement.value.elts):
        return statement.targets[0].id
    return None


def _joined(loop: ast.stmt, row: str, block: list, start: int, parents: dict) -> str | None:
    """The list S2 appends ``row`` to, when the rules above hold for the ``row = []`` at
    ``block[start]``; else None."""
    finish = next((k for k in range(start + 1, len(block)) if _appended_row(block[k], row) is not None), None)
    if finish is None:
        return None
    table = _appended_row(block[finish], row)
    if table == row or table.split(".")[0] == row:
        return None
    between = block[start + 1:finish]
    allowed = {id(block[start].targets[0]), id(block[finish].value.args[0])}
    inside = {id(node) for statement in between for node in ast.walk(statement)}
    for node in ast.walk(loop):
        if isinstance(node, ast.Name) and node.id == row and id(node) not in allowed:
            if id(node) not in inside or not _appends_to(node, parents):
                return None
    if any(_leaves(statement) for statement in between):
        return None
    return table


def _appended_row(statement: ast.stmt, row: str) -> str | None:
    """``table`` of the statement ``table.append(row)``, else None."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return None
    call = statement.value
    if (isinstance(call.func, ast.Attribute) and call.func.attr == "append" and len(call.args) == 1
            and not call.keywords and isinstance(call.args[0], ast.Name) and call.args[0].id == row):
        return dotted_path(call.func.value)
    return None


def _appends_to(name: ast.Name, parents: dict) -> bool:
    """Is this use of the row ``row.append(v)``, ``row.extend([...])`` (statements) or ``row += [...]``?"""
    parent = parents.get(id(name))
    if isinstance(parent, ast.AugAssign):
        return parent.target is name and isinstance(parent.op, ast.Add) and isinstance(parent.value, ast.List)
    if not (isinstance(parent, ast.Attribute) and parent.attr in APPENDING_METHODS):
        return False
    call = parents.get(id(parent))
    return (isinstance(call, ast.Call) and call.func is parent and isinstance(parents.get(id(call)), ast.Expr)
            and (parent.attr == "append" or (len(call.args) == 1 and isinstance(call.args[0], ast.List))))


def _leaves(statement: ast.stmt, in_loop: bool = False) -> bool:
    """Can control leave ``statement`` other than by falling through (a ``return``; a ``break``
    or ``continue`` not of a loop inside it)?"""
    if isinstance(statement, ast.Return):
        return True
    if isinstance(statement, (ast.Break, ast.Continue)):
        return not in_loop
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False
    for field in ("body", "orelse", "finalbody", "handlers"):
        inner_loop = in_loop or (field == "body" and isinstance(statement, (ast.For, ast.While, ast.AsyncFor)))
        for child in getattr(statement, field, None) or ():
            if isinstance(child, ast.ExceptHandler):
                if any(_leaves(s, in_loop) for s in child.body):
                    return True
            elif _leaves(child, inner_loop):
                return True
    return False
