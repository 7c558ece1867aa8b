"""What the hand-written CUDA peers share: loading the suite program they mirror, its
inputs as NumPy arrays, the NVRTC options, and the timed run.

A peer is the suite program's computation as a CUDA programmer writes it: CUDA C in a
module-level string (so tests compile it with NVRTC without CuPy or a GPU), launched
through CuPy ``RawModule``.  Its command line is the suite program's::

    python benchmarks/suite_peers/cuda/mm.py --size small

and it prints the same ``checksum=`` / ``time=`` lines (benchmarks/suite/common.py).  The
timer covers the host-to-device copies, every kernel launch, the copies back and a device
synchronisation; the NumPy conversion of the inputs, NVRTC and one warm-up run (which also
sizes CuPy's memory pool) come before it.
"""
from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path

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

# No FMA contraction: every multiply and add rounds on its own, as CPython's doubles do.
# Division and double sqrt are IEEE correctly rounded in CUDA by default.
OPTIONS = ("--fmad=false",)

# The architecture the NVRTC check compiles for when no GPU says otherwise (the H100).
CHECK_ARCHITECTURE = "sm_90"


def suite_program(name: str):
    """The suite program benchmarks/suite/<name>.py as a module (its main() not run).

    Loaded by path under another name: the peer scripts share the programs' file names."""
    return _load(f"suite_program_{name}", SUITE / f"{name}.py")


def peer(name: str):
    """The peer benchmarks/suite_peers/cuda/<name>.py as a module (by path: its file name
    is a suite program's, and benchmarks/programs holds more of the same names)."""
    return _load(f"cuda_peer_{name}", PEERS / f"{name}.py")


def numpy_inputs(inputs: dict) -> dict:
    """The program's inputs with every list turned into a NumPy array (float64 or int64)."""
    import numpy

    return {name: numpy.asarray(value) if isinstance(value, list) else value
            for name, value in inputs.items()}


@functools.lru_cache(maxsize=None)
def _module(source: str):
    import cupy

    return cupy.RawModule(code=source, options=OPTIONS)


def kernel(source: str, name: str):
    """The function `name` of `source`, compiled once per process (CuPy caches on disk)."""
    return _module(source).get_function(name)


def blocks(count: int, threads: int) -> int:
    return (count + threads - 1) // threads


def run(name: str, compute, checksum) -> None:
    """The peer's command line: `compute(inputs)` (NumPy in, NumPy out) once to warm up,
    then timed; prints `checksum(module, outputs)` and the time."""
    import cupy

    module = suite_program(name)
    _, parameters = common.arguments(module.SIZES, module.__doc__)
    for _ in range(common.calls()):   # SUITE_CALLS: the runner's peak mode
        inputs = numpy_inputs(module.make_input(parameters))
        compute(inputs)
        cupy.cuda.Device().synchronize()
        timer = common.Timer()
        timer.start()
        outputs = compute(inputs)
        cupy.cuda.Device().synchronize()
        timer.stop()
        common.report(checksum(module, outputs), timer)


def check_with_nvrtc(source: str, architecture: str = CHECK_ARCHITECTURE) -> None:
    """Compile `source` with NVRTC (no GPU needed) and the peers' options; raises
    RuntimeError with NVRTC's log if it does not compile.  Needs cuda.bindings."""
    from cuda.bindings import nvrtc

    options = [option.encode() for option in (f"--gpu-architecture={architecture}", *OPTIONS)]
    _, program = nvrtc.nvrtcCreateProgram(source.encode(), b"peer.cu", 0, [], [])
    try:
        (result,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetProgramLogSize(program)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(program, log)
            raise RuntimeError(f"NVRTC failed:\n{log.decode(errors='replace')}")
    finally:
        nvrtc.nvrtcDestroyProgram(program)
