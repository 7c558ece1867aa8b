"""The CUDA back end: kernels always compile with NVRTC (no GPU needed); with a GPU,
loops run there and give CPython's results (skipped cleanly without one)."""
import math

import numpy
import pytest

import megaguards
from megaguards import config
from megaguards.runtime import cuda

from conftest import assert_same_as_cpython, run_megaguards, site_for

needs_gpu = pytest.mark.skipif(cuda.cupy_module() is None, reason="no CUDA device (CuPy + GPU)")


@pytest.fixture
def gpu_device():
    previous = config.current().device
    config.configure(device="gpu")
    yield
    config.configure(device=previous)


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
