"""Exact parallel float reductions (codegen/targets/openmp.py's ordered fold): the body runs
on several threads, each keeps its steps' operands, and the scalar is folded in Python's
order, so that the result is CPython's bit for bit.  The suite forces parallel loops
even when tiny (conftest); here three threads, so that shares are uneven."""
import math

import pytest

import megaguards
from megaguards import config
from megaguards.analysis.parallel import FOLD_MIN_WEIGHT

from conftest import assert_same_as_cpython, site_for

# Rounding that depends on the order: any regrouping of these sums gives other bits.
ADVERSARIAL = [1e16, 1.0, -1e16, 1.0, 3.3, 1e-3, 2.0 ** 60, 7.0, -(2.0 ** 60), 0.1] * 40


@pytest.fixture(autouse=True)
def three_threads():
    saved = config.current()
    config.configure(threads=3, reassociate=False)
    yield
    config.configure(threads=saved.threads, reassociate=saved.reassociate)


def folded(function) -> dict:
    """The last loop record of a jit function, asserting that it ran in parallel and folded."""
    loop = site_for(function)[-1]
    assert loop["parallel_depth"] == 1, loop["reasons"]
    assert any("folded in iteration order" in reason for reason in loop["reasons"]), loop["reasons"]
    return loop


def test_sum_of_adversarial_values_is_cpythons():
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i] * 1.0 + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(a[i]) + 2.0)) * 0.0 + (a[i] - a[i]) * 3.0
        return s
    assert total(ADVERSARIAL) != math.fsum(ADVERSARIAL)  # the order matters here
    folded(assert_same_as_cpython(total, ADVERSARIAL))


def test_each_form_of_step_keeps_its_operand_order():
    def forms(a, b):
        s, d, r, p, q = 0.5, -0.0, 1e16, 1.0, 1.0
        for i in range(len(a)):
            x = a[i] * 1.0 + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(b[i]) + 2.0)) * 0.0
            y = 1.0 + b[i] * 1e-3 + (b[i] - b[i]) * 0.25 + math.sqrt(abs(b[i]) + 1.0) * 0.0
            s += x
            d -= x
            r = x + r
            p *= y
            q = y * q
        return s, d, r, p, q
    values = ADVERSARIAL[:200]
    scale = [((k * 37) % 11) / 3.0 for k in range(200)]
    folded(assert_same_as_cpython(forms, values, scale))


def test_conditional_steps_and_none_taken():
    def picked(a, limit):
        s = -0.0
        for i in range(len(a)):
            x = a[i] * 1.0 + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(a[i]) + 2.0)) * 0.0 + (a[i] - a[i])
            if x > limit:
                s += x
        return s
    fast = assert_same_as_cpython(picked, ADVERSARIAL, 2.0)
    folded(fast)
    assert math.copysign(1.0, fast(ADVERSARIAL, 1e300)) == -1.0   # no step: -0.0 stays -0.0


def test_steps_inside_an_inner_loop():
    def rows(a):
        s = 0.0
        for i in range(len(a)):
            row = 0.0
            for j in range(len(a[0])):
                row = row * 0.5 + a[i][j] * 1.0 + (a[i][j] - a[i][j]) * 0.5
                s += row * 1.0 + (row - row) * 0.5 + (math.sqrt(abs(row)) + math.sqrt(abs(row) + 2.0)) * 0.0 + (row - row) * 2.0
        return s
    matrix = [ADVERSARIAL[k:k + 8] for k in range(0, 400, 8)]
    folded(assert_same_as_cpython(rows, matrix))


def test_many_rounds_keep_the_order():
    """More iterations than one round holds (openmp.FOLD_ROUND_WORK): the rounds are
    folded one after the other."""
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i] * 1.0 + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(a[i]) + 2.0)) * 0.0 + (a[i] - a[i]) * 3.0
        return s
    values = ADVERSARIAL * 1000   # 400,000 steps: several rounds
    folded(assert_same_as_cpython(total, values))


def test_nan_operands_keep_their_sign():
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s -= a[i] * 1.0 + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(a[i]) + 2.0)) * 0.0 + (a[i] - a[i]) * 3.0
        return s
    values = [1.0, 2.0, math.nan, 4.0] * 20
    fast = megaguards.jit(total)
    assert math.copysign(1.0, fast(values)) == math.copysign(1.0, total(values))
    folded(fast)


