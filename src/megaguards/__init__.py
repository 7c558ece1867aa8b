"""megaguards: plain Python loops compiled transparently, with CPython's exact results.

* ``megaguards run script.py`` (or ``python -m megaguards script.py``) runs a script
  with every ``for ... in range(...)`` loop of its own modules going through a
  loop site: guard, compiled kernel, or the original loop.
* ``@megaguards.jit`` does the same for one function; ``megaguards.install()``
  for user modules imported afterwards.
* ``megaguards.report()`` returns the per-loop report (JSON schema version 1);
  ``megaguards.explain(fn)`` says, per loop of ``fn``, what ran compiled and why not.
"""
from __future__ import annotations

from . import config
from .api import explain, install, jit, report
from .errors import CompilationError, MegaguardsError, Unsupported
from .ipython import load_ipython_extension, unload_ipython_extension

__version__ = "0.1.0"
__all__ = ["jit", "install", "report", "explain", "MegaguardsError", "CompilationError", "Unsupported",
           "__version__",
           "load_ipython_extension", "unload_ipython_extension"]

if config.current().log_level:  # MEGAGUARDS_LOG=debug ...: the user asked to see the logger
    from .log_setup import configure_logging

    configure_logging(config.current().log_level)
