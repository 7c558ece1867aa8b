"""The in-code entry points: ``jit``, ``install`` and ``report``."""
from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types
import warnings

from .frontend import importhook
from .frontend.rewrite import rewrite_module

_FACTORY = "__megaguards_factory__"


def install(roots=None):
    """Rewrite the loops of user modules imported from now on.

    ``roots``: folders whose modules count as the user's (default: every module
    outside the standard library and site-packages)."""
    return importhook.install(roots)


def report() -> dict:
    """The per-loop report of this process so far (see the README for the schema)."""
    from .diagnostics.report import build_report

    return build_report()


def jit(function=None):
    """Decorator: route the ``for ... in range`` loops of one function through loop sites.

    The function keeps its name, signature, defaults and closure; if its source
    is unavailable it is returned unchanged, with a warning."""
    if function is None:
        return jit
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"megaguards.jit expects a Python function, not {type(function).__name__}")
    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        warnings.warn(f"megaguards.jit: no source for {function.__qualname__}; it runs unchanged",
                      RuntimeWarning, stacklevel=2)
        return function
    return _recompile(function, source)


def _recompile(function: types.FunctionType, source: str) -> types.FunctionType:
    from .runtime.site import REGISTRY, install_site_names

    tree = ast.parse(source)
    definition = tree.body[0]
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return function
    definition.decorator_list = []
    code = function.__code__
    ast.increment_lineno(tree, code.co_firstlineno - definition.lineno)
    if code.co_freevars:  # keep closures: compile inside a factory that owns cells of the same names
        factory = ast.FunctionDef(
            name=_FACTORY, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in code.co_freevars],
                                              kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=[definition, ast.Return(value=ast.Name(id=definition.name, ctx=ast.Load()))],
            decorator_list=[], returns=None)
        tree.body = [factory]
        ast.copy_location(factory, definition)
    tree, _ = rewrite_module(tree, code.co_filename, REGISTRY.register)
    install_site_names()
    namespace: dict = {}
    exec(compile(tree, code.co_filename, "exec", dont_inherit=True), function.__globals__, namespace)
    if code.co_freevars:
        inner = next(c for c in namespace[_FACTORY].__code__.co_consts
                     if isinstance(c, types.CodeType) and c.co_name == definition.name)
        cells = dict(zip(code.co_freevars, function.__closure__))
        compiled = types.FunctionType(inner, function.__globals__, function.__name__, function.__defaults__,
                                      tuple(cells[name] for name in inner.co_freevars))
    else:
        compiled = namespace[definition.name]
    compiled.__kwdefaults__ = function.__kwdefaults__
    functools.update_wrapper(compiled, function)
    return compiled
