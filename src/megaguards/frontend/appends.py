"""The lowering of appends, as a part of ``lower._Lowerer``: ``out.append(v)`` and
``out.extend([v, w])`` on a list bound before the loop (``ir.Append``; the list's objects:
fields.py), rows the loop builds (built_rows.py: ``ir.AppendRow``) and appends to a row
picked by a key (``ir.AppendAt``).

``table[k].append(v)`` groups values: ``table`` is a list of lists, or a dict of lists whose
keys are the ints 0 .. m-1 (the guard checks it: guards/signature.py), read nowhere else in
the loop.  The values wait in a hidden list of their own and each key in the table's buffer;
marshal.c appends each value to its row after a clean run, in order.  A value is a number,
or a row of a list the loop walks (``for p in data: groups[k].append(p)``: its index is kept,
the row itself appended).

A list given values and also indexed in the loop (``fib.append(fib[i - 1] + fib[i - 2])``) grows
in place (``grows_in_place``): the kernel's copy of it is its growing buffer, its length the
buffer's, and marshal.c appends what the buffer gained.  A ``for`` over such a list that
appends to it stays in CPython: Python's loop also visits the elements appended.
"""
from __future__ import annotations

import ast

from ..ir import nodes as ir
from . import desugar
from .syntax import _unsupported, _where, dotted_path, located, nested_loops


