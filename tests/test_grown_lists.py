"""Lists a loop appends to and indexes (``fib.append(fib[i - 1] + fib[i - 2])``): grown in place
(frontend/appends.py grows_in_place, codegen/array_statements.py seed_grown, marshal.c's
check that the list is no other array's): the kernel indexes the list's growing buffer, its
length the buffer's, and CPython's answers stay, errors and partial state included."""
from __future__ import annotations

import ast

import pytest
from conftest import assert_same_as_cpython, sites_of

from megaguards.errors import Unsupported
from megaguards.frontend.lower import lower_loop
from megaguards.ir import nodes as ir


def fibonacci(n):
    table = [0, 1]
    for i in range(2, n):
        table.append(table[i - 1] + table[i - 2])
    return table


def halves(start, n):
    table = [start]
    for _ in range(n):
        table.append(table[-1] * 0.5 + len(table))
    return table


def allocated_then_filled(n):
    out = [1]
    for i in range(1, n):
        out.extend([0, 0])
        out[2 * i - 1] = out[i - 1] * 3 % 1000003
        out[-1] = -out[2 * i - 1]
    return out


def reads_ahead(n):
    out = [1, 2]
    for i in range(n):
        out.append(out[i + 2] if i % 5 == 4 else out[i] + 1)   # out[i + 2] is not there yet at i = 4
    return out


def until_long(n):
    seen = [3]
    for i in range(2 * n):
        if len(seen) < n:
            seen.append(seen[i // 2] * 2 % 17 + len(seen))
    return seen


def primes_below(n, first):
    primes, start = list(first), first[-1] + 1 if first else 2
    for candidate in range(start, n):
        prime = True
        for p in primes:
            if p * p > candidate:
                break
            if candidate % p == 0:
                prime = False
                break
        if prime:
            primes.append(candidate)
    return primes


def running_means(values):
    means = []
    for i in range(len(values)):
        means.append((means[-1] * i + values[i]) / (i + 1) if len(means) > 0 else values[i] * 1.0)
    return means


def twice_named(a, n, other=None):
    b = a if other is None else other
    for i in range(n):
        a.append(a[-1] + b[-1])
    return a


def grow(table, values):
    for v in values:
        table.append(table[-1] + v)
    return table


def lowered(source: str) -> ir.Loop:
    return lower_loop(ast.parse(source).body[0])


@pytest.mark.parametrize("function, arguments", [
    (fibonacci, (80,)),
    (halves, (3.0, 40)),
    (allocated_then_filled, (60,)),
    (until_long, (50,)),
    (primes_below, (3000, [2])),
])
def test_a_list_grows_in_place_and_is_read_back(function, arguments):
    fast = assert_same_as_cpython(function, *arguments)
    records = sites_of(fast)
    assert records[0]["compiled_runs"] and records[0]["backend"] == "c-seq", records
    assert any("indexes it: one core" in reason for reason in records[0]["reasons"]), records


@pytest.mark.parametrize("function, arguments, element", [
    (primes_below, (2000, []), int), (running_means, ([float(k % 7) for k in range(30)],), float)])
def test_a_list_empty_at_entry_takes_the_class_of_its_values(function, arguments, element):
    fast = assert_same_as_cpython(function, *arguments)
    assert sites_of(fast)[0]["compiled_runs"], sites_of(fast)
    assert {type(value) for value in fast(*arguments)} == {element}


def test_an_index_past_the_end_raises_as_in_cpython():
    assert_same_as_cpython(reads_ahead, 20, compiled=None)


def test_ints_past_64_bits_are_cpythons():
    """fib(100) overflows int64: the kernel's flag sends the entry to CPython, whose ints grow."""
    assert_same_as_cpython(fibonacci, 100, compiled=None)


def test_values_of_another_class_stay_in_cpython():
    assert_same_as_cpython(grow, [1, 2], [0.5, 1.5], compiled="where its elements are")
    assert_same_as_cpython(grow, [1.5, 2.5], [1, 2, 3])   # float + int: floats, as the list holds


def test_the_list_under_a_second_name_stays_in_cpython():
    """``a`` grows, ``b`` is the same list: b's reads would not see a's new elements."""
    fast = assert_same_as_cpython(twice_named, [1, 2], 10, compiled=None)
    assert not sum(record["compiled_runs"] for record in sites_of(fast))
    assert_same_as_cpython(twice_named, [1, 2], 10, [5])   # two lists: compiled


def test_which_lists_grow_in_place():
    assert ir.grown_lists(lowered("for i in range(n):\n    f.append(f[i] + 1)\n")) == {"f"}
    assert ir.grown_lists(lowered("for i in range(n):\n    f.append(g[i] + 1)\n")) == frozenset()
    assert ir.grown_lists(lowered("for i in range(n):\n    if len(f) < n:\n        f.append(1)\n")) == {"f"}


@pytest.mark.parametrize("source, reason", [
    ("for x in f:\n    f.append(x)\n", "the loop over 'f' appends to it"),
    ("for i in range(n):\n    for x in f:\n        f.append(x + i)\n", "the loop over 'f' appends to it"),
    ("for i in range(n):\n    f.append(f[i])\n    f = g\n", "used both as an array and as a scalar"),
    ("for i in range(n):\n    f.append(f[i] + g[i])\n    f, g = g, f\n", "is appended to and also used otherwise"),
    ("for i in range(n):\n    f.append(f[i][0])\n", "is appended to and also used otherwise"),
])
def test_lists_that_cannot_grow_in_place(source, reason):
    with pytest.raises(Unsupported, match=reason):
        lowered(source)
