"""``megaguards info``: what this machine offers megaguards."""
from __future__ import annotations

import platform
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import __version__, config


def _openmp(compiler: str) -> bool:
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "probe.c"
        source.write_text("#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n")
        result = subprocess.run([compiler, "-fopenmp", str(source), "-o", str(Path(work) / "probe")],
                                capture_output=True)
        return result.returncode == 0


def _cache_size(folder: Path) -> str:
    if not folder.exists():
        return "empty"
    files = [p for p in folder.rglob("*") if p.is_file()]
    return f"{len(files)} files, {sum(p.stat().st_size for p in files) / 2**20:.1f} MiB"


def describe() -> str:
    from ..runtime import cuda
    from ..runtime.compiler import find_compiler

    options = config.current()
    lines = [f"megaguards {__version__}",
             f"Python {platform.python_version()} ({sys.executable}), {platform.machine()}"]
    found = find_compiler(options.compiler)
    if found:
        lines.append(f"C compiler: {found[0]} ({found[1]}); OpenMP: {'yes' if _openmp(found[0]) else 'no'}")
    else:
        lines.append("C compiler: none found (set CC): every loop runs in CPython")
    try:
        import islpy
        lines.append(f"islpy {islpy.__version__} (dependence analysis)")
    except ImportError:
        lines.append("islpy: not installed (loops stay sequential)")
    gpus = cuda.devices()
    lines.append("CUDA devices: " + ("; ".join(gpus) if gpus else "none (loops run on the CPU)"))
    try:
        import cupy
        lines.append(f"CuPy {cupy.__version__}")
    except ImportError:
        lines.append("CuPy: not installed (pip install 'megaguards[cuda]')")
    try:
        from cuda.bindings import nvrtc
        _, major, minor = nvrtc.nvrtcVersion()
        lines.append(f"NVRTC {major}.{minor} (CUDA kernels are checked even without a GPU)")
    except Exception:
        lines.append("NVRTC: not installed")
    lines.append(f"device: {options.device}; strict: {options.strict}; threads: {options.threads or 'all'}")
    lines.append(f"cache: {options.cache_dir} ({_cache_size(options.cache_dir)})")
    return "\n".join(lines)
