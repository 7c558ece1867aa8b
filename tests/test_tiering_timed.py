"""Loops whose work cannot be told before they run (runtime/tiering.py): a ``while`` that
does not count, an iterator.  Their estimate is a lower bound: where even that is real work
they compile at once; otherwise CPython runs the entry timed, and the measured time decides
as an estimate would.  (conftest sets MEGAGUARDS_COMPILE_AFTER=0 for the rest of the suite;
these tests set the default, 30 ms, and a fresh process: the first compile's threshold.)"""
from __future__ import annotations

import builtins

import pytest

import megaguards
from conftest import sites_of
from megaguards import config
from megaguards.frontend.siteinfo import PROBING_NAME
from megaguards.runtime import process


@pytest.fixture
def first_compile():
    """The default threshold, in a process that has not compiled yet (30 ms to pay)."""
    saved = config.current().compile_after
    config.configure(compile_after=30)
    with process.fresh() as fresh:
        yield fresh
    config.configure(compile_after=saved)


def settle(x, s):
    while x > 1.0:           # its trips cannot be told: about ln(x) / 1e-4 of them
        x *= 0.9999
        for j in range(1):
            s += x
    return s


def escape(counts, n, limit):
    for i in range(n):
        k = 0
        c = i * 1e-6
        z = 0.0
        while z < 4.0 and k < limit:   # not counted (k = k + 1): one trip at least, per pixel
            z = z * z + c
            k = k + 1
        counts[i] = k


def first_above(a, v):
    k = 0
    while True:
        for j in range(1):
            k += j
        if a[k] > v:
            return k
        k += 1


def test_untold_little_loops_run_in_cpython_timed(first_compile):
    fast = megaguards.jit(settle)
    for _ in range(100):
        assert fast(1.001, 0.5) == settle(1.001, 0.5)
    site = sites_of(fast)[0]   # the while loop (the for inside it: a site of its own)
    assert site["compiled_runs"] == 0 and site["entries"] == 100, site
    assert any(reason.startswith("little work") for reason in site["reasons"]), site["reasons"]
    assert not getattr(builtins, PROBING_NAME)   # no timed run left open
    assert not first_compile.back_end_loaded


def test_untold_loops_timed_heavy_compile_at_a_later_entry(first_compile):
    """Each CPython run takes tens of milliseconds: once they add up to the threshold the
    site compiles; the first entry ran in CPython."""
    fast = megaguards.jit(settle)
    results = [fast(1e12, 0.0) for _ in range(4)]
    assert results == [settle(1e12, 0.0)] * 4
    site = sites_of(fast)[0]   # the while loop (the for inside it: a site of its own)
    assert site["compiled_runs"] >= 1 and site["fallback_runs"] >= 1, site
    assert site["compiled_runs"] + site["fallback_runs"] == 4
    assert not getattr(builtins, PROBING_NAME)


def test_a_lower_bound_that_is_real_work_compiles_at_once(first_compile):
    counts, expected = [0] * 200000, [0] * 200000
    fast = megaguards.jit(escape)
    fast(counts, 200000, 50)
    escape(expected, 200000, 50)
    assert counts == expected
    site = sites_of(fast)[0]
    assert site["compiled_runs"] == 1 and site["fallback_runs"] == 0, site


def test_a_timed_run_that_never_reports_counts_until_the_next_entry(first_compile):
    """``return`` leaves the loop before the rewritten code reports its end: the time until
    the site's next entry counts (at most that): small searches stay in CPython, long ones
    compile."""
    fast = megaguards.jit(first_above)
    small = [0, 1, 2, 3, 4]
    assert [fast(small, 2) for _ in range(50)] == [3] * 50
    site = sites_of(fast)[0]   # the while loop (the for inside it: a site of its own)
    assert site["compiled_runs"] == 0, site
    fast = megaguards.jit(first_above)   # another site: the first one skips entries now
    large = list(range(600000))
    assert [fast(large, 500000) for _ in range(3)] == [500001] * 3
    site = sites_of(fast)[0]
    assert site["compiled_runs"] >= 1 and site["fallback_runs"] >= 1, site


def early_negative(xs):
    return any(x < 0 for x in xs)


def ascending(a):
    return all(a[i] <= a[i + 1] for i in range(len(a) - 1))


def test_any_and_all_are_timed_where_the_deciding_element_may_come_first(first_compile):
    """An expression site whose work is a lower bound (any/all may stop at once) times
    CPython's evaluation itself: a search decided by its first element stays in CPython,
    a scan of the whole list compiles once its timed runs add up."""
    fast = megaguards.jit(early_negative)
    decided_first = [-1.0] + [float(k) for k in range(300000)]
    assert [fast(decided_first) for _ in range(30)] == [True] * 30
    [site] = sites_of(fast)
    assert site["compiled_runs"] == 0 and any(r.startswith("little work") for r in site["reasons"]), site
    fast = megaguards.jit(ascending)
    data = [float(k) for k in range(600000)]
    assert [fast(data) for _ in range(4)] == [True] * 4
    [site] = sites_of(fast)
    assert site["compiled_runs"] >= 1 and site["fallback_runs"] >= 1, site
    assert site["compiled_runs"] + site["fallback_runs"] == 4
    assert not getattr(builtins, PROBING_NAME)
