"""sum() of floats compensated as Python 3.12+ does (analysis/compensation.py).  On 3.12+
the kernels must give CPython's own sum(); on older Pythons (CI) the same kernels are
forced on and compared with ``sum312``, a model of 3.12's builtin_sum_impl."""
from __future__ import annotations

import math
import random
import sys

import pytest

import megaguards
from megaguards.analysis import typeinfer

from conftest import _comparable, site_for


def sum312(iterable, start=0):
    """CPython 3.12's sum(): ints exactly, then exact floats with Neumaier's compensation
    (ints joining plainly), the compensation added at the end if non-zero and finite."""
    items = iter(iterable)
    result = start
    if type(result) is int:
        for item in items:
            if type(item) in (int, bool):
                result += item
                continue
            result = result + item
            break
    if type(result) is float:
        total, compensation = result, 0.0
        for item in items:
            if type(item) is float:
                following = total + item
                if math.fabs(total) >= math.fabs(item):
                    compensation += (total - following) + item
                else:
                    compensation += (item - following) + total
                total = following
            elif type(item) in (int, bool):
                total += float(item)
            else:
                raise AssertionError("the model covers floats and ints only")
        return total + compensation if compensation and math.isfinite(compensation) else total
    for item in items:
        result = result + item
    return result


NATIVE = sys.version_info >= (3, 12)


@pytest.fixture(autouse=True)
def compensated(monkeypatch):
    """On 3.11 and older, the kernels compensate as 3.12's sum() does (the model's turn)."""
    if not NATIVE:
        monkeypatch.setattr(typeinfer, "COMPENSATED_SUM", True)


def reference(function, *arguments):
    """What CPython 3.12+ returns: the function itself there, else the model in its place."""
    if NATIVE:
        return function(*arguments)
    saved = function.__globals__.get("sum")
    function.__globals__["sum"] = sum312
    try:
        return function(*arguments)
    finally:
        if saved is None:
            del function.__globals__["sum"]
        else:
            function.__globals__["sum"] = saved


def same(function, *arguments):
    fast = megaguards.jit(function)
    assert _comparable(fast(*arguments)) == _comparable(reference(function, *arguments))
    loops = site_for(fast)
    assert sum(loop["compiled_runs"] for loop in loops) > 0, [loop["reasons"] for loop in loops]
    return fast


random.seed(3)
WIDE = [random.uniform(-1.0, 1.0) * 10.0 ** random.randint(-20, 20) for _ in range(3000)]
HARMONIC = [1.0 / (k + 1) for k in range(5000)]


def test_the_model_is_cpythons_sum_where_it_can_be_checked():
    if NATIVE:
        for values in (WIDE, HARMONIC, [-0.0, -0.0], [1e308, 1e308, -1e308], [0.1] * 10 + [1, 2]):
            assert _comparable(sum312(values)) == _comparable(sum(values))
    assert sum312([0.1] * 10) == 1.0 and sum([0.1] * 10) == (1.0 if NATIVE else 0.9999999999999999)


def generator_sum(xs):
    return sum(x * 0.5 for x in xs)


def started_sum(xs, start):
    return sum(xs, start)


def sums_in_a_loop(rows, out):
    for i in range(len(rows)):
        out[i] = sum(rows[i][j] * 1.5 for j in range(len(rows[i])))
    return out


def sum_of_sums(xs):
    total = 0.0
    for k in range(4):
        total += sum(x * k for x in xs)
    return total


def mixed(xs, ints):
    return sum(xs[i] if i % 3 else ints[i] for i in range(len(xs)))


@pytest.mark.parametrize("values", [WIDE, HARMONIC, [-0.0, -0.0], [-0.0], [1e308, 1e308, -1e308],
                                    [math.inf, 1.0, -3.0], [1.0, math.nan, 2.0], [1e16, 1.0, -1e16, 1.0] * 50])
def test_generator_sums(values):
    same(generator_sum, values)


@pytest.mark.parametrize("start", [0.25, -0.0, 1e16, 0])
def test_sums_from_a_start(start):
    same(started_sum, WIDE, start)


def test_sums_inside_a_loop_start_afresh():
    rows = [WIDE[k:k + 60] for k in range(0, 3000, 60)] + [[]] * 0
    same(sums_in_a_loop, rows, [0.0] * len(rows))
    same(sum_of_sums, HARMONIC)


def test_a_mix_of_floats_and_ints_compiles_step_by_class():
    """3.12 compensates the floats of a sum, not its ints, and its int phase is exact up
    to the first float: each step of a mix tests the two values' classes at run time."""
    values, ints = WIDE[:300], list(range(300))
    same(mixed, values, ints)
    same(started_sum, list(range(1000)), 0.5)   # a float accumulator over ints alone: plainly


def squares(rows):
    out = [0] * len(rows)
    for i in range(len(rows)):
        out[i] = sum(v * v for v in rows[i])
    return out


def energy(velocity, mass):
    return 0.5 * mass * sum(v * v for v in velocity)


def energies(velocities, masses):
    total = 0.0
    for p in range(len(velocities)):
        total += energy(velocities[p], masses[p])
    return total


INT_PHASES = [[3, 1, 2, 0.1, 0.2, 7, 1e16, 1.0, 1.0, -1e16],   # ints, then the first float, then ints join plainly
              [1, 2, 3], [],                                  # ints alone stay an int (0 when empty)
              [2 ** 26, 2 ** 26 + 1, 0.5],                    # squares beyond 2**52 in the int phase
              [0.5, 1, 1e300, 1e300, -1e300],                 # a float first, ints after
              [-0.0, 0], [0, -0.0], [math.inf, 1, -math.inf], [1, math.nan, 2]]


@pytest.mark.parametrize("row", INT_PHASES, ids=range(len(INT_PHASES)))
def test_ints_then_floats(row):
    same(squares, [row] * 3 + [[float(v) for v in row], [int(v) if math.isfinite(v) else 0 for v in row]])


def test_random_mixes_of_ints_and_floats():
    generator = random.Random(12)
    for _ in range(20):
        width = generator.randint(0, 40)   # rectangular: the whole loop over rows compiles, one entry
        rows = [[generator.choice((generator.randint(-10 ** 6, 10 ** 6),
                                   generator.uniform(-1.0, 1.0) * 10.0 ** generator.randint(-12, 12)))
                 for _ in range(width)] for _ in range(30)]
        same(squares, rows)


def test_a_hot_helper_summing_mixed_vectors():
    """The everyday genexpr_energy shape: the helper inlined into the loop over particles."""
    velocities = [[p % 7, (p % 5) / 2.0, 3, (p % 3) * 0.25] for p in range(400)]
    same(energies, velocities, [1 + p % 4 for p in range(400)])


def test_an_int_beyond_the_kernels_range_goes_to_cpython():
    fast = megaguards.jit(squares)
    rows = [[3, 2 ** 40, 0.5]] * 20   # (2**40)**2 leaves the kernel's exact ints: CPython's big int
    assert _comparable(fast(rows)) == _comparable(reference(squares, rows))


def floats_from_true(xs):
    total = 0.0
    for k in range(3):
        total += sum(xs, True)
    return total


def test_a_bool_start_stays_in_cpython():
    """A bool start is neither int nor float to sum(): CPython adds without compensation."""
    fast = megaguards.jit(floats_from_true)
    assert _comparable(fast(HARMONIC)) == _comparable(reference(floats_from_true, HARMONIC))
    if NATIVE or typeinfer.COMPENSATED_SUM:
        assert any("bool start" in reason for loop in site_for(fast) for reason in loop["reasons"])
