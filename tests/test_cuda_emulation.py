"""megaguards' real GPU path (CUDA renderer, runtime/cuda.py's packing and launches)
on a machine without a GPU: tests/cuda_emulator.py fakes CuPy and runs each kernel's
blocks as OpenMP teams.  Every test compares with CPython bit for bit and checks that
the loop really went through the emulated GPU (site report and launch count)."""
from __future__ import annotations

import math

import cuda_emulator
import numpy
import pytest
from conftest import _comparable, assert_same_as_cpython, sites_of

import megaguards
from megaguards import config


def outcome(function, make):
    """(result or exception, arguments afterwards) of ``function`` on fresh arguments from
    ``make`` (not deep copies: a copied view would be contiguous, a copied device array
    host memory)."""
    arguments = make()
    try:
        result = ("returned", function(*arguments))
    except Exception as error:  # noqa: BLE001 - the exception itself is compared
        result = ("raised", type(error).__name__, str(error))
    return _comparable(result), _comparable(arguments)


def on_gpu(emulator, function, make, flagged=False):
    """``function`` plainly and jitted (strict: an internal error raises): same results and
    arguments afterwards; its outermost loop ran as an emulated kernel (``flagged``: whose
    flag sent the loop back to CPython)."""
    launches = emulator.launches
    expected = outcome(function, make)
    fast = megaguards.jit(function, strict=True)
    actual = outcome(fast, make)
    assert not emulator.errors
    assert actual == expected
    loop = sites_of(fast)[0]
    assert loop["backend"] == "cuda", (loop, megaguards.explain(fast))
    assert emulator.launches > launches
    if flagged:
        assert loop["compiled_runs"] == 0 and loop["fallback_runs"] == 1, loop
        assert any(reason.startswith("runtime flag") for reason in loop["reasons"]), loop["reasons"]
    else:
        assert loop["compiled_runs"] == 1 and loop["fallback_runs"] == 0, loop
    return loop


# 22 iterations in blocks of 4 (cuda_emulator.SMALL_BLOCKS): 6 blocks, the last one half idle.
N = 23


def shifted(a, b, n):
    for i in range(1, n):
        b[i] = a[i] * 2.0 + 1.0


def strided(a, b, n):
    for i in range(2, n, 3):
        b[i] = a[i] * 3 - i


def rows(a, b):
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j] + 1.0


def test_range_start(emulator):
    on_gpu(emulator, shifted, lambda: (numpy.linspace(-3.0, 7.0, N), numpy.zeros(N), N))


def test_range_start_and_step_int64(emulator):
    on_gpu(emulator, strided, lambda: (numpy.arange(-40, 3 * N - 40), numpy.zeros(3 * N, numpy.int64), 3 * N))


def test_2d_nest(emulator):
    def nest(a, b, c, n, m):
        for i in range(1, n):
            for j in range(m):
                c[i, j] = a[i, j] * b[j] + i - j
    n, m = 7, 9   # blocks of 4 x 2: a 3 x 3 grid with idle threads on both axes
    on_gpu(emulator, nest, lambda: (numpy.arange(n * m, dtype=numpy.float64).reshape(n, m) / 7.0,
                                    numpy.linspace(1.0, 2.0, m), numpy.full((n, m), -1.0), n, m))


def test_3d_nest(emulator):
    def cube(a, out):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                for k in range(a.shape[2]):
                    out[i, j, k] = a[i, j, k] * (i + 1) - k
    on_gpu(emulator, cube, lambda: (numpy.arange(90).reshape(3, 5, 6), numpy.zeros((3, 5, 6), numpy.int64)))


def test_list_of_floats(emulator):
    def poly(x, out):
        for i in range(len(x)):
            out[i] = x[i] * x[i] - 0.5 * x[i] + 1.0 / 3.0
    on_gpu(emulator, poly, lambda: ([0.1 * k - 1.0 for k in range(N)], [0.0] * N))


