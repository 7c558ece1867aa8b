"""Differential fuzzing: generated loop programs must behave exactly as under CPython.

* ``test_program[seed=N]``: the fixed CI batch (seeds ``CI_SEEDS``), run under the plain
  ``pytest`` command.  All programs run once, in worker processes (one per core), the
  first time a test needs a result; each test then checks its seed.
* ``test_compiled_ratio``: at least half the CI programs had a loop that ran compiled
  (the fuzzer is pointless if nothing compiles).
* ``test_large_batch``: marked ``fuzz``, deselected by default; ``pytest -m fuzz``
  (seeds from ``MG_FUZZ_SEEDS``, default ``200:2200``).
* ``test_operator_matrix``: marked ``fuzz``; single operations on every pair of value
  classes and corner values (``opmatrix.py``); ``test_operator_matrix_slice``, its CI
  part: the float operations on the float classes, a few value pairs each.

A failing seed that an open bug of ``BUGS.md`` explains (the same program passes with
that bug's trigger removed, see ``harness.triage``) is reported as xfail with the
bug's number; any other failure fails.  Reproduce one seed with
``python -m tests.fuzz.harness --seeds N --show``.
"""
from __future__ import annotations

import functools
import os

import pytest

from . import harness, opmatrix

CI_SEEDS = range(0, 200)
MIN_COMPILED_RATIO = 0.5


@functools.lru_cache(maxsize=None)
def ci_results() -> dict:
    results = harness.run_batch(CI_SEEDS)
    return {r.seed: r for r in results}


@functools.lru_cache(maxsize=None)
def ci_known() -> dict:
    return harness.triage(list(ci_results().values()))


def explain(result: harness.SeedResult) -> str:
    lines = [f"seed {result.seed}: {result.status}"] + result.mismatches
    if result.detail:
        lines.append(result.detail)
    lines.append(f"reproduce: python -m tests.fuzz.harness --seeds {result.seed} --show")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", CI_SEEDS, ids=lambda seed: f"seed={seed}")
def test_program(seed):
    result = ci_results()[seed]
    if result.failed and seed in ci_known():
        pytest.xfail(f"{ci_known()[seed]}: {explain(result)}")
    assert not result.failed, explain(result)


def test_compiled_ratio():
    results = list(ci_results().values())
    ratio = harness.compiled_ratio(results)
    assert ratio >= MIN_COMPILED_RATIO, harness.summary(results)


@pytest.mark.fuzz
def test_large_batch():
    seeds = harness.parse_seeds(os.environ.get("MG_FUZZ_SEEDS", "200:2200"))
    results = harness.run_batch(seeds)
    known = harness.triage(results)
    new = [r for r in results if r.failed and r.seed not in known]
    print(harness.summary(results), f"; {len(known)} explained by open bugs: {sorted(known)}")
    assert not new, "\n\n".join(explain(r) for r in new)
    assert harness.compiled_ratio(results) >= MIN_COMPILED_RATIO, harness.summary(results)


# The CI slice of the operator matrix: the float operations whose bits depend on the C
# compiler and the library (NaN signs, pow, narrowing) on the float classes.
SLICE_OPERATIONS = ("neg", "sub", "mul", "floordiv", "pow", "copysign", "float")
SLICE_CLASSES = ("list float", "float64", "float32", "int64", "float", "numpy.float32")


def test_operator_matrix_slice():
    mismatches = opmatrix.run(SLICE_OPERATIONS, pairs=6, report=lambda line: None, classes=SLICE_CLASSES)
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:50])


@pytest.mark.fuzz
def test_operator_matrix():
    mismatches = opmatrix.run(pairs=int(os.environ.get("MG_FUZZ_PAIRS", "20")), report=lambda line: None)
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:50])
