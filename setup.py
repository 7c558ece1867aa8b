"""megaguards' one compiled part, built at install when it can: the list helper
(src/megaguards/runtime/marshal.c), which runs loaded with ctypes, never imported.  Built
here, a run needs no Python headers and compiles nothing but its loops' kernels.  It is
optional: without a C compiler or Python's headers the install goes on, and the first loop
that compiles builds the helper into megaguards' cache instead, as it does wherever this
build is stale (runtime/marshal.py compares its key with the source's).  Everything else
is in pyproject.toml."""
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The build imports the package's pure-Python parts for the helper's flags and key; megaguards'
# settings are not the build's (MEGAGUARDS_REPORT would make the import write a report at exit).
for name in [name for name in os.environ if name.startswith("MEGAGUARDS_")]:
    del os.environ[name]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))
from megaguards.codegen.layout import abi_defines  # noqa: E402
from megaguards.runtime.helper_source import INSTALLED_NAME, helper_key  # noqa: E402


class OptionalHelper(build_ext):
    """The helper with OpenMP (large lists unboxed by every core), else without it; a
    build that fails leaves it to the run time, with one line saying so."""

    def build_extension(self, extension):
        failure = None
        for openmp in (["-fopenmp"], []):
            extension.extra_compile_args = ["-O2", "-w", *openmp]
            extension.extra_link_args = list(openmp)
            try:
                return super().build_extension(extension)
            except Exception as error:  # noqa: BLE001 - a compile or link error, no compiler at all
                failure = error
        print(f"megaguards: the list helper was not built at install ({type(failure).__name__}: the compiler's "
              "messages are above); the first compiled loop builds it instead", file=sys.stderr)
        return None

    def get_export_symbols(self, extension):
        return []   # no PyInit_: a shared object for ctypes, not a module


DEFINES = [tuple(flag[2:].split("=", 1)) for flag in abi_defines()] + [("MG_HELPER_KEY", f'"{helper_key()}"')]
setup(ext_modules=[Extension(f"megaguards.runtime.{INSTALLED_NAME}", ["src/megaguards/runtime/marshal.c"],
                             define_macros=DEFINES, optional=True)],
      cmdclass={"build_ext": OptionalHelper})
