"""GPU regions the host steps statement by statement (runtime/cuda_region.py): a time loop
whose body assigns scalars between its parallel loops, or reduces into a scalar that the
next loops read, runs as one region (arrays on the device once) on the real GPU or the
emulator, with CPython's results: values, exceptions and partial state."""
from __future__ import annotations

import math

import numpy
import pytest
from conftest import assert_same_as_cpython, sites_of

import megaguards
from benchmarks.suite_runner import SUITE, load_program


# srad's own statistics (benchmarks/suite/srad.py): two float sums over the image, folded in order.
statistics = load_program(SUITE / "srad.py").statistics


def coefficients(image, c, rows, cols, q0sqr):
    for i in range(rows):
        for j in range(cols):
            centre = image[i][j]
            north = image[max(i - 1, 0)][j] - centre
            east = image[i][min(j + 1, cols - 1)] - centre
            g2 = (north * north + east * east) / (centre * centre)
            c[i][j] = 1.0 / (1.0 + (g2 - q0sqr) / (q0sqr * (1.0 + q0sqr)))


def update(image, c, rows, cols, rate):
    for i in range(rows):
        for j in range(cols):
            image[i][j] = image[i][j] + rate * c[i][j]


def srad(image, c, rows, cols, iterations):
    """srad's shape: the image's statistics (two float sums, folded in order), scalars on
    the host, then two stencils reading them."""
    for iteration in range(iterations):
        q0sqr = statistics(image, rows, cols)
        rate = 0.125 / (iteration + 1)
        coefficients(image, c, rows, cols, q0sqr)
        update(image, c, rows, cols, rate)
    return q0sqr, rate, iteration


def image_of(rows, cols):
    return [[math.exp(((r * 7 + c * 3) % 11) / 10.0) for c in range(cols)] for r in range(rows)]


def stepped(function, make, launches_per_step, steps, emulator):
    """``function`` jitted (strict) gives CPython's results; its loop ran as one region."""
    expected_arguments = make()
    expected = function(*expected_arguments)
    arguments = make()
    fast = megaguards.jit(function, strict=True)
    before = emulator.launches if emulator is not None else None
    assert fast(*arguments) == expected
    assert arguments == expected_arguments
    loop = sites_of(fast)[0]
    assert loop["backend"] == "cuda" and loop["compiled_runs"] == 1, (loop, megaguards.explain(fast))
    assert "the host runs its scalar statements" in megaguards.explain(fast)
    if emulator is not None:
        assert emulator.launches - before == launches_per_step * steps
    return loop


@pytest.mark.parametrize("ring", [256, 2])
def test_srads_time_loop_is_one_region(cuda_device, monkeypatch, ring):
    """(A ring of 2 launch rows wraps every other launch: the host waits for the GPU then.)"""
    from megaguards.runtime import cuda_region

    monkeypatch.setattr(cuda_region, "RING_ROWS", ring)
    rows, cols, steps = 9, 23, 3
    loop = stepped(srad, lambda: (image_of(rows, cols), [[0.0] * cols for _ in range(rows)], rows, cols, steps),
                   3, steps, cuda_device)
    transfers = loop["transfers"]
    assert transfers["to_device"] == 2 and transfers["from_device"] == 2   # once each, not per step


def relax(a, b, n, steps):
    """A float max, an int count and a swap of arrays, a counter on the host."""
    moved = 0
    for t in range(steps):
        biggest = 0.0
        over = 0
        for i in range(n):
            biggest = max(biggest, abs(float(a[i])))
            if a[i] > 1.5:
                over += 1
        limit = biggest * (0.5 / (t + 1)) + over
        for i in range(1, n - 1):
            b[i] = a[i] + 0.25 * limit * (a[i - 1] - 2.0 * a[i] + a[i + 1])
        a, b = b, a
        moved += 1
    return moved, limit, biggest, over, t


def test_max_count_and_swap_on_numpy_arrays(cuda_device):
    n = 37
    start = numpy.sin(numpy.arange(n) * 0.7) * 2.0

    def make():
        return start.copy(), start.copy(), n, 4

    expected_arguments = make()
    expected = relax(*expected_arguments)
    arguments = make()
    fast = megaguards.jit(relax, strict=True)
    assert fast(*arguments) == expected
    for mine, theirs in zip(arguments[:2], expected_arguments[:2]):
        assert mine.tobytes() == theirs.tobytes()
    loop = sites_of(fast)[0]
    assert loop["backend"] == "cuda", megaguards.explain(fast)


def shares(a, n):
    """Its locals are the inlined call's, which no frame keeps: only the host reads them."""
    count = 0
    largest = 0.0
    total = 0.0
    for i in range(n):
        if a[i] > 0.5:
            count += 1
        if a[i] > largest:
            largest = a[i]
        total += a[i] * a[i] + 0.5 * a[i]
    return count / n + largest + total / n


def normalise(a, n, steps):
    """Reductions only the host reads: a count, a float max, a float sum."""
    for t in range(steps):
        share = shares(a, n)
        for i in range(n):
            a[i] = a[i] * 0.5 + share / (t + 2)
    return a[0]


@pytest.mark.parametrize("reassociate", [False, True])
def test_reductions_only_the_host_reads(cuda_device, reassociate):
    from megaguards import config

    def make():
        return [((k * 7) % 10) / 9.0 for k in range(41)], 41, 3

    if not reassociate:
        stepped(normalise, make, 2, 3, cuda_device)
        return
    previous = config.current().reassociate
    config.configure(reassociate=True)   # the float sum by the device's atomics: the last bits may differ
    try:
        expected_arguments, arguments = make(), make()
        expected = normalise(*expected_arguments)
        fast = megaguards.jit(normalise, strict=True)
        assert math.isclose(fast(*arguments), expected, rel_tol=1e-12)
        assert all(math.isclose(x, y, rel_tol=1e-12) for x, y in zip(arguments[0], expected_arguments[0]))
        assert sites_of(fast)[0]["backend"] == "cuda", megaguards.explain(fast)
    finally:
        config.configure(reassociate=previous)