def test_lists_of_lists_matmul(emulator):
    def matmul(A, B, C, n):
        for i in range(n):
            for j in range(n):
                total = 0.0
                for k in range(n):
                    total += A[i][k] * B[k][j]
                C[i][j] = total
    n = 6
    grid = [[float((i * 7 + j * 3) % 11) / 3.0 for j in range(n)] for i in range(n)]
    on_gpu(emulator, matmul, lambda: ([r[:] for r in grid], [r[::-1] for r in grid], [[0.0] * n for _ in range(n)], n))


def test_reductions_and_last_values(emulator):
    def sums(a, out):
        s = 0
        top = -1
        for i in range(len(a)):
            s += a[i]
            top = max(top, a[i])
            out[i] = a[i] * 2 + 1
        return s, top, i
    loop = on_gpu(emulator, sums, lambda: ([(k * 37) % 101 - 50 for k in range(N)], [0] * N))
    assert loop["transfers"]["to_device"] == 1   # 'out' is overwritten whole: allocated, not copied


def test_float_sum(emulator):
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s
    saved = config.current().reassociate
    config.configure(reassociate=True)   # exact float sums stay off the GPU; here order cannot matter:
    try:                             # multiples of 1/4, small, sum exactly in any order
        on_gpu(emulator, total, lambda: (numpy.arange(N, dtype=numpy.float64) / 4.0,))
    finally:
        config.configure(reassociate=saved)


def test_live_outs_of_the_last_iteration(emulator):
    def last(a, out):
        x = 0.0
        for i in range(len(a)):
            x = a[i] * 0.5
            out[i] = x
        return x, i
    on_gpu(emulator, last, lambda: (numpy.linspace(1.0, 5.0, N), numpy.zeros(N)))