def test_an_error_in_an_iteration_is_cpythons():
    def inverse(a):
        s = 0.0
        for i in range(len(a)):
            s += 1.0 / a[i] + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(a[i]) + 2.0)) * 0.0 + (a[i] - a[i]) * 3.0
        return s
    assert_same_as_cpython(inverse, [1.0, 2.0, 0.0, 4.0] * 30, compiled=None)
    folded(assert_same_as_cpython(inverse, [1.0, 2.0, 3.0, 4.0] * 30))


def test_steps_of_two_forms_stay_sequential():
    def mixed(a):
        s = 0.0
        for i in range(len(a)):
            x = a[i] * 1.0 + (a[i] - a[i]) * 0.5 + (math.sqrt(abs(a[i])) + math.sqrt(abs(a[i]) + 2.0)) * 0.0 + (a[i] - a[i])
            if x > 1.0:
                s += x
            else:
                s -= x
        return s
    fast = assert_same_as_cpython(mixed, ADVERSARIAL)
    loop = site_for(fast)[-1]
    assert loop["parallel_depth"] == 0
    assert any("its steps mix s+e and s-e" in reason for reason in loop["reasons"]), loop["reasons"]


def test_a_light_step_stays_sequential_unless_reassociation_is_asked_for():
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s
    fast = assert_same_as_cpython(total, ADVERSARIAL)
    loop = site_for(fast)[-1]
    assert loop["parallel_depth"] == 0
    assert any("too little work per step" in r and "MEGAGUARDS_REASSOCIATE=1" in r for r in loop["reasons"])
    asked = megaguards.jit(reassociate=True)(total)
    asked(ADVERSARIAL)
    assert site_for(asked)[-1]["parallel_depth"] == 1


def test_weight_threshold_is_what_the_heavy_helper_meets():
    """The bodies above are meant to fold: their step carries at least FOLD_MIN_WEIGHT nodes."""
    from megaguards.analysis.parallel import ordered_fold
    from megaguards.ir import nodes as ir

    assert FOLD_MIN_WEIGHT > 4
    light = [ir.Assign("s", ir.BinOp("+", ir.Name("s"), ir.Name("x")))]
    assert "too little work" in ordered_fold("s", light)


def test_a_float_sum_prints_cpythons_digits_in_every_run(tmp_path):
    """The issue's program: under auto the device, and so a reassociated result, changed
    from run to run.  Ten runs, the device chosen each way auto can choose it."""
    import subprocess
    import sys

    from conftest import run_megaguards

    script = tmp_path / "harmonic.py"
    script.write_text("xs = [1.0 / (i + 1) for i in range(300000)]\nprint(repr(sum(xs)))\n"
                      "s = 0.0\nfor i in range(len(xs)):\n    s += xs[i] * xs[i]\nprint(repr(s))\n")
    expected = subprocess.run([sys.executable, script], capture_output=True, text=True, check=True).stdout
    selections = ["explore", "cpu", "seq", "tree", "model"] * 2
    for number, select in enumerate(selections):
        result = run_megaguards("run", script, env={"MEGAGUARDS_SELECT": select, "MEGAGUARDS_THREADS": str(2 + number % 3)})
        assert (result.returncode, result.stdout) == (0, expected), (select, result.stderr[-2000:])


def test_the_note_of_a_fold_is_reported_only_where_a_parallel_run_folded():
    """The plan's note ("folded in iteration order") says what a parallel run does: a loop
    that ran on one thread reports no such note, in the JSON too; one that ran on three does."""
    def weighted(a):
        s = 0.0
        for i in range(len(a)):
            s += math.sqrt(abs(a[i])) * 0.5 + math.sqrt(abs(a[i]) + 1.0)
        return s
    config.configure(threads=1)
    fast = assert_same_as_cpython(weighted, ADVERSARIAL)
    loop = site_for(fast)[-1]
    assert loop["backend"] == "c-seq" and not any("folded" in r for r in loop["reasons"]), loop
    config.configure(threads=3)
    fast = assert_same_as_cpython(weighted, ADVERSARIAL)
    loop = site_for(fast)[-1]
    assert loop["backend"] == "c-omp" and "reduction on 's' (float, folded in iteration order)" in loop["reasons"]
