"""Parallel loop decisions (dependence analysis, privatization, reductions) and
the results of the OpenMP code against CPython (tests force parallel execution
even for tiny loops; see conftest)."""
import math
import subprocess
import sys

import numpy
import pytest

import megaguards
from megaguards import MegaguardsWarning, config

from conftest import assert_same_as_cpython, run_megaguards, site_for, sites_of
from megaguards.runtime import process
from megaguards.runtime.site import REGISTRY


pytestmark = pytest.mark.usefixtures("cpu_device")   # the CPU's parallel loops, also beside a GPU


def decision(function, *arguments):
    fast = assert_same_as_cpython(function, *arguments)
    loop = min(site_for(fast), key=lambda record: record["line"])  # the outermost loop's site
    return loop["parallel_depth"], loop["backend"], loop["reasons"]


def enumerated(xs, out):
    for i, x in enumerate(xs):   # i is the range loop's own variable: out[i] is indexed by the loop
        out[i] = x * 2.0
    return i


def enumerated_from_one(xs, out):
    for i, x in enumerate(xs, 1):
        out[i - 1] = x + i
    return i


def elementwise(a, b):
    for i in range(len(a)):
        b[i] = math.sqrt(a[i]) * 2.0 + 1.0


def matmul(A, B, C, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i][k] * B[k][j]
            C[i][j] = total


