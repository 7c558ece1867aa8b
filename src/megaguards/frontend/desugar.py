"""Desugaring: Python idioms rewritten, as ``ast``, into the forms the lowering knows.

Runs inside the lowering (``frontend/lower.py``), before a statement or a ``for``
loop is lowered:

* ``for_loop(node)``: a ``for`` over something other than ``range(...)`` becomes an
  equivalent ``for ... in range(...)`` loop (or the loop is returned unchanged);
* ``statement(node)``: a statement using an idiom becomes a list of plain
  statements, or None when there is nothing to rewrite.

Pure functions of the ``ast``; they raise ``Unsupported`` for forms that look like an
idiom but cannot be rewritten exactly.
"""
from __future__ import annotations

import ast


def for_loop(node: ast.For) -> ast.For:
    return node


def statement(node: ast.stmt) -> list[ast.stmt] | None:
    return None
