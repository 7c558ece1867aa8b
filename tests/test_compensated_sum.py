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


def test_a_mix_of_floats_and_ints_stays_in_cpython():
    """3.12 compensates the floats of a sum, not its ints: the kernel would need each
    element's class.  (A float accumulator over ints alone is a plain sum.)"""
    fast = megaguards.jit(mixed)
    values, ints = WIDE[:300], list(range(300))
    assert _comparable(fast(values, ints)) == _comparable(mixed(values, ints))
    assert sum(loop["compiled_runs"] for loop in site_for(fast)) == 0
    same(started_sum, list(range(1000)), 0.5)