class AppendLowering:
    def append(self, node: ast.Call) -> list[ir.Append] | None:
        """``values.append(v)`` or ``values.extend([v, w])`` on a list named by a variable (or
        attribute path) of the loop's own code: ``Append``s (the guard checks it is a list);
        None for other calls."""
        function = node.func
        if not (isinstance(function, ast.Attribute) and len(node.args) == 1 and not node.keywords):
            return None
        if function.attr == "append":
            return self.appends(function.value, node.args, node)
        if function.attr == "extend" and isinstance(node.args[0], ast.List):
            return self.appends(function.value, node.args[0].elts, node)
        return None

    def appends(self, target: ast.expr, values: list[ast.expr], node: ast.AST) -> list[ir.Append] | None:
        """The values joining list ``target`` in order; None where this is not such a list
        (a call or an augmented assignment as any other: inlined, or the reason it cannot be)."""
        if isinstance(target, ast.Subscript):
            return self.keyed_append(target, values, node)
        path = self.rename(dotted_path(target))   # in an inlined function: the caller's list
        if path is None or path.startswith("mg_tmp") or any(isinstance(value, ast.Starred) for value in values):
            return None   # (a list local to the inlined function is not bound before the loop)
        self.appended.setdefault(path, None)
        if (not self.callees and len(values) == 1 and isinstance(values[0], ast.Name)
                and self.built_rows.get(values[0].id) == path):   # table.append(row): the row ends here
            self.joined_rows[values[0].id] = path
            return [ir.AppendRow(path, ir.Const(0, **_where(node)), row=values[0].id, **_where(node))]
        if not self.callees and len(values) == 1 and isinstance(values[0], ast.ListComp):
            return self.comprehension_row(path, values[0], node)   # table.append([e for j in ...])
        self.values_appended.add(path)
        if self.callees:
            self.appended_in_calls.add(path)
        source = self.objects.collected.get(path) if not self.callees else None
        if source is None:
            return [ir.Append(path, self.expression(value), **_where(node)) for value in values]
        collected = []   # out.append(p): the index of p, given its object after the run (Site.collect)
        for value in values:
            objects = self.objects_named(value)
            if objects is None or objects.array != source or len(objects.prefix) != 1:
                raise _unsupported(node, f"'{path}' collects objects of '{source}' and other values")
            collected.append(ir.Append(path, objects.prefix[0], **_where(node)))
        return collected

    def comprehension_row(self, table: str, comprehension: ast.ListComp, node: ast.AST) -> list:
        """``table.append([e for j in range(m) if c])``: a row the loop builds (built_rows.py)
        under a hidden name, filled by the comprehension's own loops (their variables renamed:
        they are the comprehension's), then joined whole (ir.AppendRow)."""
        if table in self.built_rows or table in self.joined_rows or table in self.joined_rows.values():
            raise _unsupported(node, f"'{table}' is given rows built in two places, or is a row itself")
        clauses, element = desugar.own_clauses(comprehension, self.temporary, (node.lineno, node.col_offset))
        row = f"mg_row{next(self.temporaries)}"
        append = ast.Attribute(value=ast.Name(id=row, ctx=ast.Load()), attr="append", ctx=ast.Load())
        body = nested_loops(clauses, [ast.Expr(ast.Call(func=append, args=[element], keywords=[]))])
        self.joined_rows[row] = table
        statements = list(self.block(located(body, node)))
        return statements + [ir.AppendRow(table, ir.Const(0, **_where(node)), row=row, **_where(node))]

    def keyed_append(self, target: ast.Subscript, values: list[ast.expr], node: ast.AST) -> list[ir.Stmt]:
        """``table[k].append(v)`` (``.extend([v, w])``): each value joins the table's hidden list
        of values, and ``AppendAt`` keeps the key (evaluated once, first, as CPython looks the
        row up before it evaluates the values)."""
        table = dotted_path(target.value)
        if self.callees or table is None or isinstance(target.slice, (ast.Slice, ast.Tuple)) \
                or any(isinstance(value, ast.Starred) for value in values):
            raise _unsupported(node, "appending to a row other than 'table[key]' of a table named in the loop's "
                                     "own code")
        where = _where(node)
        statements = []
        key = self.expression(target.slice)
        if not isinstance(key, (ir.Name, ir.Const)):
            held = self.temporary()
            statements.append(ir.Assign(held, key, **where))
            key = ir.Name(held, **where)
        for value in values:
            row = self.row_alias(value.id) if isinstance(value, ast.Name) else None
            if row is not None and len(row.prefix) != 1:
                raise _unsupported(value, f"'{value.id}', a row of a row of '{row.array}', appended")
            item, source = (row.prefix[0], row.array) if row is not None else (self.expression(value), "")
            if table not in self.keyed:
                self.keyed[table] = (f"mg_values{next(self.temporaries)}", source)
            held, known = self.keyed[table]
            if known != source:
                raise _unsupported(node, f"'{table}' is given rows of '{known or source}' and other values")
            statements += [ir.Append(held, item, **where), ir.AppendAt(table, key, values=held, source=source, **where)]
            self.appended.setdefault(held, None)
        self.appended.setdefault(table, None)
        return statements



def grows_in_place(loop: ast.For, path: str, lowerer, arrays) -> bool:
    """May list ``path``, which the loop appends to and indexes, grow in place: values appended
    in the loop's own code (no row, key or object of a list), a list of numbers (rank 1) the
    loop never binds again?  Raises where a ``for`` over it appends to it."""
    rank = next(use.rank for use in arrays if use.name == path)
    if (rank != 1 or path not in lowerer.values_appended or path in lowerer.appended_in_calls
            or path in lowerer.keyed or path in lowerer.joined_rows.values() or path in lowerer.objects.collected
            or path.split(".")[0] in lowerer.assigned or any(path in group for group in lowerer.rebound_groups)):
        return False
    for node in ast.walk(loop):
        if not isinstance(node, ast.For) or is_range_call(node.iter):
            continue
        if any(dotted_path(part) == path for part in ast.walk(node.iter)) and appends_to(node, path):
            raise _unsupported(node, f"the loop over '{path}' appends to it (Python's loop visits the elements "
                                     "appended too)")
    return True


def is_range_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"


def appends_to(loop: ast.For, path: str) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("append", "extend") and dotted_path(node.func.value) == path
               for statement in loop.body for node in ast.walk(statement))