def test_index_error_in_the_kernel(emulator):
    def gather(a, index, out):
        for i in range(len(index)):
            out[i] = a[index[i]] + 1.0
    index = numpy.arange(N) % 5
    index[N // 2] = 5   # data the hoisted checks cannot see: the kernel's flag, then CPython, raise
    on_gpu(emulator, gather, lambda: (numpy.linspace(0.0, 1.0, 5), index.copy(), numpy.zeros(N)), flagged=True)


def test_zero_division_in_the_kernel_on_lists(emulator):
    def divides(a, b, out):
        for i in range(len(a)):
            out[i] = a[i] // b[i]
    on_gpu(emulator, divides, lambda: (list(range(N)), [1] * 9 + [0] + [2] * (N - 10), [0] * N), flagged=True)


def test_strided_and_fortran_views(emulator):
    def copy_scaled(a, b):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                b[i, j] = a[i, j] * 0.5
    base = numpy.arange(12 * 10, dtype=numpy.float64).reshape(12, 10)
    on_gpu(emulator, copy_scaled, lambda: (base[::2, 1::3], numpy.zeros((6, 3))))
    on_gpu(emulator, copy_scaled, lambda: (numpy.asfortranarray(base), numpy.zeros((10, 12)).T))


def test_fully_overwritten_output_is_allocated_not_copied(emulator):
    def outer(x, y, out):
        for i in range(len(x)):
            for j in range(len(y)):
                out[i, j] = x[i] * y[j]
    loop = on_gpu(emulator, outer, lambda: (numpy.arange(5.0), numpy.arange(7.0), numpy.full((5, 7), 7.0)))
    assert loop["transfers"]["bytes_to_device"] == (5 + 7) * 8

    def outer_lists(x, y, out):
        for i in range(len(x)):
            for j in range(len(y)):
                out[i][j] = x[i] * y[j]
    # A list overwritten whole is not unboxed (its old elements, whatever they are, are never
    # read): only its shape is checked; a short row sends the entry to CPython, whose error it is.
    old = lambda: [[0.0] * 7 for _ in range(4)] + [[0.0, "old", None, 2, 3.5, 1.0, 0.5]]   # noqa: E731
    loop = on_gpu(emulator, outer_lists, lambda: ([float(v) for v in range(5)], [float(v) for v in range(7)], old()))
    assert loop["transfers"]["bytes_to_device"] == (5 + 7) * 8
    short = lambda: ([0.5] * 5, [1.5] * 7, [[0.0] * 7 for _ in range(4)] + [[0.0] * 6])   # noqa: E731
    assert outcome(megaguards.jit(outer_lists), short) == outcome(outer_lists, short)


def test_cupy_arrays_are_used_in_place(emulator):
    cupy = emulator.module

    def axpy(a, x, y):
        for i in range(len(x)):
            y[i] = a * x[i] + y[i]
    loop = on_gpu(emulator, axpy, lambda: (2.5, cupy.asarray(numpy.arange(N, dtype=numpy.float64)), cupy.ones(N)))
    assert loop["transfers"]["bytes_to_device"] == 0


def test_same_array_under_two_names_1d_contiguous(emulator):
    on_gpu(emulator, shifted, lambda: (*(2 * [numpy.linspace(0.0, 1.0, N)]), N))


# One object under two names: each name's device strides are written (runtime/cuda.py's
# arrays_to_device); the prologue leaves an ndarray's strides at 0, so a name skipped
# would read and write element or row 0 only (this was so before arrays_to_device).
@pytest.mark.parametrize("kind", ["numpy-2d", "strided-view-1d", "cupy-2d"])
def test_same_array_under_two_names(emulator, kind):
    cupy = emulator.module
    if kind == "strided-view-1d":
        def make():
            view = numpy.linspace(0.0, 1.0, 2 * N)[::2]
            return view, view, N
        on_gpu(emulator, shifted, make)
        return
    convert = cupy.asarray if kind == "cupy-2d" else numpy.asarray

    def make():
        matrix = convert(numpy.arange(6 * 5, dtype=numpy.float64).reshape(6, 5))
        return matrix, matrix
    on_gpu(emulator, rows, make)


def test_gpu_region_time_steps(emulator):
    def jacobi(A, B, n, steps):
        for t in range(steps):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    B[i, j] = 0.25 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    A[i, j] = 0.25 * (B[i - 1, j] + B[i + 1, j] + B[i, j - 1] + B[i, j + 1])
        return t
    n, steps = 9, 3
    grid = numpy.arange(n * n, dtype=numpy.float64).reshape(n, n) % 17
    launches = emulator.launches
    loop = on_gpu(emulator, jacobi, lambda: (grid.copy(), grid.copy(), n, steps))
    assert emulator.launches - launches == 2 * steps   # two kernels per time step
    assert loop["transfers"]["to_device"] == 2 and loop["transfers"]["from_device"] == 2


# -- the emulator itself: CUDA's block semantics, and refusals instead of silent passes --

BLOCK_REVERSE = r"""
extern "C" __global__ void mg_kernel(double *out, const double *in, long long n, long long past) {
    __shared__ double tile[4];
    const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : -1.0;
    __syncthreads();   /* a thread reads what another wrote */
    if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
    if (past && i == 0) out[n + past - 1] = 1.0;
}
"""


def test_emulator_blocks_share_memory_and_refuse_bad_launches(emulator):
    cupy = emulator.module
    kernel = cupy.RawModule(code=BLOCK_REVERSE, options=("-std=c++17",)).get_function("mg_kernel")
    n = 10
    host = numpy.arange(n, dtype=numpy.float64)
    source, out = cupy.asarray(host), cupy.zeros(n)
    kernel((3,), (4,), (out, source, numpy.int64(n), numpy.int64(0)))
    padded = numpy.concatenate([host, [-1.0, -1.0]])
    assert out.get().tolist() == padded.reshape(3, 4)[:, ::-1].ravel()[:n].tolist()
    refusals = [
        ((3,), (4,), (out, source, numpy.int64(n), numpy.int64(2)), "outside a device allocation"),
        ((3,), (4,), (out, numpy.uint64(host.ctypes.data), numpy.int64(n), numpy.int64(0)), "not device memory"),
        ((3,), (4,), (out, source, numpy.int32(n), numpy.int64(0)), "4 bytes) for a parameter of 8"),
        ((3,), (4,), (out, source, n, numpy.int64(0)), "CuPy takes device arrays and NumPy scalars"),
        ((3,), (2048,), (out, source, numpy.int64(n), numpy.int64(0)), "beyond CUDA's limits"),
    ]
    for grid, block, arguments, message in refusals:
        with pytest.raises(cuda_emulator.EmulatorError, match=message.replace("(", r"\(").replace(")", r"\)")):
            kernel(grid, block, arguments)
    assert len(emulator.errors) == len(refusals)
    emulator.errors.clear()
    with pytest.raises(cuda_emulator.EmulatorError, match="not emulated"):
        _ = cupy.cuda_graph_capture
    emulator.errors.clear()


def test_real_block_size(emulator, monkeypatch):
    from megaguards.codegen.targets import cuda as codegen_cuda

    monkeypatch.setattr(codegen_cuda, "BLOCK_2D", (32, 8, 1))   # the real one: a team of 256 threads

    def nest(a, b, c, n, m):
        for i in range(1, n):
            for j in range(m):
                c[i, j] = a[i, j] * b[j] + i - j
    n, m = 11, 40
    on_gpu(emulator, nest, lambda: (numpy.arange(n * m, dtype=numpy.float64).reshape(n, m) / 7.0,
                                    numpy.linspace(1.0, 2.0, m), numpy.full((n, m), -1.0), n, m))


def test_a_band_of_few_iterations_gets_blocks_for_every_multiprocessor():
    """runtime/cuda.launch_shape: lud's 2048-thread rows in blocks of 256 would run on 8
    of an H100's 132 multiprocessors; blocks halve (z, y, then x down to a warp)."""
    from megaguards.runtime.cuda import launch_shape

    assert launch_shape((256, 1, 1), [2048], 132) == ((64, 1, 1), (32, 1, 1))
    assert launch_shape((256, 1, 1), [16384], 132) == ((256, 1, 1), (64, 1, 1))
    assert launch_shape((256, 1, 1), [10**6], 132) == ((3907, 1, 1), (256, 1, 1))
    assert launch_shape((32, 8, 1), [64, 64], 132) == ((2, 64, 1), (32, 1, 1))
    assert launch_shape((32, 4, 2), [40, 8, 8], 10) == ((2, 2, 4), (32, 4, 2))
    assert launch_shape((32, 4, 2), [40, 8, 8], 17) == ((2, 2, 8), (32, 4, 1))
    assert launch_shape((256, 1, 1), [2048], 1) == ((8, 1, 1), (256, 1, 1))   # the count unknown
    assert launch_shape((256, 1, 1), [0], 132) == ((0, 1, 1), (256, 1, 1))


def test_inner_loops_counted_in_chunks_keep_break_continue_and_the_last_value(emulator, monkeypatch):
    """A kernel's range loop counts with an int inside chunks of 2**30 iterations
    (Target.narrow_counter_chunk); chunks of 3 here cross their seams everywhere."""
    from megaguards import record as records
    from megaguards.codegen import renderer

    monkeypatch.setattr(renderer, "CUDA", records.replace(renderer.CUDA, narrow_counter_chunk=3))

    def chunked(a, out, limits, n, m):
        for i in range(n):
            total = 0.0
            seen = -1
            for k in range(1, m, 2):
                if k == 5:
                    continue
                if a[i, k] > limits[i]:
                    break
                total += a[i, k]
                seen = k
            out[i] = total + seen

    m = 20
    values = (numpy.arange(N * m, dtype=numpy.float64).reshape(N, m) * 7.0) % 23.0
    limits = numpy.linspace(0.0, 30.0, N)   # from breaking at once to never breaking
    on_gpu(emulator, chunked, lambda: (values.copy(), numpy.zeros(N), limits, N, m))


def test_numpy_overflow_on_the_gpu_warns_as_in_cpython(emulator):
    """A GPU keeps no IEEE flags: the kernel computes NumPy's overflow and invalid flags from
    operands and results (prelude's mg_np_*); one NumPy would act on sends the loop to
    CPython, which warns (and under numpy.seterr(over="raise") raises) itself."""
    import warnings

    def scale(a, b):
        for i in range(len(a)):
            b[i] = a[i] * 10.0 - a[i] * 0.5

    def make():
        values = numpy.arange(N, dtype=numpy.float64)
        values[7] = 1e308
        return values, numpy.zeros(N)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        on_gpu(emulator, scale, make, flagged=True)
    assert [str(w.message) for w in caught] == ["overflow encountered in scalar multiply"] * 2
    with numpy.errstate(over="raise", invalid="raise"):   # underflow is left to the CPU (NO_UNDERFLOW)
        on_gpu(emulator, scale, make, flagged=True)
    with numpy.errstate(all="ignore"):
        on_gpu(emulator, scale, make)   # no flag NumPy acts on: the GPU's result stands
    on_gpu(emulator, scale, lambda: (numpy.arange(N, dtype=numpy.float64), numpy.zeros(N)))


ADVERSARIAL = [1e16, 1.0, -1e16, 1.0, 3.3, 1e-3, 2.0 ** 60, 7.0, -(2.0 ** 60), 0.1, 0.5, -0.25] * 2


def test_float_sums_are_folded_in_order_after_the_kernel(emulator):
    """Exact by default: each thread keeps its iteration's operand, the host folds them in
    iteration order (numpy's accumulate), so the sum is CPython's bit for bit."""
    def dot(a, b):
        s = 0.5
        for i in range(len(a)):
            s += a[i] * b[i]
        return s

    def picked(a):
        s = -0.0
        p = 1.0
        d = 0.25
        for i in range(len(a)):
            if a[i] > 0.2:
                s += a[i] * 1.0
                p *= a[i] * 1e-3 + 1.0
            d -= a[i] * 0.5 - 1.0
        return s, p, d

    assert dot(ADVERSARIAL[:N], [1.0] * N) != math.fsum([0.5] + ADVERSARIAL[:N])
    loop = on_gpu(emulator, dot, lambda: (ADVERSARIAL[:N], [1.0] * N))
    assert "reduction on 's' (float, folded in iteration order)" in loop["reasons"], loop["reasons"]
    on_gpu(emulator, picked, lambda: (ADVERSARIAL[:N],))
    on_gpu(emulator, picked, lambda: ([0.0] * N,))   # no step taken: s stays -0.0


def test_a_numpy_sum_overflowing_in_the_fold_warns_as_in_cpython(emulator):
    import warnings

    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i] * 2.0 - a[i]
        return s

    values = numpy.full(N, 1e307)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        on_gpu(emulator, total, lambda: (values.copy(),), flagged=True)
    assert {str(w.message) for w in caught} == {"overflow encountered in scalar add"}
    on_gpu(emulator, total, lambda: (numpy.arange(N, dtype=numpy.float64),))


