"""What the numba peers share: loading the suite program they mirror, the command line,
the two compiled variants of a kernel, the warm-up and the timed run.

A peer is the suite program's computation as a numba user writes it: NumPy arrays and
``numba.njit(cache=True)`` functions, the outer loop(s) written with ``numba.prange``.
Its command line is the suite program's plus ``--parallel``::

    python benchmarks/suite_peers/numba/hotspot.py --size small [--parallel]

Without ``--parallel`` the kernels run under ``njit(cache=True)``, where ``prange`` is a
plain ``range``; with it, under ``njit(parallel=True, cache=True)``, which splits the
``prange`` loops over the cores (NUMBA_NUM_THREADS).  No ``fastmath``: LLVM then neither
contracts to FMA nor reassociates, so a loop computes what CPython computes, bit for bit.

It prints the same ``checksum=`` / ``time=`` lines (benchmarks/suite/common.py).  The
program's ``make_input()`` and the conversion of its lists to NumPy arrays come before
the timer.  JIT compilation is excluded from the time: the peer first runs its whole
computation once, untimed, on the program's ``small`` input (numba compiles a kernel at
its first call, or loads it from its on-disk cache), then builds the requested input and
runs it timed.  The timer covers the kernel calls and the turning of the result into
what the program's checksum reads (``tolist()`` where that is a nested list); the
checksum itself is computed after the timer, as in the suite programs.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
import types
from pathlib import Path

import numba

PEERS = Path(__file__).resolve().parent
SUITE = PEERS.parents[1] / "suite"


def _load(module_name: str, path: Path):
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


# The programs import their helpers as `common`: registered under that name, by path, so
# that neither sys.path order nor the peers' own file names can pick another module.
common = _load("common", SUITE / "common.py")
fsum_nested = common.fsum_nested


def suite_program(name: str):
    """The suite program benchmarks/suite/<name>.py as a module (its main() not run).

    Loaded by path under another name: the peer scripts share the programs' file names."""
    return _load(f"suite_program_{name}", SUITE / f"{name}.py")


def peer(name: str):
    """The peer benchmarks/suite_peers/numba/<name>.py as a module (its run not started),
    for a peer that reuses another's kernels.  By path, under the name the tests give it:
    its file name is a suite program's, and benchmarks/suite is on PYTHONPATH."""
    return _load(f"numba_peer_{name}", PEERS / f"{name}.py")


class kernel:
    """Decorator of a peer's top-level kernel: compiled sequentially or in parallel, as
    the command line chose (``kernel.parallel``), at its first call.

    The parallel variant is a twin of the function under another qualified name: numba's
    cache keys an entry by the function's name, signature and bytecode but not by the
    ``parallel`` flag, so one function compiled both ways would load the other's code.
    Helpers that a kernel calls are plain ``numba.njit(cache=True)`` functions."""

    parallel = False

    def __init__(self, function):
        self.sequential = numba.njit(cache=True)(function)
        twin = types.FunctionType(function.__code__, function.__globals__,
                                  function.__name__ + "_parallel", function.__defaults__,
                                  function.__closure__)
        twin.__qualname__ = function.__qualname__ + "_parallel"
        twin.__module__ = function.__module__
        self.in_parallel = numba.njit(parallel=True, cache=True)(twin)
        self.__doc__ = function.__doc__

    def __call__(self, *arguments):
        return (self.in_parallel if kernel.parallel else self.sequential)(*arguments)


def run(name: str, compute, checksum) -> None:
    """The peer's command line: --size and --parallel, then measure() and the report."""
    program = suite_program(name)
    parser = argparse.ArgumentParser(description=f"numba peer of {name}: {program.__doc__}")
    parser.add_argument("--size", choices=sorted(program.SIZES), default="small")
    parser.add_argument("--parallel", action="store_true",
                        help="numba.njit(parallel=True): the prange loops on all cores")
    options = parser.parse_args()
    for _ in range(common.calls()):   # SUITE_CALLS: the runner's peak mode
        outputs, timer = measure(name, compute, options.size, options.parallel)
        common.report(checksum(outputs), timer)


def measure(name: str, compute, size: str, parallel: bool):
    """`compute(inputs)` takes the program's make_input() dict with its lists already
    NumPy arrays (see arrays()) and returns what the peer's checksum reads.  It runs once
    on the small input to compile, then timed on `size`: (outputs, common.Timer)."""
    program = suite_program(name)
    kernel.parallel = parallel
    compute(arrays(program.make_input(program.SIZES["small"])))
    inputs = arrays(program.make_input(program.SIZES[size]))
    timer = common.Timer()
    timer.start()
    outputs = compute(inputs)
    timer.stop()
    return outputs, timer


def arrays(inputs: dict) -> dict:
    """The inputs with every list turned into a NumPy array (float64, int64 or bool)."""
    import numpy

    return {name: numpy.asarray(value) if isinstance(value, list) else value
            for name, value in inputs.items()}