def shrinking(a, b, n, steps):
    for t in range(steps):
        scale = 1.0 / (steps - 2 - t)    # ZeroDivisionError at t = steps - 2
        for i in range(n):
            b[i] = a[i] * scale
        for i in range(n):
            a[i] = b[i] + 1.0
    return scale


def gathers(a, index, out, n, steps):
    for t in range(steps):
        total = 0.0
        for i in range(n):
            total += a[i] * a[i] + 0.5 * a[i]
        for i in range(n):
            out[i] = a[index[i]] + total * t   # an index past the end at some i: IndexError
    return total


@pytest.mark.parametrize("case", ["host raises", "kernel raises"])
def test_an_exception_inside_a_stepped_region_is_cpythons(cuda_device, case):
    """A host statement Python raises at, or a kernel's flag: the region gives up with the
    user's data untouched, and CPython's run raises at the same step, earlier steps done."""
    before = cuda_device.launches if cuda_device is not None else None
    if case == "host raises":
        fast = assert_same_as_cpython(shrinking, [1.0] * 30, [0.0] * 30, 30, 4, compiled="runtime flag")
    else:
        fast = assert_same_as_cpython(gathers, [float(k) for k in range(30)], [k % 29 for k in range(29)] + [31],
                                      [0.0] * 30, 30, 3, compiled="runtime flag")
    assert "the host runs its scalar statements" in megaguards.explain(fast)
    if cuda_device is not None:   # the region ran its first steps on the device, then gave up
        assert cuda_device.launches - before >= (4 if case == "host raises" else 2)


def test_what_keeps_a_time_loop_off_the_gpu_is_said(cuda_device):
    def reads_an_array(a, n, steps):
        for t in range(steps):
            first = a[0]
            for i in range(n):
                a[i] = a[i] + first
        return first

    def reads_a_private(a, n, steps):
        last = half = 0.0
        for t in range(steps):
            for i in range(n):
                last = a[i] * 2.0
                a[i] = last
            half = last * 0.5
        return half

    for function, reason in ((reads_an_array, "a statement between the kernels reads an array"),
                             (reads_a_private, "which a kernel's threads assign")):
        fast = megaguards.jit(function)
        data = [float(k) for k in range(20)]
        assert fast(list(data), 20, 3) == function(list(data), 20, 3)
        assert reason in megaguards.explain(fast), megaguards.explain(fast)


def biggest(a, n):
    largest = 0.0
    for i in range(n):
        largest = max(largest, a[i])   # in an inlined call: f.__globals__.max
    return largest


def scaled_by_the_largest(a, n, steps):
    for t in range(steps):
        top = biggest(a, n)
        for i in range(n):
            a[i] = a[i] / top + t
    return a[0]


def test_an_inlined_calls_max_is_a_reduction(cuda_device):
    """``max`` called inside an inlined function (its path ``biggest.__globals__.max``) is
    the built-in's reduction, as at the loop's own level: the time loop is one region."""
    stepped(scaled_by_the_largest, lambda: ([((k * 7) % 10) / 9.0 + 0.1 for k in range(41)], 41, 3), 2, 3,
            cuda_device)


def smooth_numpy(a, b, n, steps, zero):
    for t in range(steps):
        total = 0.0
        for i in range(n):
            total += a[i] * a[i] + 1.0       # numpy.float64 from the first addition on
        scale = 0.25 / total + t * zero     # NumPy's arithmetic: 0.25 / numpy.float64
        for i in range(1, n - 1):
            b[i] = 0.5 * a[i] + scale * (a[i - 1] + a[i + 1])
        for i in range(1, n - 1):
            a[i] = b[i]
        count = t + 1.5                      # a Python float beside them
    return total, scale, count


def warns_numpy(a, b, n, steps, zero):
    for t in range(steps):
        total = 0.0
        for i in range(n):
            total += a[i]
        ratio = total / zero                # NumPy warns (divide by zero) and gives inf
        for i in range(n):
            b[i] = a[i] * 0.5 + t
    return ratio


def test_numpy_scalars_between_the_kernels(cuda_device):
    """A NumPy sum and the statements after it compute with NumPy's scalars, of their class;
    a NumPy warning on the host sends the entry to the CPU, whose run warns once, as CPython."""
    import warnings

    n = 29
    start = numpy.cos(numpy.arange(n) * 0.3)
    expected_arguments = (start.copy(), numpy.zeros(n), n, 3, numpy.float64(0.0))
    expected = smooth_numpy(*expected_arguments)
    arguments = (start.copy(), numpy.zeros(n), n, 3, numpy.float64(0.0))
    fast = megaguards.jit(smooth_numpy, strict=True)
    result = fast(*arguments)
    assert [type(value) for value in result] == [type(value) for value in expected] == \
        [numpy.float64, numpy.float64, float]
    assert result == expected and arguments[0].tobytes() == expected_arguments[0].tobytes()
    assert sites_of(fast)[0]["backend"] == "cuda", megaguards.explain(fast)
    for function in (warns_numpy, megaguards.jit(warns_numpy)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = (start.copy(), numpy.zeros(n), n, 2, numpy.float64(0.0))
            outcome = function(*data)
        assert outcome == numpy.inf and len(caught) == 2, [str(w.message) for w in caught]
