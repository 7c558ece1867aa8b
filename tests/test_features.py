"""Loop features (analysis/features.py): a loop whose range moves with an enclosing loop's
variable counts its average trips, not the hull of its range that the prologue checks."""
from __future__ import annotations

import math

import numpy
import pytest

import megaguards
from conftest import choices_of
from megaguards.analysis import features
from megaguards.ir import nodes as ir
from megaguards.runtime import pipeline, plans


def last_features(function):
    [choice] = choices_of(function)
    return choice.last["features"]


def upper_triangle(a, b, n):
    for i in range(n):
        for j in range(i, n):
            b[i, j] = a[i, j] * 2.0


def lower_triangle(a, b, n):
    for i in range(n):
        for j in range(i + 1):
            b[i, j] = a[i, j] * 2.0


def window_sums(a, b, n):
    for i in range(1, n - 1):
        total = 0.0
        for k in range(i - 1, i + 2):
            total += a[k]
        b[i] = total


def halves(a, b, n):
    for i in range(n):
        for j in range(i // 2):
            b[i, j] = a[i, j]


@pytest.mark.parametrize("kernel", [upper_triangle, lower_triangle])
def test_a_triangular_nest_counts_its_triangle(auto, kernel):
    n = 30
    a, b = numpy.ones((n, n)), numpy.zeros((n, n))
    function = megaguards.jit(kernel)
    function(a, b, n)
    expected = numpy.zeros((n, n))
    kernel(a, expected, n)
    assert (b == expected).all()
    found = last_features(function)
    assert found.counts["store"] == pytest.approx(n * (n + 1) / 2)   # the hull would count n * n


def test_a_sliding_window_counts_its_width(auto):
    n = 50
    a, b = numpy.arange(n, dtype=float), numpy.zeros(n)
    function = megaguards.jit(window_sums)
    function(a, b, n)
    assert b[1] == 3.0 and b[n - 2] == a[n - 3:].sum()
    found = last_features(function)
    assert found.parallel_trips == n - 2
    assert found.inner_trips == pytest.approx(3)   # the hull of k is n values
    assert found.counts["load"] == pytest.approx(3 * (n - 2))


def test_a_range_not_affine_in_the_outer_variable_keeps_its_hull(auto):
    n = 20
    a, b = numpy.ones((n, n)), numpy.zeros((n, n))
    function = megaguards.jit(halves)
    function(a, b, n)
    assert b.sum() == sum(i // 2 for i in range(n))
    found = last_features(function)
    assert found.counts["store"] == n * ((n - 1) // 2)   # the hull of j: 0 .. (n - 1) // 2 - 1


def test_coefficients_of_affine_bounds():
    i, n = ir.Name("i"), ir.Name("n")
    one, two = ir.Const(1), ir.Const(2)
    assert features.coefficient(n, "i") == 0
    assert features.coefficient(ir.BinOp("+", i, one), "i") == 1
    assert features.coefficient(ir.BinOp("-", n, i), "i") == -1
    assert features.coefficient(ir.BinOp("*", two, ir.BinOp("-", i, one)), "i") == 2
    assert features.coefficient(ir.UnaryOp("-", i), "i") == -1
    assert features.coefficient(ir.BinOp("*", i, i), "i") is None
    assert features.coefficient(ir.BinOp("//", i, two), "i") is None


def mixed(a, b, n):
    for i in range(1, n):
        if a[i] > 0.5:
            for j in range(i, n):
                b[i, j] = math.sqrt(a[j]) + a[i]
        else:
            k = 0
            while k < 3:
                b[i, k] = -a[k]
                k += 1


def test_a_second_process_reads_the_template_with_the_plan(auto, monkeypatch):
    """The template is stored with the parallel plan (runtime/plans.py), by loop position:
    read back into a loop lowered afresh, it gives the same features, with no walk."""
    n = 24
    a = numpy.linspace(0.0, 1.0, n)
    runs = []
    for _ in range(2):   # a fresh jit lowers the loop afresh: new nodes, new ids
        b = numpy.zeros((n, n))
        function = megaguards.jit(mixed)
        function(a, b, n)
        runs.append((b, last_features(function)))
        monkeypatch.setattr(pipeline, "loop_template", refuse)
        monkeypatch.setattr(plans, "loop_template", refuse)
    expected = numpy.zeros((n, n))
    mixed(a, expected, n)
    assert all((b == expected).all() for b, _ in runs)
    (_, computed), (_, read) = runs
    assert read == computed and computed.counts["transcendental"] > 0 and computed.parallel_trips == n - 1


def refuse(*args):
    raise AssertionError("the template was computed, not read from the plan's cache")


def reference_evaluate(template, trips, band_trips=0, launches=0, bytes_moved=0, list_elements=0):
    """``features.evaluate`` as first written (plain loops): the sums by ``map`` must give the
    very same floats, or the tree's thresholds could fall differently."""
    by_id = {loop.loop: loop for loop in template.loops}
    trips = features.average_trips(template, trips)
    iterations, counts = {}, dict.fromkeys(features.KINDS, 0.0)
    for loop in template.loops:
        outer = iterations.get(loop.parent, 1.0) if loop.parent is not None else 1.0
        iterations[loop.loop] = outer * trips.get(loop.loop, features.UNKNOWN_TRIPS)
        for kind, count in zip(features.KINDS, loop.counts):
            counts[kind] += count * iterations[loop.loop]
    work = sum(features.WEIGHTS[kind] * value for kind, value in counts.items())
    parallel_trips = parallel_entries = 0
    inner = 0.0
    if template.outer_parallel is not None:
        parallel_trips = int(round(trips.get(template.outer_parallel, features.UNKNOWN_TRIPS)))
        parent = by_id[template.outer_parallel].parent
        parallel_entries = int(iterations.get(parent, 1.0)) if parent is not None else 1

        def inside(loop):
            parent = loop.parent
            while parent is not None:
                if parent == template.outer_parallel:
                    return True
                parent = by_id[parent].parent
            return False

        inner = max((iterations[loop.loop] / max(1.0, iterations[template.outer_parallel])
                     for loop in template.loops if inside(loop)), default=1.0)
    return features.Features(work, counts, parallel_trips, parallel_entries, band_trips, launches, inner,
                             bytes_moved, list_elements, template.coalesced)


def random_template(generator) -> features.LoopTemplate:
    """A nest of up to 7 loops in preorder, some parallel, some narrowing with an enclosing loop."""
    loops, parents = [], []
    for number in range(int(generator.integers(1, 8))):
        parent = None if number == 0 or generator.random() < 0.2 else int(generator.integers(0, number))
        enclosing, outer = [], parent
        while outer is not None:
            enclosing.append(outer)
            outer = parents[outer]
        parents.append(parent)
        narrowing = tuple((100 + outer, int(generator.integers(1, 3)), int(generator.integers(1, 3)))
                          for outer in enclosing if generator.random() < 0.3)
        counts = tuple(int(c) for c in generator.integers(0, 50, len(features.KINDS)))
        loops.append(features.LoopCost(100 + number, None if parent is None else 100 + parent, counts,
                                       bool(generator.random() < 0.4), int(generator.integers(1, 4)), narrowing))
    loops = sorted(loops, key=lambda loop: preorder(loop, loops))
    parallel = [loop.loop for loop in loops if loop.parallel]
    return features.LoopTemplate(tuple(loops), parallel[0] if parallel else None, float(generator.random()))


def preorder(loop, loops) -> tuple:
    by_id = {other.loop: other for other in loops}
    path = [loop.loop]
    while by_id[path[-1]].parent is not None:
        path.append(by_id[path[-1]].parent)
    return tuple(reversed(path))


def test_evaluate_gives_the_same_floats_as_plain_loops():
    generator = numpy.random.default_rng(8)
    for _ in range(400):
        template = random_template(generator)
        trips = {loop.loop: int(generator.integers(0, 10 ** int(generator.integers(1, 7))))
                 for loop in template.loops if generator.random() < 0.85}   # the rest: unknown trips
        arguments = (template, trips, int(generator.integers(0, 99)), int(generator.integers(0, 9)), 4096, 17)
        assert features.evaluate(*arguments) == reference_evaluate(*arguments)


def mixed_live_ins(grid, a, b, n, scale, flag):
    for i in range(1, n - 1):
        for j in range(2):
            b[i] = b[i] + a[i - 1] * scale + grid[i][j] + (1.0 if flag else 0.0)


def test_the_prologue_fills_the_banks_in_c_as_from_python(auto, monkeypatch):
    """The features' prologue runs through the C helper (mg_prologue); the Python filling it
    replaced (still used for CuPy arrays) must leave the same dims, scalars and ranges."""
    from megaguards.runtime.kernel import Specialization

    calls = []
    original = Specialization.prologue
    monkeypatch.setattr(Specialization, "prologue", lambda self, binding: calls.append((self, binding))
                        or original(self, binding))
    grid = [[float(i + j) for j in range(3)] for i in range(40)]
    a, b = numpy.arange(40.0), numpy.zeros(40)
    function = megaguards.jit(mixed_live_ins)
    function(grid, a, b, 37, 0.5, True)
    [choice] = choices_of(function)
    specialization, binding = calls[0]
    assert specialization.enter_prologue is not None and not binding.on_device
    from_c = [list(bank) for bank in original(specialization, binding)]
    layout = specialization.layout
    for name, rank, is_list in zip(layout.arrays, specialization.ranks, specialization.is_list):
        if is_list:   # the helper also writes a list's strides (as unboxed), which Python leaves at 0
            first = layout.dims[name] + rank
            from_c[0][first:first + rank] = [0] * rank
    monkeypatch.setattr(specialization, "enter_prologue", None)
    from_python = [list(bank) for bank in original(specialization, binding)]
    assert from_c == from_python
    slot = layout.intervals_slot
    hulls = {tuple(from_c[0][slot + 2 + 2 * k:slot + 4 + 2 * k]) for k in range(len(choice.hoisted_loops))}
    assert from_c[0][slot] == 1 and hulls == {(1, 35), (0, 1)}   # the checks passed; i in [1, 35], j in [0, 1]