def test_a_clamped_stencil_runs_on_the_gpu_without_checks(emulator):
    """Path-sensitive ranges (analysis/bounds.Refinement): every subscript of a clamped
    stencil passes its hoisted check, so the host launches the kernel (a failed check
    would send the entry to the CPU)."""
    def clamped(t, out, rows, cols):
        for r in range(rows):
            for c in range(cols):
                up = t[r - 1, c] if r > 0 else t[r, c]
                down = t[r + 1, c] if r + 1 < rows else t[r, c]
                left = t[r, c - 1] if c >= 1 else t[r, c]
                right = t[r, c + 1] if c < cols - 1 else t[r, c]
                out[r, c] = 0.25 * (up + down + left + right)

    grid = numpy.arange(4.0 * N).reshape(4, N)
    loop = on_gpu(emulator, clamped, lambda: (grid.copy(), numpy.zeros((4, N)), 4, N))
    assert loop["checks_in_loop"] == 0
    assert not any("hoisted check failed" in reason for reason in loop["reasons"]), loop["reasons"]


def test_a_neighbour_loop_with_bounds_tests_runs_on_the_gpu(emulator):
    """'if 0 <= r + dr < rows' narrows r + dr itself (analysis/bounds: an expression
    refinement): every hoisted check passes and the host launches the kernel."""
    def neighbours(t, out, rows, cols):
        for r in range(rows):
            for c in range(cols):
                total = 0.0
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        if 0 <= r + dr < rows and 0 <= c + dc < cols:
                            total += t[r + dr, c + dc]
                out[r, c] = total

    grid = numpy.arange(4.0 * N).reshape(4, N)
    loop = on_gpu(emulator, neighbours, lambda: (grid.copy(), numpy.zeros((4, N)), 4, N))
    assert not any("hoisted check failed" in reason for reason in loop["reasons"]), loop["reasons"]


