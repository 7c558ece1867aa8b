"""megaguards: plain Python loops compiled transparently, with CPython's exact results.

* ``megaguards run script.py`` (or ``python -m megaguards script.py``) runs a script
  with every ``for ... in range(...)`` loop of its own modules going through a
  loop site: guard, compiled kernel, or the original loop.
* ``@megaguards.jit`` does the same for one function; ``megaguards.install()``
  for user modules imported afterwards.
* ``megaguards.report()`` returns the per-loop report (JSON schema version 1).
"""
from __future__ import annotations

from .api import install, jit, report
from .errors import MegaguardsError, Unsupported
from .ipython import load_ipython_extension, unload_ipython_extension

__version__ = "0.1.0"
__all__ = ["jit", "install", "report", "MegaguardsError", "Unsupported", "__version__",
           "load_ipython_extension", "unload_ipython_extension"]
