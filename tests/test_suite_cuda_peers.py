"""The hand-written CUDA peers of the benchmark suite (benchmarks/suite_peers/cuda).

Without a GPU: every peer's kernel source compiles with NVRTC under the peers' options
(needs cuda.bindings).  With CuPy and a CUDA device: every peer at --size small prints
CPython's checksum (within the peer's TOLERANCE)."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benchmarks" / "suite_peers" / "cuda"
SUITE = ROOT / "benchmarks" / "suite"
NAMES = sorted(p.stem for p in PEERS.glob("*.py") if not p.name.startswith("_"))
CHECKSUM = re.compile(r"^checksum=(.+)$", re.MULTILINE)


def peer_helpers():
    spec = importlib.util.spec_from_file_location("_peer", PEERS / "_peer.py")
    if "_peer" not in sys.modules:  # the peers import it by that name
        module = importlib.util.module_from_spec(spec)
        sys.modules["_peer"] = module
        spec.loader.exec_module(module)
    return sys.modules["_peer"]


def test_the_required_peers_exist():
    required = {"mm", "mandelbrot", "hotspot", "pathfinder", "srad", "blackscholes", "nbody"}
    assert required <= set(NAMES)
    assert set(NAMES) <= {p.stem for p in SUITE.glob("*.py")}  # each mirrors a suite program


@pytest.mark.parametrize("name", NAMES)
def test_kernel_source_compiles_with_nvrtc(name):
    pytest.importorskip("cuda.bindings.nvrtc")
    peer = peer_helpers().peer(name)  # imports no CuPy at module level
    assert "__global__" in peer.SOURCE
    peer_helpers().check_with_nvrtc(peer.SOURCE)


def test_nvrtc_check_reports_a_broken_kernel():
    pytest.importorskip("cuda.bindings.nvrtc")
    with pytest.raises(RuntimeError, match="NVRTC failed"):
        peer_helpers().check_with_nvrtc('extern "C" __global__ void k(double *a) { a[0] = undeclared; }')


def cuda_device_count() -> int:
    probe = "import cupy; print(cupy.cuda.runtime.getDeviceCount())"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    return int(found.stdout.strip()) if found.returncode == 0 and found.stdout.strip().isdigit() else 0


@pytest.fixture(scope="module")
def gpu():
    if cuda_device_count() == 0:
        pytest.skip("no CuPy or no CUDA device here")


def checksum_of(script: Path) -> str:
    completed = subprocess.run([sys.executable, str(script), "--size", "small"], capture_output=True,
                               text=True, timeout=600, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return CHECKSUM.search(completed.stdout).group(1)


@pytest.mark.parametrize("name", NAMES)
def test_peer_matches_cpython_on_the_gpu(gpu, name):
    expected, actual = checksum_of(SUITE / f"{name}.py"), checksum_of(PEERS / f"{name}.py")
    tolerance = getattr(peer_helpers().peer(name), "TOLERANCE", 0.0)
    a, b = float(expected), float(actual)
    assert actual == expected or abs(a - b) <= tolerance * max(abs(a), abs(b)), (expected, actual, tolerance)
