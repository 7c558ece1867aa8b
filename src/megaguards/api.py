"""The in-code entry points: ``jit``, ``install``, ``report`` and ``explain``.

``install()`` alone imports no more than the import hook needs: ``jit``'s tools (``ast``,
``inspect``) come with the first ``jit``."""
from __future__ import annotations

import functools
import types
import warnings

from .errors import CompilationError, MegaguardsWarning

_FACTORY = "__megaguards_factory__"
SITES_ATTRIBUTE = "__megaguards_sites__"  # on a jitted function: the ids of its loop sites


def install(roots=None):
    """Rewrite the loops of user modules imported from now on.

    ``roots``: folders whose modules count as the user's (default: every module
    outside the standard library and site-packages)."""
    from . import importhook

    return importhook.install(roots)


def report() -> dict:
    """The per-loop report of this process so far (see the README for the schema)."""
    from .diagnostics.report import build_report

    return build_report()


def jit(function=None, *, strict: bool = False, reassociate: bool = False):
    """Decorator: route the loops of one function through loop sites.

    ``@jit``, ``@jit()`` and ``@jit(strict=True)`` all work.  Without ``strict`` a loop
    that cannot be compiled runs in CPython silently (``explain(fn)`` says why).  With
    ``strict=True``, the first call that reaches such a loop raises
    ``megaguards.CompilationError`` naming the reason and the source line; exceptions
    the loop itself raises (IndexError ...) stay Python's.  Comprehensions and
    ``sum(...)`` expressions are not covered by ``strict``.  ``reassociate=True`` lets the
    function's float sum/product reductions run reassociated in parallel and its GPU
    math use CUDA's functions (last bits may differ from CPython's, as with
    MEGAGUARDS_REASSOCIATE=1); by default results are CPython's, bit for bit.

    The function keeps its name, signature, defaults and closure; if its source
    is unavailable it is returned unchanged, with a warning (strict: CompilationError)."""
    if function is None:
        return functools.partial(jit, strict=strict, reassociate=reassociate)
    if not isinstance(function, types.FunctionType):
        raise TypeError(f"megaguards.jit expects a Python function, not {type(function).__name__}")
    import inspect
    import textwrap

    try:
        source = textwrap.dedent(inspect.getsource(function))
    except (OSError, TypeError):
        message = f"megaguards.jit: no source for {function.__qualname__}"
        if strict:
            raise CompilationError(message + ": its loops cannot be compiled",
                                   "the function's source is not available") from None
        warnings.warn(message + "; it runs unchanged", MegaguardsWarning, stacklevel=2)
        return function
    return _recompile(function, source, strict, reassociate)


def explain(function, show_source: bool = False, verbose: bool = False) -> str:
    """Per loop of ``function`` (a ``jit`` function, or one of a rewritten module): what
    ran compiled, in parallel or on which device, and why not; loops not reached yet say
    so.  ``show_source`` adds the generated code, ``verbose`` the device choice's details."""
    from .errors import short_location
    from .diagnostics.explain import explain_site
    from .runtime.site import REGISTRY

    sites = [REGISTRY.sites[i] for i in getattr(function, SITES_ATTRIBUTE, ())] or _sites_within(function)
    if not sites:
        name = getattr(function, "__qualname__", repr(function))
        return (f"megaguards: no loop of {name}() goes through megaguards "
                "(decorate it with @megaguards.jit, or run its module under megaguards)")
    return "\n\n".join(explain_site(site, show_source, verbose) if site.stats.entries
                        else f"loop at {short_location(site.info)}: not run yet" for site in sites)


def _sites_within(function) -> list:
    """The sites of a function of a rewritten module: same file, lines inside its source."""
    import inspect

    from .runtime.site import REGISTRY

    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:
        return []
    try:
        last = code.co_firstlineno + len(inspect.getsourcelines(code)[0])
    except (OSError, TypeError):
        last = code.co_firstlineno + 1
    return [site for site in REGISTRY.sites
            if site.info.filename == code.co_filename and code.co_firstlineno <= site.info.line < last]


def _recompile(function: types.FunctionType, source: str, strict: bool = False,
               reassociate: bool = False) -> types.FunctionType:
    import ast

    from .frontend.rewrite import rewrite_module
    from .runtime.site import REGISTRY, Site, install_site_names

    tree = ast.parse(source)
    definition = tree.body[0]
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return function
    definition.decorator_list = []
    code = function.__code__
    # The source starts at co_firstlineno: the first decorator's line, not the def's.
    ast.increment_lineno(tree, code.co_firstlineno - 1)
    site_ids: list[int] = []

    def register(info) -> int:
        site_ids.append(REGISTRY.register(info))
        return site_ids[-1]

    # Rewritten before any factory wraps it, so its sites name the function, not the factory.
    tree, _ = rewrite_module(tree, code.co_filename, register, every_loop=strict)
    definition = tree.body[0]
    if code.co_freevars:  # keep closures: compile inside a factory that owns cells of the same names
        factory = ast.FunctionDef(
            name=_FACTORY, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in code.co_freevars],
                                              kwonlyargs=[], kw_defaults=[], defaults=[]),
            body=[definition, ast.Return(value=ast.Name(id=definition.name, ctx=ast.Load()))],
            decorator_list=[], returns=None)
        tree.body = [factory]
        ast.copy_location(factory, definition)
        ast.fix_missing_locations(tree)
    for site_id in site_ids:
        REGISTRY.sites[site_id].reassociate = reassociate
        if isinstance(REGISTRY.sites[site_id], Site):
            REGISTRY.sites[site_id].strict = strict
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
    setattr(compiled, SITES_ATTRIBUTE, tuple(site_ids))
    return compiled
