"""Rewriting user modules as they are imported, and running a script as __main__.

Only the user's own modules are rewritten: files under the given roots (the
script's folder for ``megaguards run``), never the standard library,
site-packages or megaguards itself.  Rewritten code is never written to
``__pycache__``, where it would shadow the plain module for ordinary ``python``
runs: it is kept in megaguards' own cache folder instead (``runtime/rewrites.py``),
so a module is rewritten once, not in every process.
"""
from __future__ import annotations

import functools
import importlib.machinery
import os
import sys
import sysconfig   # not inside find_spec: importing it there would call find_spec again

# Folders are ``os.path.realpath`` strings: this module is imported by every ``megaguards run``,
# and ``pathlib`` (with ``re``, ``fnmatch``, ``urllib.parse``) costs several ms on an
# interpreter that has not imported it already.
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _inside(folder: str, root: str) -> bool:
    """Is ``folder`` ``root`` or inside it (both real paths)?"""
    return folder == root or folder.startswith(root if root.endswith(os.sep) else root + os.sep)


@functools.lru_cache(maxsize=1)
def _installation_roots() -> frozenset[str]:
    """The standard library's and site-packages' folders (fixed for the process)."""
    roots = {os.path.realpath(path) for key in ("stdlib", "platstdlib", "purelib", "platlib")
             if (path := sysconfig.get_paths().get(key))}
    return frozenset(roots | {os.path.join(os.path.realpath(sys.prefix), "lib"),
                              os.path.join(os.path.realpath(sys.base_prefix), "lib")})


@functools.lru_cache(maxsize=8)
def _system_roots(path: tuple) -> tuple[str, ...]:
    """Installation roots plus the site-packages folders on ``path`` (``sys.path``)."""
    roots = set(_installation_roots())
    for entry in path:
        if "site-packages" in entry or "dist-packages" in entry:
            roots.add(os.path.realpath(entry))
    return tuple(sorted(roots))


@functools.lru_cache(maxsize=4096)
def _user_folder(folder: str, roots: tuple | None, path: tuple) -> bool:
    """Whether files in ``folder`` are the user's: asked once per folder (every import of
    the process passes here, NumPy's hundred modules included)."""
    try:
        resolved = os.path.realpath(folder)
    except (OSError, ValueError):
        return False
    if _installed(resolved, path):
        return False
    return roots is None or any(_inside(resolved, root) for root in roots)


def _installed(resolved: str, path: tuple) -> bool:
    """Is the folder megaguards' own, the standard library's or a site-packages folder's (or inside one)?"""
    return _inside(resolved, _PACKAGE_ROOT) or any(_inside(resolved, root) for root in _system_roots(path))


@functools.lru_cache(maxsize=4096)
def _installed_package(folders: tuple, path: tuple) -> bool:
    """Are all the folders of a package's ``__path__`` installed ones?  Then none of its
    submodules is the user's, and finding it twice (here, then by the import system's own
    finder) is not needed: about 65 us an import."""
    try:
        return bool(folders) and all(_installed(os.path.realpath(folder), path) for folder in folders)
    except (OSError, TypeError, ValueError):
        return False


def is_user_file(path: str, roots: list[str] | None) -> bool:
    if not path.endswith(".py"):
        return False
    folder, name = os.path.split(path)
    if os.path.islink(path):   # a link's target decides where the file lives
        try:
            folder = os.path.dirname(os.path.realpath(path))
        except OSError:
            return False
    return _user_folder(folder, None if roots is None else tuple(roots), tuple(sys.path))


def compile_rewritten(source: str | bytes, filename: str):
    """Parse, rewrite loops to sites, compile: the code object to execute, its sites
    registered (from the rewrite cache when an earlier process rewrote the same source)."""
    from .runtime.rewrites import compile_module
    from .runtime.site import REGISTRY

    return compile_module(source, filename, REGISTRY)


class RewritingLoader(importlib.machinery.SourceFileLoader):
    def get_code(self, fullname):
        path = self.get_filename(fullname)
        return compile_rewritten(self.get_data(path), path)

    def exec_module(self, module) -> None:
        from .runtime.site import install_site_names

        install_site_names()
        super().exec_module(module)


class RewritingFinder:
    """A meta path finder (``importlib.abc.MetaPathFinder``'s protocol: that module, with
    ``typing`` under it, is not imported for it)."""

    def __init__(self, roots: list[str] | None) -> None:
        self.roots = roots

    def find_spec(self, fullname, path=None, target=None):
        if path is not None and type(path) is list and _installed_package(tuple(path), tuple(sys.path)):
            return None   # a submodule of megaguards, NumPy, the standard library...
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if (spec is None or spec.origin is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader)
                or not is_user_file(spec.origin, self.roots)):
            return None
        spec.loader = RewritingLoader(fullname, spec.origin)
        return spec


