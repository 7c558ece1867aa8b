"""Loops split in parts and nests exchanged (analysis/distribution.py): where one part of a
loop carries a dependence, the others run in parallel as loops of their own; a nest whose
outer loop carries it runs with the inner loop outside, in parallel.  Every element keeps
the order of its steps: results, exceptions, partial state and the loops' variables after
them stay CPython's."""
from __future__ import annotations

import ast
import importlib
import random
import textwrap

import pytest
from conftest import assert_same_as_cpython, sites_of

from megaguards.analysis.bounds import hoist_checks
from megaguards.analysis.distribution import distribute, may_distribute, plan_distribution
from megaguards.analysis.typeinfer import ArrayInfo, infer_types
from megaguards.frontend.lower import lower_loop
from megaguards.ir import nodes as ir
from megaguards.ir.types import Scalar

pytest.importorskip("islpy")


pytestmark = pytest.mark.usefixtures("cpu_device")


def atax(A, x, y, tmp, M, N):
    """PolyBench's atax as its Python version writes it."""
    for i in range(0, N):
        y[i] = 0
    for i in range(0, M):
        tmp[i] = 0.0
        for j in range(0, N):
            tmp[i] = tmp[i] + A[i][j] * x[j]
        for j in range(0, N):
            y[j] = y[j] + A[i][j] * tmp[i]
    return i, j


def bicg(A, s, q, p, r, M, N):
    """PolyBench's bicg: the inner loop feeds two arrays, one along each loop."""
    for i in range(0, M):
        s[i] = 0
    for i in range(0, N):
        q[i] = 0.0
        for j in range(0, M):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]


def column_sums(a, n, m):
    sums = [0.0] * len(a[0])
    for i in range(n):
        for j in range(m):
            sums[j] += a[i][j] * 0.5
    return sums, i, j


def column_sums_backward(a, n, m):
    sums = [0.0] * len(a[0])
    for i in range(n - 1, -1, -1):
        for j in range(m):
            sums[j] = sums[j] * 0.5 + a[i][j]
    return sums, i, j


def shares(a, weights, n, m):
    """A part dividing by what the part before summed: ZeroDivisionError midway."""
    total = [0.0] * m
    for i in range(n):
        weights[i] = 0.0
        for j in range(m):
            weights[i] = weights[i] + a[i][j]
        for j in range(m):
            total[j] = total[j] + a[i][j] / weights[i]
    return total


def grid(n, m, seed, low=-1.0):
    rng = random.Random(seed)
    return [[round(rng.uniform(low, 1.0), 3) for _ in range(m)] for _ in range(n)]


def notes(function) -> list:
    return [reason for record in sites_of(function) for reason in record["reasons"]]


def test_atax_runs_as_two_loops_the_second_exchanged_and_parallel():
    M, N = 37, 29
    A, x = grid(M, N, 1), [1 + k / N for k in range(N)]
    fast = assert_same_as_cpython(atax, A, x, [0.0] * N, [0.0] * M, M, N)
    said = notes(fast)
    assert any("runs as 2 loops" in note for note in said), said
    assert any("exchanged" in note for note in said), said
    ran = [record for record in sites_of(fast) if record["compiled_runs"]]
    assert len(ran) == 2 and all(record["backend"] == "c-omp" for record in ran), ran


def test_bicg_splits_the_inner_loop_between_its_two_arrays():
    M, N = 31, 23
    A = grid(N, M, 2)
    fast = assert_same_as_cpython(bicg, A, [0.0] * M, [0.0] * N, [k / 3 for k in range(M)],
                                  [k / 5 for k in range(N)], M, N)
    assert any("runs as 3 loops" in note for note in notes(fast)), notes(fast)


@pytest.mark.parametrize("n, m", [(40, 33), (0, 5), (5, 0), (0, 0), (1, 1)])
@pytest.mark.parametrize("function", [column_sums, column_sums_backward])
def test_column_sums_exchanged_keep_values_and_the_loop_variables(function, n, m):
    """An empty range leaves the nest as written: i and j after it as CPython leaves them
    (unbound where their loop never ran: UnboundLocalError, as CPython raises)."""
    fast = assert_same_as_cpython(function, grid(max(n, 1), max(m, 1), 3), n, m)
    if n and m:
        assert any("exchanged" in note for note in notes(fast)), notes(fast)


def weighted_column_sums(a, sums, n, m):
    for i in range(n):
        for j in range(m):
            sums[j] += a[i, j] * (i + 1)


def test_under_device_gpu_loops_are_taken_as_written():
    import warnings

    from conftest import device_set

    with device_set("gpu"), warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (no GPU here: the loops run on the CPU, said once)
        fast = assert_same_as_cpython(column_sums, grid(20, 9, 8), 20, 9)
    assert not any("exchanged" in note for note in notes(fast)), notes(fast)


def test_numpy_column_sums_exchanged():
    np = pytest.importorskip("numpy")
    fast = assert_same_as_cpython(weighted_column_sums, np.array(grid(50, 21, 4)), np.zeros(21), 50, 21)
    assert any("exchanged" in note for note in notes(fast)), notes(fast)


def test_a_later_part_raising_gives_cpythons_exception_and_partial_state():
    a = grid(12, 7, 5, low=0.1)
    a[6] = [0.0] * 7   # row 6 sums to zero: the division raises at i = 6
    assert_same_as_cpython(shares, a, [9.0] * 12, 12, 7)