def diffusion_step(t, u, rows, cols):
    for r in range(rows):
        for c in range(cols):
            up = t[r - 1, c] if r > 0 else t[r, c]
            down = t[r + 1, c] if r < rows - 1 else t[r, c]
            u[r, c] = 0.5 * t[r, c] + 0.25 * (up + down)
    for r in range(rows):
        for c in range(cols):
            t[r, c] = u[r, c]


def test_gpu_region_with_a_stencils_temporaries(emulator):
    """Private scalars of the time step's bands (a clamped stencil's neighbours, locals of
    the inlined step function) stay in their threads: the time loop is one region, arrays
    travel once.  A scalar the loop's own scope keeps (read after it, or visible in its
    frame) gets the value of the sequentially last iteration that assigned it."""
    def diffuse(t, u, rows, cols, steps):
        for s in range(steps):
            diffusion_step(t, u, rows, cols)
        return s

    def kept(t, u, rows, cols, steps):
        for s in range(steps):
            for r in range(rows):
                for c in range(cols):
                    last = t[r, c] * 0.5
                    u[r, c] = last
        return last

    grid = numpy.arange(4.0 * N).reshape(4, N) % 7
    launches = emulator.launches
    loop = on_gpu(emulator, diffuse, lambda: (grid.copy(), numpy.zeros((4, N)), 4, N, 3))
    assert emulator.launches - launches == 2 * 3
    assert loop["transfers"]["to_device"] == 2 and loop["transfers"]["from_device"] == 2
    # A scalar the function keeps: the band's last launch reports its threads' values, the
    # sequentially last iteration's is the one kept.
    loop = on_gpu(emulator, kept, lambda: (grid.copy(), numpy.zeros((4, N)), 4, N, 2))
    assert loop["transfers"]["to_device"] == 2