def install(roots=None) -> RewritingFinder:
    """Rewrite user modules imported from now on (under ``roots`` if given)."""
    for finder in sys.meta_path:
        if isinstance(finder, RewritingFinder):
            if roots is None:
                finder.roots = None
            elif finder.roots is not None:
                finder.roots = sorted(set(finder.roots) | {os.path.realpath(r) for r in roots})
            return finder
    finder = RewritingFinder(None if roots is None else [os.path.realpath(r) for r in roots])
    sys.meta_path.insert(0, finder)
    return finder


def compile_script(path: str):
    """The rewritten code of a script (raises SyntaxError like the interpreter would)."""
    script = os.path.abspath(path)
    with open(script, "rb") as handle:
        source = handle.read()
    return compile_rewritten(source, script)


def hide_frames_below(below: int) -> None:
    """The script reads and sets the recursion limit as under python: ``below`` frames of
    megaguards lie under its first one, so the real limit is its own plus ``below``.  (The
    runtime took the real functions at its import.)"""
    real_get, real_set = sys.getrecursionlimit, sys.setrecursionlimit

    def getrecursionlimit() -> int:
        return real_get() - below

    def setrecursionlimit(limit) -> None:
        if type(limit) is not int or limit < 1:
            real_set(limit)   # python's own TypeError or ValueError
        real_set(limit + below)

    for function, real in ((getrecursionlimit, real_get), (setrecursionlimit, real_set)):
        function.__doc__, function.__qualname__, function.__module__ = real.__doc__, real.__name__, "sys"
    sys.getrecursionlimit, sys.setrecursionlimit = getrecursionlimit, setrecursionlimit


class NotRunnable(Exception):
    """What ``python -m`` says in one line instead of running a module (``No module named
    ...``, a package without ``__main__``): its message is python's."""


def module_code(name: str):
    """``(spec, code)`` of module ``name`` as ``python -m name`` runs it (a package: its
    ``__main__``; its parent packages imported first, as python does), the user modules of
    the folder it is found in rewritten as those of a script's folder are.  ``sys.path[0]``
    is already the current folder.  Raises NotRunnable with python's own message."""
    import runpy

    top = name.partition(".")[0]
    found = importlib.machinery.PathFinder.find_spec(top) if top else None   # nothing imported yet
    locations = [] if found is None else list(found.submodule_search_locations or [found.origin])
    install([os.path.dirname(location) for location in locations if location] or [os.getcwd()])
    _, spec, code = runpy._get_module_details(name, NotRunnable)   # python -m's own search and messages
    return spec, code


def run_code(code, path: str, argv: list[str], shown: str | None = None, spec=None) -> None:
    """Execute a script's rewritten code as ``__main__``, like ``python path`` (``shown``:
    ``sys.argv[0]`` when it differs from ``path``: ``python DIR`` runs ``DIR/__main__.py``);
    with ``spec`` (``module_code``), a module's, like ``python -m`` (``path``: its file)."""
    import types

    import builtins

    from .runtime.site import install_site_names

    script = os.path.abspath(path)
    if spec is None:
        install([os.path.dirname(script)])
        sys.path[0] = os.path.dirname(script)  # as python does: the script's folder, not ours
    sys.argv = [shown or path, *argv]
    module = types.ModuleType("__main__")
    module.__dict__.update({"__file__": script, "__builtins__": builtins, "__cached__": None,
                            "__spec__": None, "__package__": None, "__annotations__": {},
                            "__loader__": importlib.machinery.SourceFileLoader("__main__", script)})
    if spec is not None:   # as runpy sets them
        module.__dict__.update({"__file__": path, "__cached__": spec.cached, "__spec__": spec,
                                "__package__": spec.parent, "__loader__": spec.loader})
    install_site_names()
    from .workers import prepare

    prepare(next(finder.roots for finder in sys.meta_path if isinstance(finder, RewritingFinder)))
    sys.modules["__main__"] = module
    # ``python path`` runs the script's module in the first frame; here megaguards' own
    # frames lie below it: the recursion limit grows by as many, so that the script may
    # recurse exactly as deep as under python.
    # Before 3.12 each exec() also starts an evaluation that counts: this one's, and
    # runpy's under -m.
    counts_exec = sys.version_info < (3, 12)
    frame, below = sys._getframe(), int(counts_exec)
    while frame is not None:
        below += 1 + (counts_exec and frame.f_code.co_name == "_run_code" and frame.f_globals.get("__name__") == "runpy")
        frame = frame.f_back
    if spec is not None:   # python -m's own frames lie below the module's too (runpy's two, its exec)
        below -= 2 + counts_exec
    sys.setrecursionlimit(sys.getrecursionlimit() + below)
    hide_frames_below(below)
    exec(code, module.__dict__)