def test_one_list_under_two_names_is_not_split():
    M, N = 20, 20
    y = [0.0] * N
    fast = assert_same_as_cpython(atax, grid(M, N, 6), [1.0] * N, y, y, M, N)
    assert not any("runs as" in note for note in notes(fast)), notes(fast)


# The decision on typed loops directly ---------------------------------------------------

FLOATS_1, FLOATS_2 = ArrayInfo(Scalar.PY_FLOAT, 1, True, True), ArrayInfo(Scalar.PY_FLOAT, 2, True, True)


def decided(source: str):
    loop = lower_loop(next(n for n in ast.walk(ast.parse(textwrap.dedent(source))) if isinstance(n, ast.For)))
    arrays = {use.name: FLOATS_2 if use.rank == 2 else FLOATS_1 for use in loop.arrays}
    typed = infer_types(loop.body, {"n": Scalar.PY_INT, "m": Scalar.PY_INT, "c": Scalar.PY_FLOAT}, arrays,
                        {"range": "range"})
    return typed, plan_distribution(typed, hoist_checks(typed), {})


def shape(typed, distribution) -> list:
    """The split loop's new loops: 'x' for one exchanged, '|' for one as written."""
    if not distribution.splits:
        return []
    return ["x" if swapped else "|" for split in distribution.splits for swapped in split.exchanged]


@pytest.mark.parametrize("source, expected", [
    ("""for i in range(n):
           t = a[i] * 2.0
           for j in range(m):
               y[j] += t * A[i][j]""", []),             # t is computed by the part before: one loop
    ("""for i in range(1, n):
           a[i] = y[i - 1]
           for j in range(m):
               y[j] += A[i][j]""", []),                 # the later part writes what the earlier reads next
    ("""for i in range(n):
           for j in range(i):
               y[j] += A[i][j]""", []),                  # a triangle: the inner range moves with i
    ("""for i in range(n):
           for j in range(m):
               y[j] = y[j + 1] + A[i][j]""", []),        # exchanged, the order of y's steps would change
    ("""for i in range(n):
           for j in range(m):
               y[j] += A[i][j]
           k = j""", []),                                  # j is read after its loop: one loop
    ("""for i in range(n):
           a[i] = 0.0
           for j in range(m):
               a[i] += A[i][j]
           for j in range(m):
               y[j] += A[i][j] * a[i]""", ["|", "x"]),
    ("""for i in range(n):
           for j in range(m):
               y[j] = y[j] + A[i][j] * c""", ["x"]),
])
def test_decisions(source, expected):
    typed, distribution = decided(source)
    assert shape(typed, distribution) == expected, distribution


def test_a_split_typed_loop_is_numbered_again_in_walk_order():
    typed, distribution = decided("""for i in range(n):
        a[i] = 0.0
        for j in range(m):
            a[i] += A[i][j]
        for j in range(m):
            y[j] += A[i][j] * a[i]""")
    assert may_distribute(typed)
    split = distribute(typed, distribution)
    assert [node.nid for node in ir.walk(split.body)] == list(range(len(list(ir.walk(split.body)))))
    assert isinstance(split.body, ir.For) and split.body.var == "mg_tmp_split"


# Random parts: every combination the analysis may split, run against CPython -------------

PARTS = [
    "t[i] = 0.0",
    "for j in range(m):\n    t[i] = t[i] + A[i][j] * x[j]",
    "for j in range(m):\n    y[j] = y[j] + A[i][j] * t[i]",
    "for j in range(m):\n    y[j] += A[i][j]\n    t[i] += A[i][j] * 0.5",
    "for j in range(m):\n    z[j] = z[j] * 0.5 + A[i][j]",
    "u[i] = t[i] * 2.0 + u[i]",
    "for j in range(m - 1):\n    y[j] = y[j + 1] + A[i][j]",
    "s = t[i] * 2.0",
    "for j in range(m):\n    z[j] += s",
    "for j in range(i % m):\n    x[j] = x[j] + y[j]",
    "x[(i + 1) % m] = y[i % m] - x[i % m]",
]


def random_kernel(seed: int) -> str:
    rng = random.Random(seed)
    chosen = [PARTS[k] for k in rng.sample(range(len(PARTS)), rng.randint(2, 4))]
    body = "\n".join(textwrap.indent(part, "        ") for part in ["s = 1.0"] + chosen)
    return f"def kernel(A, x, y, z, t, u, n, m):\n    s = 0.0\n    for i in range(n):\n{body}\n    return s, i, j\n"


@pytest.mark.parametrize("seed", range(12))
def test_random_parts_stay_cpythons(seed, tmp_path, monkeypatch):
    (tmp_path / f"parts{seed}.py").write_text(random_kernel(seed))
    monkeypatch.syspath_prepend(str(tmp_path))
    kernel = importlib.import_module(f"parts{seed}").kernel
    rng = random.Random(-seed)
    n, m = rng.randint(3, 17), rng.randint(2, 13)
    assert_same_as_cpython(kernel, grid(n, m, seed), [0.5] * m, [0.25] * m, [1.0] * m, [0.0] * n, [2.0] * n, n, m)