def test_gpu_region_of_a_triangular_nest(emulator):
    """lud's time loop: its bands' ranges start at the step (``range(i + 1, n)``); the host
    computes each step's range (empty at the last step: no launch) within the range the
    hoisted checks proved, and the threads' own loops (``range(i)``) follow the step too."""
    from benchmarks.suite_runner import SUITE, load_program

    decompose = load_program(SUITE / "lud.py").decompose   # Rodinia's lud, as the suite writes it

    def matrix():
        return [[(3.0 * n if r == c else 0.0) + ((r * 7 + c * 3) % 5) / 4.0 for c in range(n)] for r in range(n)], n
    n = 7
    launches = emulator.launches
    loop = on_gpu(emulator, decompose, matrix)
    assert emulator.launches - launches == 2 * n - 1   # the last step's second range is empty
    assert loop["transfers"]["to_device"] == 1 and loop["transfers"]["from_device"] == 1


def test_gpu_region_keeping_a_conditionally_assigned_scalar(emulator):
    """A kept scalar assigned under a condition: where the last launch did not assign it,
    no buffer holds its value from an earlier one: declined, the CPU's run gives CPython's."""
    def thresholds(t, u, rows, cols, steps, limit):
        last = -1.0
        for s in range(steps):
            for r in range(rows):
                for c in range(cols):
                    if t[r, c] > limit:
                        last = t[r, c]
                    u[r, c] = t[r, c] * 0.5
        return last

    grid = numpy.arange(4.0 * N).reshape(4, N) % 7
    for limit in (2.0, 5.5, 100.0):   # assigned in the last row, only earlier, never
        assert_same_as_cpython(thresholds, grid.copy(), numpy.zeros((4, N)), 4, N, 2, limit)