def stencil(A, B, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            B[i][j] = (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) * 0.25


def int_sum_and_max(a):
    s = 0
    best = -1
    for i in range(len(a)):
        s += a[i] * a[i]
        if a[i] > best:
            best = a[i]
    return s, best


def float_min(a):
    low = 1e300
    for i in range(len(a)):
        low = min(low, a[i])
    return low


def mandelbrot(out, n, m):
    for y in range(n):
        for x in range(m):
            cr, ci = -2.0 + 3.0 * x / m, -1.5 + 3.0 * y / n
            zr = zi = 0.0
            k = 0
            while k < 50 and zr * zr + zi * zi <= 4.0:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                k += 1
            out[y][x] = k


def forces(px, py, fx, fy, n):
    for i in range(n):
        ax = 0.0
        ay = 0.0
        for j in range(n):
            if i != j:
                dx, dy = px[j] - px[i], py[j] - py[i]
                d = math.sqrt(dx * dx + dy * dy) + 0.01
                ax += dx / (d * d * d)
                ay += dy / (d * d * d)
        fx[i] = ax
        fy[i] = ay


def last_values(a, b):
    t = -1
    for i in range(len(a)):
        if a[i] > 2:
            t = a[i] * 10      # written before read: private, last assigned value survives
        b[i] = i
    return t, i


def grid(n):
    return [[float((i * 7 + j * 3) % 11) for j in range(n)] for i in range(n)]


def reverse_elementwise(a, b):
    for i in range(len(a) - 1, -1, -1):   # a negative step: the range is known at entry
        b[i] = a[i] * 2.0 + 1.0
    return b


def reverse_shift(a):
    for i in range(len(a) - 1, 0, -1):   # reads what the next iteration writes: sequential
        a[i] = a[i - 1] + a[i]
    return a


def flattened(C, A, ni, nj):
    for i in range(ni):            # C[nj * i + j] is C[i][j]: 0 <= j < nj in every iteration
        for j in range(nj):
            C[nj * i + j] = A[j + i * nj] * 2.0 + 1.0


def flattened_row_plus_one(C, ni, nj):
    for i in range(ni):            # j + 1 reaches nj: row i's last write is row i + 1's first
        for j in range(nj):
            C[nj * i + j + 1] = i * 10 + j


def flattened_other_width(C, ni, nj, nk):
    for i in range(ni):            # j below nk, not nj: rows may overlap
        for j in range(nk):
            C[nj * i + j] = i * 10 + j


def flattened_two_widths(C, out, ni, nj, nk):
    for i in range(ni):            # row i of width nj written, row i of width nk read: they overlap
        for j in range(nj):
            C[nj * i + j] = i * 10 + j
        s = 0
        for k in range(nk):
            s += C[nk * i + k]
        out[i] = s


def flattened_3d(B, A, n):
    for i in range(n):             # (n * i + j) * n + k is B[i][j][k]: j and k below n
        for j in range(n):
            for k in range(n):
                B[(n * i + j) * n + k] = A[n * (n * i + j) + k] * 2.0 + i


def flattened_shifted(C, ni, nj):
    for i in range(ni):            # nj * i + j - 1 is C[i][j - 1]: 0 <= j - 1 < nj, never negative
        for j in range(1, nj + 1):
            C[nj * i + j - 1] = i * 10 + j


def flattened_shifted_wraps(C, ni, nj):
    for i in range(ni):            # i = 0, j = 0 writes C[-1], the last element: rows overlap
        for j in range(nj):
            C[nj * i + j - 1] = i * 10 + j


def flattened_3d_spill(B, n):
    for i in range(n):             # k reaches n: each row's last write is the next row's first
        for j in range(n):
            for k in range(n + 1):
                B[(n * i + j) * n + k] = i + j + k


@pytest.mark.parametrize("function, arguments", [
    (elementwise, ([1.0, 4.0, 9.0, 2.0], [0.0] * 4)),
    (flattened, ([0.0] * 12, [float(k) for k in range(12)], 3, 4)),
    (flattened_3d, ([0.0] * 64, [float(k) for k in range(64)], 4)),
    (flattened_shifted, ([0] * 12, 3, 4)),
    (reverse_elementwise, ([1.0, 4.0, 9.0, 2.0], [0.0] * 4)),
    (matmul, (grid(5), grid(5), grid(5), 5)),
    (stencil, (grid(6), grid(6), 6)),
    (int_sum_and_max, ([3, -1, 7, 7, 2],)),
    (float_min, ([3.5, -0.0, 0.0, float("nan"), -2.25],)),
    (mandelbrot, ([[0] * 6 for _ in range(5)], 5, 6)),
    (forces, ([0.0, 1.0, 2.5], [0.0, 2.0, -1.0], [0.0] * 3, [0.0] * 3, 3)),
    (last_values, ([1, 5, 2, 9, 0], [0] * 5)),
    (enumerated, ([1.0, 4.0, 9.0, 2.0], [0.0] * 4)),
    (enumerated_from_one, ([1.0, 4.0, 9.0, 2.0], [0.0] * 4)),
])
def test_must_parallelize(function, arguments):
    depth, backend, reasons = decision(function, *arguments)
    assert (depth, backend) == (1, "c-omp"), reasons


def prefix_sum(a):
    for i in range(1, len(a)):
        a[i] = a[i - 1] + a[i]


def gauss_seidel(A, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            A[i][j] = (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]) * 0.25


def swaps(a):
    for i in range(0, len(a) - 1, 2):
        a[i], a[i + 1] = a[i + 1], a[i]
    for i in range(len(a) - 1):
        a[i], a[i + 1] = a[i + 1], a[i]


def recurrence(a):
    s = 1.0
    for i in range(len(a)):
        s = s * 0.5 + a[i]
        a[i] = s


def shifted(a, b):
    for i in range(1, len(a)):
        b[i] = a[i - 1] * 2


def shift_left(a):
    for i in range(len(a) - 1):
        a[i] = a[i + 1] * 2       # only an anti dependence: a[i + 1] is read before it is written


def pairs_into(a, b):
    for i in range(len(a)):
        b[i // 2] = a[i]          # only an output dependence: the odd iteration's write must win


def carry_last_positive(a, b):
    t = 0
    for i in range(len(a)):
        if a[i] > 0:
            t = a[i]              # assigned in one branch only: the value flows to later iterations
        b[i] = t


def histogram(b, h):
    for i in range(len(b)):
        h[b[i]] += 1              # b repeats indices: iterations meet on h's elements


def permute_forward(a, p):
    for i in range(len(p)):
        a[p[i]] = a[i] + 1        # a[p[i]] may be an element a later iteration reads


def hash_mix(a):
    h = 7
    for i in range(len(a)):
        h ^= a[i]                 # two operators on one scalar: neither reduction alone
        h *= 3
    return h


def add_then_double(a):
    s = 1
    for i in range(len(a)):
        s += a[i]
        s *= 2
    return s


@pytest.mark.parametrize("function, arguments, expected", [
    (prefix_sum, ([1, 2, 3, 4, 5],), "dependence on 'a'"),
    (reverse_shift, ([1, 2, 3, 4, 5, 6],), "dependence on 'a'"),
    (gauss_seidel, (grid(6), 6), "dependence on 'A'"),
    (recurrence, ([1.0, 2.0, 3.0],), "scalar 's' carries a value"),
    (shift_left, ([1, 2, 3, 4, 5, 6],), "carries a flow/anti dependence on 'a'"),
    (pairs_into, ([1, 2, 3, 4, 5, 6], [0, 0, 0]), "carries a output dependence on 'b'"),
    (carry_last_positive, ([3, -1, 4, -1, -5, 9], [0] * 6), "scalar 't' carries a value"),
    (histogram, ([0, 2, 1, 2, 2, 0, 1, 2] * 4, [0, 0, 0]), "dependence on 'h'"),
    (permute_forward, ([0] * 16, [(3 * k + 1) % 16 for k in range(16)]), "dependence on 'a'"),
    (hash_mix, (list(range(1, 30)),), "scalar 'h' carries a value"),
    (add_then_double, ([3, -1, 4, 1, -5, 9, 2, 6] * 3,), "scalar 's' carries a value"),
    (flattened_row_plus_one, ([0] * 13, 3, 4), "carries a output dependence on 'C'"),
    (flattened_other_width, ([0] * 20, 3, 4, 6), "carries a output dependence on 'C'"),
    (flattened_shifted_wraps, ([0] * 12, 3, 4), "carries a output dependence on 'C'"),
])
def test_must_stay_sequential(function, arguments, expected):
    depth, backend, reasons = decision(function, *arguments)
    assert depth == 0 and backend == "c-seq"
    assert any(expected in reason for reason in reasons), reasons


def test_flattened_rows_of_two_widths_overlap():
    """Row i of width 2 written, row i of width 3 read: C[3 * 2 + k] reads what iteration 3
    writes, so 'i' is not parallel (the inner loops may be)."""
    _, _, reasons = decision(flattened_two_widths, [0] * 40, [0] * 8, 8, 2, 3)
    assert any("loop 'i'" in reason and "carries a flow/anti dependence on 'C'" in reason for reason in reasons)


def test_a_3d_flattened_row_that_spills_into_the_next_is_not_parallel():
    _, _, reasons = decision(flattened_3d_spill, [0] * 70, 4)
    assert any("loop 'i'" in reason and "carries a output dependence on 'B'" in reason for reason in reasons)
    assert any("loop 'j'" in reason and "carries a output dependence on 'B'" in reason for reason in reasons)


def test_swaps_second_loop_is_sequential_first_is_parallel():
    fast = assert_same_as_cpython(swaps, [1, 2, 3, 4, 5, 6, 7])
    loops = {loop["line"]: loop for loop in site_for(fast)}
    first, second = sorted(loops)
    assert loops[first]["parallel_depth"] == 1 and loops[second]["parallel_depth"] == 0


def test_aliased_arguments_are_one_array_for_the_analysis():
    def aliased(x):
        shifted(x, x)
        return x
    fast_shifted = megaguards.jit(shifted)
    a = [1, 2, 3, 4]
    fast_shifted(a, [0] * 4)
    assert site_for(fast_shifted)[-1]["parallel_depth"] == 1
    same = [1, 2, 3, 4]
    fast_shifted(same, same)
    expected = [1, 2, 3, 4]
    shifted(expected, expected)
    assert same == expected == [1, 2, 4, 8]
    # Equal results alone prove nothing (threads may happen not to interleave): a function
    # only ever called with one list twice must have compiled, and sequentially.
    fast_aliased = megaguards.jit(shifted)
    same = [1, 2, 3, 4]
    fast_aliased(same, same)
    assert same == [1, 2, 4, 8]
    (loop,) = sites_of(fast_aliased)
    assert (loop["compiled_runs"], loop["parallel_depth"], loop["backend"]) == (1, 0, "c-seq"), loop
    assert any("carries a flow/anti dependence on 'a'" in reason for reason in loop["reasons"]), loop["reasons"]


def test_a_list_passed_twice_gets_its_own_sequential_kernel_after_two_lists():
    """The cache key holds which names are one object: a kernel planned parallel for two
    lists is not reused for one list passed twice (a dependence then)."""
    fast = megaguards.jit(shifted)
    a, b = list(range(1000)), [0] * 1000
    fast(a, b)
    same = list(range(1000))
    fast(same, same)
    expected = list(range(1000))
    shifted(expected, expected)
    assert same == expected
    (site,) = [site for site in REGISTRY.sites if site.id in fast.__megaguards_sites__]
    assert sorted(kernel.parallel_depth for kernel in site.compiled) == [0, 1]
    assert sites_of(fast)[0]["compiled_runs"] == 2


def int_max_call(a):
    best = -10 ** 9
    for i in range(len(a)):
        best = max(best, a[i])
    return best


def int_max_if(a):
    best = -10 ** 9
    for i in range(len(a)):
        if a[i] > best:
            best = a[i]
    return best


def int_min_call(a):
    low = 10 ** 9
    for i in range(len(a)):
        low = min(low, a[i])
    return low


@pytest.mark.parametrize("function, sign", [(int_max_call, -1), (int_max_if, -1), (int_min_call, 1)])
def test_int_max_and_min_reductions_of_one_sign_on_several_threads(function, sign):
    """Each thread's partial starts at the reduction's identity (INT64_MIN for max), not 0:
    with every element below 0 (above, for min) any other start would win the merge."""
    data = [sign * (k * 7919 % 1000 + 5) for k in range(64)]
    saved = config.current()
    try:
        config.configure(threads=4)
        depth, backend, reasons = decision(function, data)
    finally:
        config.configure(threads=saved.threads)
    assert (depth, backend) == (1, "c-omp"), reasons


def test_float_sum_reassociates_only_when_asked():
    def total(a):
        s = 0.0
        for i in range(len(a)):
            s += a[i]
        return s
    values = [0.1 * k for k in range(1000)]
    try:
        config.configure(reassociate=True)
        fast = megaguards.jit(total)
        assert fast(values) == pytest.approx(total(values), rel=1e-12)
        loop = site_for(fast)[-1]
        assert loop["parallel_depth"] == 1
        assert any("reduction on 's' (float, reassociated)" in r for r in loop["reasons"])
    finally:
        config.configure(reassociate=False)
    exact = megaguards.jit(total)
    assert exact(values) == total(values)
    assert site_for(exact)[-1]["parallel_depth"] == 0
    asked = megaguards.jit(reassociate=True)(total)
    assert asked(values) == pytest.approx(total(values), rel=1e-12)
    assert site_for(asked)[-1]["parallel_depth"] == 1


def test_error_in_a_parallel_iteration_gives_cpython_behaviour():
    def divide(a, b, out):
        for i in range(len(a)):
            out[i] = a[i] // b[i]
    assert_same_as_cpython(divide, [5, 6, 7, 8], [1, 2, 0, 3], [0] * 4, compiled=False)
    assert_same_as_cpython(divide, numpy.arange(8), numpy.arange(1, 9), numpy.zeros(8, dtype=numpy.int64))


def test_few_long_iterations_go_parallel_by_their_inner_trip_counts_at_entry():
    """The work threshold counts an inner loop by its trip count at entry (hoisted range),
    not as 16.  Observed through a reassociated float sum on two threads: 1e16 + 1 rounds
    to 1e16, so splitting [1e16, 1, -1e16, 1] in halves gives 0.0 where the sequential
    order gives 1.0."""
    def settle(a, n, steps):
        total = 0.0
        for i in range(n):
            value = a[i]
            for k in range(steps):
                value = value * 1.0
            total += value
        return total

    values = [1e16, 1.0, -1e16, 1.0]
    assert settle(values, 4, 3) == 1.0
    saved = config.current()
    try:
        config.configure(reassociate=True, parallel_work=20000, threads=2)
        fast = megaguards.jit(settle)
        assert fast(values, 4, 3) == 1.0            # 4 short iterations: one thread, Python's order
        assert fast(values, 4, 100000) == 0.0       # 4 long ones: two threads (the documented exception)
        assert site_for(fast)[-1]["compiled_runs"] == 2
    finally:
        config.configure(reassociate=saved.reassociate, parallel_work=saved.parallel_work, threads=saved.threads)


def test_body_weight_counts_nodes_and_inner_loops_by_their_trips():
    """One weight walk, two folds: the plan's static weight takes 16 trips per inner loop;
    the OpenMP kernel's C expression the hoisted loops' trips at the entry."""
    from types import SimpleNamespace

    from megaguards.analysis.parallel import INNER_LOOP_TRIPS, BodyWeight
    from megaguards.codegen.targets.openmp import runtime_weight
    from megaguards.ir import nodes as ir

    i, k = ir.Name("i"), ir.Name("k")
    store = ir.Store("b", (i,), ir.BinOp("+", ir.Load("a", (i,)), ir.Const(1.0)))   # 6 nodes
    inner = ir.For("k", ir.Const(0), ir.Name("n"), ir.Const(1), (ir.Assign("t", k),))   # body: 2 nodes
    branch = ir.If(ir.Compare(i, ("<",), (k,)), (inner,), (store,))   # 1 + the else's 6, and the loop
    weight = BodyWeight.of((store, branch))
    assert (weight.nodes, [loop for loop, _ in weight.loops]) == (6 + 1 + 6, [inner])
    assert weight.static() == 13 + INNER_LOOP_TRIPS * 2 == 45   # as the nested walk counted it
    hoisted = SimpleNamespace(loops=(SimpleNamespace(loop=inner.nid, step=1),))
    assert runtime_weight((store, branch), hoisted) == \
        "13.0 + (mg_L0_empty ? 0.0 : (double)((mg_L0_hi - mg_L0_lo) / 1 + 1)) * (2.0)"
    assert runtime_weight((store, branch), SimpleNamespace(loops=())) == f"13.0 + {INNER_LOOP_TRIPS}.0 * (2.0)"
    assert BodyWeight.of(()).static() == 0 and runtime_weight((), hoisted) == "0.0"


def test_reassociate_setting_is_a_flag_and_strict_is_retired():
    assert config.from_environment({"MEGAGUARDS_REASSOCIATE": "1"}).reassociate
    assert not config.from_environment({"MEGAGUARDS_REASSOCIATE": "off"}).reassociate
    assert not config.from_environment({}).reassociate
    with process.fresh(), pytest.warns(MegaguardsWarning, match="MEGAGUARDS_REASSOCIATE='maybe' is not one of 1, 0"):
        assert not config.from_environment({"MEGAGUARDS_REASSOCIATE": "maybe"}).reassociate
    assert config.from_environment({"MEGAGUARDS_STRICT": "0"}).retired == ("MEGAGUARDS_STRICT",)


def test_retired_strict_setting_is_named_once(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("s = 0.0\nfor i in range(100):\n    s += i * 0.1\nprint(repr(s))\n"
                      "t = 0.0\nfor i in range(100):\n    t += i * 0.2\nprint(repr(t))\n")
    result = run_megaguards("run", script, env={"MEGAGUARDS_STRICT": "0"})
    expected = subprocess.run([sys.executable, script], capture_output=True, text=True).stdout
    assert result.stdout == expected
    assert result.stderr.count("MEGAGUARDS_STRICT is retired and ignored") == 1, result.stderr
