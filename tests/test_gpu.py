"""The CUDA back end: kernels always compile with NVRTC (no GPU needed); with a GPU,
loops run there and give CPython's results (skipped cleanly without one)."""
import math

import numpy
import pytest

import megaguards
from megaguards.runtime import cuda

from conftest import assert_same_as_cpython, device_set, run_megaguards, site_for

needs_gpu = pytest.mark.skipif(cuda.cupy_module() is None, reason="no CUDA device (CuPy + GPU)")


@pytest.fixture
def gpu_device():
    with device_set("gpu"):
        yield


def matmul(A, B, C, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i][k] * B[k][j]
            C[i][j] = total


def sums(a, out):
    s = 0
    top = -1
    for i in range(len(a)):
        s += a[i]
        top = max(top, a[i])
        out[i] = a[i] * 2 + 1
    return s, top, i


def mixed_math(a, out):
    for i in range(len(a)):
        x = a[i]
        out[i] = math.sqrt(x) + x / (i + 1) - x // 3.0 + x % 2.5


def divides(a, b, out):
    for i in range(len(a)):
        out[i] = a[i] // b[i]


def grid(n):
    return [[float((i * 7 + j * 3) % 11) for j in range(n)] for i in range(n)]


def test_kernels_render_and_compile_with_nvrtc_without_a_gpu(tmp_path):
    if cuda.cupy_module() is None:
        pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) not installed")
    script = tmp_path / "k.py"
    script.write_text("import math\n" + "\n".join(
        __import__("inspect").getsource(f) for f in (matmul, sums, mixed_math, divides)) + """
matmul([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]], [[0.0] * 2 for _ in range(2)], 2)
print(sums([3, 1, 4, 1, 5], [0] * 5))
mixed_math([1.0, 2.0, 9.0], [0.0] * 3)
divides([7, 8], [2, 3], [0, 0])
""")
    result = run_megaguards("explain", "--device", "gpu", "--dump", tmp_path / "dump", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "(14, 5, 4)\n"
    assert "did not compile" not in result.stderr
    assert len(list((tmp_path / "dump").glob("*.cu"))) == 4
    assert "threadIdx.x runs loop 'j' (coalesced)" in result.stderr  # mm: j indexes rows' columns


@needs_gpu
@pytest.mark.parametrize("function, arguments", [
    (matmul, (grid(33), grid(33), grid(33), 33)),
    (sums, (list(range(-50, 400)), [0] * 450)),
    (mixed_math, (numpy.linspace(0.0, 40.0, 1000), numpy.zeros(1000))),
])
def test_gpu_results_match_cpython(gpu_device, function, arguments):
    fast = assert_same_as_cpython(function, *arguments)
    assert min(site_for(fast), key=lambda l: l["line"])["backend"] == "cuda"


@needs_gpu
def test_gpu_flag_falls_back_with_cpython_partial_state(gpu_device):
    assert_same_as_cpython(divides, list(range(500)), [1] * 250 + [0] + [2] * 249, [0] * 500, compiled=False)


@needs_gpu
def test_cupy_arrays_are_used_in_place(gpu_device):
    import cupy

    def axpy(a, x, y):
        for i in range(len(x)):
            y[i] = a * x[i] + y[i]
    fast = megaguards.jit(axpy)
    x, y = cupy.arange(1 << 16, dtype=cupy.float64), cupy.ones(1 << 16)
    fast(2.0, x, y)
    assert bool((y == 2.0 * cupy.arange(1 << 16) + 1.0).all())
    loop = site_for(fast)[-1]
    assert loop["backend"] == "cuda" and loop["transfers"]["bytes_to_device"] == 0


@needs_gpu
def test_fully_overwritten_numpy_output_is_not_copied_in(gpu_device):
    def outer(x, y, out):
        for i in range(len(x)):
            for j in range(len(y)):
                out[i, j] = x[i] * y[j]
    x, y = numpy.arange(300.0), numpy.arange(400.0)
    fast = assert_same_as_cpython(outer, x, y, numpy.full((300, 400), 7.0))
    loop = min(site_for(fast), key=lambda l: l["line"])
    assert loop["backend"] == "cuda"
    assert loop["transfers"]["bytes_to_device"] == x.nbytes + y.nbytes  # out: allocated, not copied
    assert_same_as_cpython(outer, x, y[:5], numpy.full((300, 400), 7.0))  # partial: must copy in


def jacobi(A, B, n, steps):
    for t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.25 * (B[i - 1, j] + B[i + 1, j] + B[i, j - 1] + B[i, j + 1])
    return t


@needs_gpu
def test_time_steps_keep_data_on_the_device(gpu_device):
    n = 66
    grid_values = numpy.arange(n * n, dtype=numpy.float64).reshape(n, n) % 17
    fast = assert_same_as_cpython(jacobi, grid_values, grid_values.copy(), n, 30)
    loop = min(site_for(fast), key=lambda l: l["line"])
    assert loop["backend"] == "cuda"
    transfers = loop["transfers"]
    assert transfers["to_device"] == 2 and transfers["from_device"] == 2  # once per run, not per step


def extremes(a, b, hi, lo, top):
    for i in range(len(a)):
        hi = max(hi, a[i] * b[i])
        if a[i] < lo:
            lo = a[i]
        if a[i] > top:   # may never beat: top keeps its object
            top = a[i]
    return hi, lo, top


def extreme_values(n: int, seed: int) -> tuple[list, list]:
    values = [((k * 7919 + seed) % 2003 - 1001) / 8.0 for k in range(n)]
    for k in range(seed % 5, n, 97):
        values[k] = [0.0, -0.0, math.nan, -math.inf, 5e-324][(k + seed) % 5]
    return values, [(-1.0) ** k for k in range(n)]


def test_float_max_min_keys_order_doubles_and_zeros_keep_the_earliest_sign():
    """The host's reading of a float max/min kernel's result (runtime/cuda.float_extreme)
    against a mirror of the kernel's ``mg_order_key``: keys grow with values, ±0.0 share one,
    and every double reads back bit for bit."""
    import struct

    def order_key(value):
        bits = 0 if value == 0.0 else struct.unpack("<q", struct.pack("<d", value))[0]
        return bits if bits >= 0 else bits ^ 0x7FFFFFFFFFFFFFFF

    values = sorted({-math.inf, -1e308, -2.5, -5e-324, 0.0, 5e-324, 1.0, 1.5, 1e308, math.inf})
    keys = [order_key(v) for v in values]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert order_key(-0.0) == order_key(0.0)
    for value in values:
        for kind in ("max", "min"):
            assert cuda.float_extreme(order_key(value), -1, kind).hex() == value.hex()
    assert math.copysign(1.0, cuda.float_extreme(0, 2 * 41 + 1, "max")) == -1.0   # the earliest zero: -0.0
    assert math.copysign(1.0, cuda.float_extreme(0, 2 * 41, "min")) == 1.0
    assert cuda.float_extreme(-(2**63), -1, "max") is None and cuda.float_extreme(2**63 - 1, -1, "min") is None


def test_float_max_min_reductions_render_for_the_gpu_and_compile_with_nvrtc(tmp_path):
    if cuda.cupy_module() is None:
        pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (cuda-bindings) not installed")
    script = tmp_path / "extremes.py"
    script.write_text("import math\n" + "\n".join(
        __import__("inspect").getsource(f) for f in (extremes, extreme_values)) + """
a, b = extreme_values(300, 3)
print(extremes(a, b, -1e300, 1e300, 1e9))
""")
    result = run_megaguards("explain", "--device", "gpu", "--dump", tmp_path / "dump", script,
                            env={"MEGAGUARDS_COMPILE_AFTER": "0"})
    assert result.returncode == 0, result.stderr
    assert "no exact GPU form" not in result.stderr and "GPU: band 'i'" in result.stderr, result.stderr
    [kernel] = [path.read_text() for path in (tmp_path / "dump").glob("*.cu") if "mg_order_key" in path.read_text()]
    assert cuda.check_with_nvrtc(kernel, tmp_path / "nvrtc")


@needs_gpu
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_float_max_min_on_the_gpu_match_cpython(gpu_device, seed):
    """NaNs never win, ±0.0 ties keep the earliest, a start no value beats is kept (NaN too)."""
    a, b = extreme_values(5000, seed)
    for start in ((-1e300, 1e300, 1e9), (math.nan, math.nan, -math.inf), (0.0, -0.0, 0.0)):
        fast = assert_same_as_cpython(extremes, a, b, *start)
        assert min(site_for(fast), key=lambda l: l["line"])["backend"] == "cuda"
    zeros = [0.0 if k % 3 else -0.0 for k in range(4000)]   # the maximum and minimum are zeros
    assert_same_as_cpython(extremes, zeros, [1.0] * 4000, -1.0, 1.0, -1.0)
    assert_same_as_cpython(extremes, zeros[1:], [1.0] * 3999, -1.0, 1.0, -1.0)
