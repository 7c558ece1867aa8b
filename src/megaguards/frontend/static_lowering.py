"""Loops the lowering refuses whatever the values: found at rewrite time, for the loops
whose work cannot be estimated (they would be compiled at their first entry).

A loop with ``try``, ``yield``, ``print(...)`` or a list display in it is refused by the
lowering for its syntax alone; finding that at its first entry costs a process the
lowering's import (20-40 ms) and a loop's lowering.  The rewrite lowers such loops once, with
calls resolved as far as the module's text allows (a built-in not rebound in the module, a
function of a standard-library module: not a user function); a call that needs the
values (a function of the module, a parameter, a user module's function) leaves the
question to run time.  The refusal is kept in the site's record (the rewrite cache holds
it), and the site reports it as it would have at its first entry.
"""
from __future__ import annotations

import ast
import builtins
import sys

from ..errors import Unsupported


class NeedsValues(Exception):
    """The lowering asked which function a call names: the answer depends on the values."""


def module_bindings(tree: ast.Module) -> frozenset:
    """The names a module binds at its top level (functions, classes, imports, assignments)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        else:
            names.update(child.id for child in ast.walk(node)
                         if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store))
    return frozenset(names)


def standard_imports(tree: ast.Module) -> frozenset:
    """Names bound by ``import X`` of a standard-library module (``math``, ``os.path``)."""
    return frozenset((alias.asname or alias.name).split(".")[0] for node in tree.body if isinstance(node, ast.Import)
                     for alias in node.names if alias.name.split(".")[0] in sys.stdlib_module_names)


def refusal(loop: ast.For, bindings: frozenset, standard: frozenset) -> tuple | None:
    """(reason, line, col) when the lowering refuses ``loop`` for any values, else None."""
    def resolve(path: str):
        head = path.split(".")[0]
        if head in standard and "." in path:
            return None    # math.sqrt: not a Python function
        if head not in bindings and hasattr(builtins, head) and "." not in path:
            return None    # len, abs: the built-ins
        raise NeedsValues(path)

    from .lower import lower_loop

    try:
        lower_loop(loop, resolve)
    except Unsupported as unsupported:
        return unsupported.describe(), unsupported.line, unsupported.col
    except Exception:   # NeedsValues, or anything the lowering meets: decided at run time
        return None
    return None