def test_a_row_scalar_before_the_inner_loop_runs_in_every_thread(emulator):
    """``ci = ... y`` ahead of ``for x`` (mandelbrot): each thread computes its row's value,
    so the band holds both loops (one thread per pixel, not per row); the scalars' final
    values are the sequentially last iteration's."""
    from benchmarks.suite_runner import SUITE, load_program

    escape_counts = load_program(SUITE / "mandelbrot.py").escape_counts

    def shade(out, rows, cols):
        for y in range(rows):
            row_scale = (y + 1) * 0.5
            offset = y % 3
            for x in range(cols):
                out[y][x] = row_scale * x + offset
        return row_scale, offset, x

    def reads_what_it_writes(a, rows, cols):   # the row's value would change under the threads
        for y in range(rows):
            first = a[y][0]
            for x in range(cols):
                a[y][x] = first + x
        return first

    on_gpu(emulator, escape_counts, lambda: ([[0] * 9 for _ in range(7)], 9, 7, 30))
    on_gpu(emulator, shade, lambda: ([[0.0] * N for _ in range(5)], 5, N))
    for function, arguments in ((escape_counts, ([[0] * 9 for _ in range(7)], 9, 7, 30)),
                                (shade, ([[0.0] * N for _ in range(5)], 5, N))):
        fast = megaguards.jit(function)
        fast(*arguments)
        assert "GPU: band 'y', 'x'" in megaguards.explain(fast)
    fast = megaguards.jit(reads_what_it_writes)
    data = [[float(r * N + c) for c in range(N)] for r in range(4)]
    assert fast([row[:] for row in data], 4, N) == reads_what_it_writes([row[:] for row in data], 4, N)


def test_a_gpu_region_leaves_its_work_list_behind(emulator):
    """A function's work list (frontend/scratch.py) goes to the device but never comes back."""
    def jacobi_lists(A, n, steps):
        B = [[0.0] * n for _ in range(n)]
        for t in range(steps):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1])
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    A[i][j] = 0.25 * (B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1])
        return A
    n = 9
    grid = lambda: ([[float((i * n + j) % 17) for j in range(n)] for i in range(n)], n, 3)   # noqa: E731
    launches = emulator.launches
    fast = megaguards.jit(jacobi_lists, strict=True)
    assert outcome(fast, grid) == outcome(jacobi_lists, grid) and not emulator.errors
    [loop] = [record for record in sites_of(fast) if record["source"] == "for t in range(steps):"]
    assert loop["backend"] == "cuda" and emulator.launches - launches == 2 * 3
    assert loop["transfers"]["to_device"] == 2 and loop["transfers"]["from_device"] == 1

    def doubled_then_summed(A, n):
        B = [[0.0] * n for _ in range(n)]   # overwritten whole: allocated on the device, never sent back
        for i in range(n):
            for j in range(n):
                B[i][j] = A[i][j] * 2.0
        return A
    fast = megaguards.jit(doubled_then_summed, strict=True)
    square = lambda: grid()[:2]   # noqa: E731
    assert outcome(fast, square) == outcome(doubled_then_summed, square) and not emulator.errors
    [loop] = [record for record in sites_of(fast) if record["source"] == "for i in range(n):"]
    assert loop["backend"] == "cuda", loop
    assert loop["transfers"]["to_device"] == 1 and loop["transfers"]["from_device"] == 0
