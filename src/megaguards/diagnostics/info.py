"""``megaguards info``: what this machine offers megaguards."""
from __future__ import annotations

import platform
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import __version__, config


def _openmp(compiler: str) -> bool:
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "probe.c"
        source.write_text("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
        try:
            result = subprocess.run([*shlex.split(compiler), "-fopenmp", str(source), "-o", str(Path(work) / "probe")],
                                    capture_output=True, timeout=config.current().compile_timeout)
        except (OSError, subprocess.SubprocessError):
            return False
        return result.returncode == 0


def gpu_lines() -> list[str]:
    """One line per CUDA device (name, memory, compute capability); CuPy is imported
    only here, never when megaguards is imported."""
    from ..runtime import cuda

    cupy = cuda.cupy_module()
    if cupy is None:
        return ["CUDA devices: none (loops run on the CPU)"]
    try:
        return _describe_gpus(cupy.cuda.runtime)
    except Exception as error:  # a driver that half works: say so, do not fail `info`
        return [f"CUDA devices: could not be queried ({type(error).__name__}: {error})"]


def _describe_gpus(runtime) -> list[str]:
    count = runtime.getDeviceCount()
    lines = [f"CUDA devices: {count} (driver {_cuda_version(runtime.driverGetVersion())}, "
             f"runtime {_cuda_version(runtime.runtimeGetVersion())})"]
    for index in range(count):
        properties = runtime.getDeviceProperties(index)
        name = properties["name"]
        name = name.decode() if isinstance(name, bytes) else name
        lines.append(f"  GPU {index}: {name}, {properties['totalGlobalMem'] / 2**30:.1f} GiB, "
                     f"compute capability {properties['major']}.{properties['minor']}"
                     + (f", {properties['multiProcessorCount']} multiprocessors"
                        if "multiProcessorCount" in properties else ""))
    return lines


def _cuda_version(number: int) -> str:
    return f"{number // 1000}.{number % 1000 // 10}"


def describe() -> str:
    from ..runtime.compiler import find_compiler
    from .cache import calibration_status, summary

    options = config.current()
    lines = [f"megaguards {__version__}",
             f"Python {platform.python_version()} ({sys.executable}), {platform.machine()}"]
    found = find_compiler(options.compiler)
    if found:
        lines.append(f"C compiler: {found[0]} ({found[1]}); OpenMP: {'yes' if _openmp(found[0]) else 'no'}")
    else:
        lines.append("C compiler: none found (set CC): every loop runs in CPython")
    from ..runtime.marshal import installed_helper

    lines.append("list helper: built at install" if installed_helper() is not None else
                 "list helper: compiled into the cache at the first compiled loop (not built at install, "
                 "or built from another version of marshal.c)")
    try:
        import islpy
        lines.append(f"islpy {islpy.__version__} (dependence analysis)")
    except ImportError:
        lines.append("islpy: not installed (loops stay sequential)")
    lines.extend(gpu_lines())
    try:
        import cupy
        lines.append(f"CuPy {cupy.__version__} (used where a program passes CuPy arrays)")
    except ImportError:
        lines.append("CuPy: not installed (needed only for programs passing CuPy arrays)")
    except Exception as error:  # installed but broken (CUDA libraries missing ...)
        lines.append(f"CuPy: fails to import ({type(error).__name__}: {error})")
    try:
        from cuda.bindings import nvrtc
        _, major, minor = nvrtc.nvrtcVersion()
        lines.append(f"NVRTC {major}.{minor} (CUDA kernels are checked even without a GPU)")
    except Exception:
        lines.append("NVRTC: not installed")
    lines.append(f"device: {options.device}; reassociate: {options.reassociate}; threads: {options.threads or 'all'}")
    lines.append(f"cache: {summary(Path(options.cache_dir))}")
    lines.append(f"calibration: {calibration_status(Path(options.cache_dir))}")
    return "\n".join(lines)
