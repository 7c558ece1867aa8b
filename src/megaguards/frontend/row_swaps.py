"""Rows of a table exchanged in the loop (``a[k], a[p] = a[p], a[k]``: Gaussian elimination's
partial pivoting, an LU factorization's row exchanges), as a part of ``lower._Lowerer``.

The swap becomes ``ir.RowSwap``: the two rows' places exchange, the row objects themselves
unchanged, as in CPython.  The kernel reads and writes the table through a map of its rows
that the swap changes, and after a clean run the list's row objects are put in the map's
order (runtime/marshal_appends.c): every row object ends where CPython's run puts it, its
elements as the kernel left them.  The table is a list of lists the loop indexes as a table
elsewhere (``a[i][j]``), under no other name, not walked by ``for row in a``, not appended to."""
from __future__ import annotations

import ast

from ..errors import Unsupported
from ..ir import nodes as ir
from .syntax import _where, dotted_path


class RowSwapLowering:
    def row_swap(self, targets: list[ast.expr], value_node: ast.expr, node: ast.stmt) -> ir.RowSwap | None:
        """``a[i], a[j] = a[j], a[i]`` (the same two subscripts, exchanged): a RowSwap of table
        ``a``; None for anything else."""
        if len(targets) != 1 or self.callees or not _pair(targets[0]) or not _pair(value_node):
            return None
        (first, second), (left, right) = targets[0].elts, value_node.elts
        paths = {dotted_path(part.value) for part in (first, second, left, right)}
        if len(paths) != 1 or None in paths or any(isinstance(part.slice, (ast.Slice, ast.Tuple))
                                                   for part in (first, second)):
            return None
        if ast.dump(first.slice) != ast.dump(right.slice) or ast.dump(second.slice) != ast.dump(left.slice):
            return None
        path = paths.pop()
        if not _indexed_twice(self.site_loop, path):   # a list of numbers: two elements exchanged as any store
            return None
        self.swapped_rows.add(path)
        self.written_arrays.add(path)   # its rows change places: boxed back, each row once
        return ir.RowSwap(path, self.expression(first.slice), self.expression(second.slice), **_where(node))


def _indexed_twice(loop: ast.AST, path: str) -> bool:
    """Does the loop subscript ``path[i][j]`` somewhere (a table, not a list of numbers)?"""
    return any(isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript)
               and dotted_path(node.value.value) == path for node in ast.walk(loop))


def _pair(node: ast.expr) -> bool:
    return isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2 \
        and all(isinstance(part, ast.Subscript) for part in node.elts)


def check_swapped(lowerer, arrays: tuple) -> None:
    """Each table whose rows are swapped is one the loop indexes as a table and uses no other
    way that a row map would not follow."""
    ranks = {use.name: use.rank for use in arrays}
    for path in sorted(lowerer.swapped_rows):
        if ranks.get(path) != 2:
            raise Unsupported(f"rows of '{path}' are swapped, but the loop does not index '{path}' as a table "
                              f"('{path}[i][j]')")
        if path in lowerer.appended or path in lowerer.row_aliases.values() or path in lowerer.objects.lists:
            raise Unsupported(f"rows of '{path}' are swapped and '{path}' is appended to, walked by rows or holds "
                              "objects")
