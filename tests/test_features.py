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
from megaguards.runtime import backend, plans


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
        monkeypatch.setattr(backend, "loop_template", refuse)
        monkeypatch.setattr(plans, "loop_template", refuse)
    expected = numpy.zeros((n, n))
    mixed(a, expected, n)
    assert all((b == expected).all() for b, _ in runs)
    (_, computed), (_, read) = runs
    assert read == computed and computed.counts["transcendental"] > 0 and computed.parallel_trips == n - 1


def refuse(*args):
    raise AssertionError("the template was computed, not read from the plan's cache")
