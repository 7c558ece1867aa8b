"""The columns of a table, ``for col in zip(*rows)``, read in place.

desugar.py turns the site's own loop into ``for j in range(len(rows[0]) if len(rows) else
0)`` binding ``col = mg_column(rows, j)``; here ``col`` becomes an alias of that column
(``_Row`` with the suffix ``(j,)``): ``col[k]`` reads ``rows[k][j]``, ``len(col)`` is
``len(rows)``, and ``sum(col)``, ``max(col)``, ``for v in col`` read it through those.
CPython's ``col`` is a tuple made at each step: the loop may write no element of ``rows``
(this module, and by alias group the pipeline), nor use ``col`` otherwise than by its
elements; after the run the site gives ``col`` the last column as CPython leaves it
(``LoopSite.last_rows``).  The guard's rank-2 tables are rectangular, so ``len(rows[0])``
is the length of every row, as far as zip goes.
"""
from __future__ import annotations

import ast

from ..ir import nodes as ir
from .desugar import COLUMN
from .lower_calls import _Row
from .syntax import _unsupported, dotted_path, zipped_table


def is_column(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and dotted_path(value.func) == COLUMN


def column_source(source: ast.expr) -> str | None:
    """The table of ``zip(*table)`` (a name or dotted path), else None."""
    table = zipped_table(source)
    return None if table is None else dotted_path(table)


class ColumnLowering:
    """The lowering's part for ``for col in zip(*rows)`` (a mixin of lower._Lowerer)."""

    def column_alias(self, targets: list, value: ast.expr, node: ast.stmt) -> list | None:
        """``col = mg_column(rows, j)`` (desugar.py's bind): the alias, made; None for other binds."""
        if not (getattr(node, "element_bind", False) and is_column(value)):
            return None
        name = targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
        if self.callees or (name not in self.row_names and not getattr(node, "column_bind", False)):
            raise _unsupported(node, "zip(*rows) other than as the loop of the site itself, bound to one name "
                                     "used by its elements")
        table = self.rename(dotted_path(value.args[0]))
        if table in self.assigned:
            raise _unsupported(node, f"{ir.describe_name(table)} is assigned in the loop")
        self.site_rows[name] = _Row(table, (), (self.expression(value.args[1]),))
        self.column_aliases[name] = table
        return []

    def check_column_write(self, path: str, node: ast.AST) -> None:
        """A store into a table whose columns the loop reads: CPython's tuples hold the values
        of their step, a read in place would see the store."""
        if path in self.column_aliases.values():
            raise _unsupported(node, f"{ir.describe_name(path)} is written while zip(*{path}) reads its columns")
