"""IPython and Jupyter: ``%load_ext megaguards`` routes every cell's loops through loop sites.

* An AST transformer (``shell.ast_transformers``) rewrites each cell as the import hook
  rewrites a module, under the file name IPython gives the cell, so tracebacks, the
  report and ``explain`` point at the cell's own lines.  A statement whose rewrite fails
  (or does not compile afterwards) is left exactly as the user wrote it.
* ``%megaguards [on|off|report]``: switch the compiled paths off and on again, print the
  per-loop report of the session, or (no argument) the status.
* ``%%megaguards [--explain] [--no-source]``: run the cell; with ``--explain`` print the
  verdict (and generated code, unless ``--no-source``) of each loop of that cell.

Functions defined in cells can be inlined into loops: IPython keeps every cell's source
in ``linecache`` (under the cell's file name), where ``inspect.getsource`` finds it; if
that entry is gone the loop stays in CPython with the reason "the source of function
... is not available".
"""
from __future__ import annotations

import ast
import copy
import logging

from . import config
from .frontend.rewrite import rewrite_module

log = logging.getLogger("megaguards")

# The file name of code transformed outside a cell's run (``%time``, ``%timeit``):
# IPython compiles those under names of its own that it does not announce.
UNNAMED_CELL = "<ipython>"
LINE_USAGE = "usage: %megaguards [on|off|report]"
CELL_USAGE = "usage: %%megaguards [--explain] [--no-source]"
CELL_FLAGS = ("--explain", "--no-source")


class CellRewriter(ast.NodeTransformer):
    """The AST transformer: each top-level statement of a cell is rewritten on its own,
    so that a failure costs one statement its sites, never the cell."""

    def __init__(self) -> None:
        self.filename: str | None = None       # set by the wrapped compiler cache, per cell
        self.last_filename: str | None = None  # the latest name it set, for %%megaguards

    def visit_Module(self, tree: ast.Module) -> ast.Module:
        from .runtime.site import install_site_names

        filename, self.filename = self.filename or UNNAMED_CELL, None  # one name, one cell
        install_site_names()
        body: list[ast.stmt] = []
        for statement in tree.body:
            body.extend(rewrite_statement(statement, filename))
        tree.body = body
        return tree


