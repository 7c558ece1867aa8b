"""megaguards: plain Python loops compiled transparently, with CPython's exact results.

* ``megaguards run script.py`` (or ``python -m megaguards script.py``) runs a script
  with every ``for ... in range(...)`` loop of its own modules going through a
  loop site: guard, compiled kernel, or the original loop.
* ``@megaguards.jit`` does the same for one function; ``megaguards.install()``
  for user modules imported afterwards.
* ``megaguards.report()`` returns the per-loop report (JSON schema version 1);
  ``megaguards.explain(fn)`` says, per loop of ``fn``, what ran compiled and why not.
* Every warning megaguards gives is a ``megaguards.MegaguardsWarning`` (a
  ``RuntimeWarning``): ``-W ignore::megaguards.MegaguardsWarning`` silences them.

Importing megaguards imports almost nothing: the public functions come from ``api.py``
on first use (PEP 562), and the heavy stages (NumPy, islpy, the analyses, the code
generators, CUDA) when a loop site is first entered.
"""
from __future__ import annotations

from . import config
from .errors import CompilationError, MegaguardsError, MegaguardsWarning, Unsupported

__version__ = "0.1.0"
__all__ = ["jit", "install", "report", "explain", "MegaguardsError", "CompilationError", "Unsupported",
           "MegaguardsWarning", "__version__",
           "load_ipython_extension", "unload_ipython_extension"]
_LAZY = {"jit": "api", "install": "api", "report": "api", "explain": "api",
         "load_ipython_extension": "ipython", "unload_ipython_extension": "ipython"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'megaguards' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


if config.current().report_json:  # MEGAGUARDS_REPORT: written at exit under plain python too (@jit, install())
    from .reports import write_at_exit

    write_at_exit()

if config.current().log_level:  # MEGAGUARDS_LOG=debug ...: the user asked to see the logger
    from .log_setup import configure_logging

    configure_logging(config.current().log_level)
