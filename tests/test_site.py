"""Loop sites at run time: a guard that keeps failing is backed off, without ever
changing results or keeping live-ins of another class from compiling."""
from __future__ import annotations

import megaguards
from conftest import site_for
from megaguards.runtime import site as site_module


def total(values):
    n = 0
    for v in values:
        n += v
    return n


def test_repeated_guard_failures_back_off_but_other_classes_compile_at_once():
    fast = megaguards.jit(total)
    for _ in range(3 * site_module.GUARD_FAILURES_BEFORE_BACKOFF):
        assert fast({1: 0, 2: 0}) == 3  # a dict: the guard fails, CPython runs the loop
    record = site_for(fast)[-1]
    assert record["compiled_runs"] == 0
    assert fast([1, 2, 3]) == 6  # a list right after: compiled on its first entry
    assert site_for(fast)[-1]["compiled_runs"] == 1
