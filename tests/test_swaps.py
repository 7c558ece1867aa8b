"""Double buffers: ``a, b = b, a`` in a time loop (issue 28, "Regions").

The swap exchanges which array each name holds (ir.Rebind): no element moves, the loop
around it stays sequential, the loops inside it may run in parallel, and after the loop the
names hold the arrays CPython's run leaves them holding.  Arrays of different shapes fail a
hoisted check (the checking copy runs, reading each name's own dims)."""
from __future__ import annotations

import numpy
import pytest

import megaguards
from benchmarks.suite_runner import SUITE, load_program
from conftest import assert_same_as_cpython, sites_of
from megaguards import config


# Rodinia's pathfinder step, as benchmarks/suite/pathfinder.py writes it (inlined here).
advance = load_program(SUITE / "pathfinder.py").advance


def pathfinder(wall, previous, current, rows, cols):
    for t in range(1, rows):
        advance(previous, current, wall[t], cols)
        previous, current = current, previous
    return previous, current


def relax(a, b, steps, n):
    for t in range(steps):
        for i in range(1, n - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
        a, b = b, a
    return a[n // 2], b[n // 2]


def rotate(a, b, c, steps, n):
    for t in range(steps):
        for i in range(n):
            c[i] = a[i] + 2 * b[i]
        a, b, c = b, c, a
    return a, b, c


def chained(a, b, c, steps, n):
    for t in range(steps):
        for i in range(n):
            c[i] = a[i] + b[i] + 1   # only c is written by name: a and b hold it in turn
        a, b = b, a
        b, c = c, b
    return a, b, c


def swap_before_use(a, b, steps, n):
    for t in range(steps):
        a, b = b, a   # before any subscript: the names are not known as arrays yet
        for i in range(n):
            b[i] = a[i] + 1
    return a, b


def scalar_swap(n):
    x, y = 1, 2
    for i in range(n):
        x, y = y, x + y
    return x, y


def wall_of(rows, cols, seed=7):
    import random

    generator = random.Random(seed)
    return [[generator.randrange(10) for _ in range(cols)] for _ in range(rows)]


@pytest.fixture(params=["seq", "parallel"])
def device(request):
    """One core, or every inner loop parallel on 3 threads whatever its size."""
    saved = config.current()
    if request.param == "parallel":
        config.configure(device="cpu", parallel_work=0, threads=3)
    else:
        config.configure(device="seq")
    yield request.param
    config.configure(device=saved.device, parallel_work=saved.parallel_work, threads=saved.threads)


@pytest.mark.parametrize("rows", [1, 2, 3, 8])
def test_a_double_buffer_time_loop_compiles_whole(device, rows):
    cols = 40
    wall = wall_of(rows, cols)
    assert_same_as_cpython(pathfinder, wall, list(wall[0]), [0] * cols, rows, cols)


def test_the_names_hold_cpythons_arrays_after_the_loop(device):
    fast = megaguards.jit(pathfinder)
    for rows in (4, 5):   # an odd and an even number of swaps
        wall = wall_of(rows, 30)
        first, second = list(wall[0]), [0] * 30
        previous, current = fast(wall, first, second, rows, 30)
        expected = (first, second) if (rows - 1) % 2 == 0 else (second, first)
        assert previous is expected[0] and current is expected[1]
    [record] = [r for r in sites_of(fast) if r["line"] == pathfinder.__code__.co_firstlineno + 1]
    assert record["compiled_runs"] == 2 and record["fallback_runs"] == 0, record["reasons"]
    assert not any("hoisted check failed" in reason for reason in record["reasons"])
    if device == "parallel":
        assert record["parallel_depth"] == 1
        assert any("it swaps arrays" in reason for reason in record["reasons"])


def test_numpy_double_buffers_and_three_way_rotations(device):
    a, b = numpy.linspace(0.0, 1.0, 50), numpy.zeros(50)
    assert_same_as_cpython(relax, a, b, 7, 50)
    assert_same_as_cpython(relax, [float(i * i % 13) for i in range(20)], [0.0] * 20, 4, 20)
    assert_same_as_cpython(rotate, [1, 2, 3], [4, 5, 6], [0, 0, 0], 5, 3)
    assert_same_as_cpython(rotate, numpy.arange(4.0), numpy.ones(4), numpy.zeros(4), 4, 4)
    assert_same_as_cpython(chained, [1, 2], [3, 4], [0, 0], 3, 2)
    assert_same_as_cpython(chained, numpy.arange(3.0), numpy.ones(3), numpy.zeros(3), 5, 3)


def test_arrays_of_other_shapes_run_the_checking_copy():
    # b is longer than a: each name indexes its own array's length, as in CPython.
    assert_same_as_cpython(relax, [1.0] * 6, [0.0] * 9, 3, 6)
    fast = megaguards.jit(relax)
    fast([1.0] * 6, [0.0] * 9, 3, 6)
    assert any("the arrays swapped there have the same shape" in reason for reason in sites_of(fast)[0]["reasons"])
    # Too short for the loop: IndexError at the same iteration as CPython, nothing changed before it.
    assert_same_as_cpython(relax, [1.0] * 6, [0.0] * 4, 3, 6, compiled=None)


def test_swaps_that_cannot_compile_keep_cpythons_behaviour():
    assert_same_as_cpython(swap_before_use, [1, 2], [3, 4], 3, 2, compiled="assigned in the loop and subscripted")
    assert_same_as_cpython(relax, numpy.ones(5), numpy.zeros(5, dtype=numpy.float32), 2, 5,
                           compiled="differ in element type")
    assert_same_as_cpython(scalar_swap, 30)   # scalars still swap through temporaries


def double_buffer(a, b, steps, n):
    for t in range(steps):
        for i in range(1, n - 1):
            b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0
        a, b = b, a
        for i in range(n):
            b[i] = b[i] * 0.5   # after the swap: the names hold the other arrays
    return a, b


@pytest.mark.parametrize("steps", [1, 4, 5])
def test_a_double_buffer_time_loop_is_one_gpu_region(emulator, steps):
    """The host exchanges the names between launches (each arrangement its own inputs
    block): arrays travel once each way, and the names end up as in CPython."""
    from test_cuda_emulation import on_gpu

    launches = emulator.launches
    loop = on_gpu(emulator, double_buffer, lambda: (numpy.linspace(0.0, 3.0, 9), numpy.zeros(9), steps, 9))
    assert emulator.launches - launches == 2 * steps
    assert loop["transfers"]["to_device"] == 2 and loop["transfers"]["from_device"] == 2
    first, second = numpy.linspace(0.0, 3.0, 9), numpy.zeros(9)
    a, b = megaguards.jit(double_buffer)(first, second, steps, 9)
    assert (a, b) == ((second, first) if steps % 2 else (first, second))   # by identity: arrays are
    assert a is (second if steps % 2 else first)                           # compared elementwise


def test_pathfinder_is_one_gpu_region(emulator):
    from test_cuda_emulation import on_gpu

    wall = wall_of(6, 30)
    loop = on_gpu(emulator, pathfinder, lambda: (wall, list(wall[0]), [0] * 30, 6, 30))
    assert loop["transfers"]["to_device"] == 3 and loop["transfers"]["from_device"] == 2
    assert not any("hoisted check failed" in reason for reason in loop["reasons"])