def rewrite_statement(statement: ast.stmt, filename: str) -> list[ast.stmt]:
    """The statement with its loops made sites, or the statement untouched if that fails."""
    from .runtime.site import REGISTRY

    original = copy.deepcopy(statement)
    try:
        module, count = rewrite_module(ast.Module(body=[statement], type_ignores=[]), filename,
                                       REGISTRY.register)
        if not count:
            return [original]
        # What IPython will compile must compile: check it here, where we can still go back.
        compile(module, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        return module.body
    except Exception as error:  # a megaguards bug must never break the user's cell
        log.warning("megaguards: %s:%d left unchanged (rewrite failed: %r)", filename,
                    getattr(original, "lineno", 0), error)
        return [original]


class Extension:
    """What ``%load_ext megaguards`` added to one shell, so that unloading removes it."""

    def __init__(self, shell) -> None:
        self.shell = shell
        self.transformer = CellRewriter()
        self.device_before_off: str | None = None
        self.compiler = None
        self.magics = None

    def load(self) -> None:
        from .runtime.site import install_site_names

        install_site_names()
        self.shell.ast_transformers.append(self.transformer)
        self.wrap_compiler_cache()
        self.magics = megaguards_magics_class()(self.shell, self)
        self.shell.register_magics(self.magics)

    def unload(self) -> None:
        """Sites already created keep working (their names stay built-ins): functions
        defined in earlier cells still call them."""
        if self.transformer in self.shell.ast_transformers:
            self.shell.ast_transformers.remove(self.transformer)
        if self.compiler is not None and "cache" in vars(self.compiler):
            del self.compiler.cache
        magics = self.shell.magics_manager.magics
        for kind in ("line", "cell"):
            bound = magics[kind].get("megaguards")
            if getattr(bound, "__self__", None) is self.magics:
                del magics[kind]["megaguards"]
        self.shell.magics_manager.registry.pop(type(self.magics).__name__, None)

    def wrap_compiler_cache(self) -> None:
        """IPython names a cell in its compiler's ``cache`` (which also puts the source in
        ``linecache``) just before parsing it; the transformer needs that name."""
        compiler = self.shell.compile
        original = compiler.cache
        transformer = self.transformer

        def cache(transformed_code, number=0, raw_code=None):
            name = original(transformed_code, number, raw_code)
            transformer.filename = transformer.last_filename = name
            return name
        compiler.cache = cache
        self.compiler = compiler

    # The line magic's actions.
    def status(self) -> str:
        from .runtime.site import REGISTRY

        device = config.current().device
        state = "off" if device == "off" else f"on (device {device})"
        entered = sum(1 for site in REGISTRY.sites if site.stats.entries)
        return f"megaguards is {state}; {entered} loop sites entered in this session"

    def switch_off(self) -> str:
        device = config.current().device
        if device != "off":
            self.device_before_off = device
            config.configure(device="off")
        return "megaguards is off: loops run in CPython (%megaguards on to switch back)"

    def switch_on(self) -> str:
        if config.current().device == "off":
            config.configure(device=self.device_before_off or "auto")
        return self.status()

    def run_cell(self, cell: str, flags: list[str]) -> None:
        """Run the body of ``%%megaguards`` as a cell of its own (as ``%%capture`` does)."""
        from .diagnostics.explain import explain_site
        from .runtime.site import REGISTRY

        outer = getattr(self.shell.displayhook, "exec_result", None)  # the magic's own cell
        first = len(REGISTRY.sites)
        self.transformer.last_filename = None
        result = self.shell.run_cell(cell, store_history=False)
        if outer is not None and result is not None and not result.success and outer.error_in_exec is None:
            # The body's error (already shown) is the cell's: Jupyter's "run all" stops there.
            outer.error_in_exec = result.error_in_exec or result.error_before_exec
        if "--explain" not in flags:
            return
        names = (self.transformer.last_filename, UNNAMED_CELL)  # the cell's, its %time's
        sites = [site for site in REGISTRY.sites[first:] if site.info.filename in names and site.stats.entries]
        if not sites:
            print("megaguards: no loop of this cell was reached")
            return
        print("\n\n".join(explain_site(site, show_source="--no-source" not in flags) for site in sites))


def megaguards_magics_class():
    """The magics, built on first use so that importing megaguards never imports IPython."""
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

    @magics_class
    class MegaguardsMagics(Magics):
        def __init__(self, shell, extension: Extension) -> None:
            super().__init__(shell)
            self.extension = extension

        @line_magic("megaguards")
        def megaguards_line(self, line: str) -> None:
            """%megaguards [on|off|report]: switch megaguards on or off, print the
            per-loop report of this session, or (no argument) the status."""
            from .diagnostics.report import format_table

            words = line.split()
            actions = {(): self.extension.status, ("on",): self.extension.switch_on,
                       ("off",): self.extension.switch_off, ("report",): format_table}
            action = actions.get(tuple(words))
            print(action() if action else LINE_USAGE)

        @cell_magic("megaguards")
        def megaguards_cell(self, line: str, cell: str) -> None:
            """%%megaguards [--explain] [--no-source]: run the cell; with --explain, print
            each of its loops' verdict and generated code (--no-source: without the code)."""
            flags = line.split()
            if any(flag not in CELL_FLAGS for flag in flags):
                print(CELL_USAGE)
                return
            self.extension.run_cell(cell, flags)

    return MegaguardsMagics


_EXTENSIONS: dict[int, Extension] = {}


def load_ipython_extension(shell) -> None:
    """``%load_ext megaguards``; loading twice keeps one transformer."""
    if id(shell) in _EXTENSIONS:
        return
    extension = Extension(shell)
    extension.load()
    _EXTENSIONS[id(shell)] = extension


def unload_ipython_extension(shell) -> None:
    """``%unload_ext megaguards``: cells from now on run as written."""
    extension = _EXTENSIONS.pop(id(shell), None)
    if extension is not None:
        extension.unload()
