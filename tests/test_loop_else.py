"""``for ... else`` and ``while ... else`` inside a compiled loop: a flag the loop's own
``break``s set, the ``else`` block run when it is not set, as in CPython.  Differential."""
import pytest

from conftest import assert_same_as_cpython


def count_primes(n, found):
    for k in range(2, n):
        for d in range(2, k):
            if k % d == 0:
                break
        else:
            found[k] = 1
    return found


def first_rows_without(table, rows, cols, value, marks):
    for i in range(rows):
        for j in range(cols):
            if table[i][j] == value:
                marks[i] = j
                break
        else:
            marks[i] = -1
            if i > 2:
                continue
        marks[i] += 100
    return marks


def nested_else_breaks_outer(a, n, out):
    for i in range(n):
        for step in range(3):
            for j in range(n):
                if a[j] == i + step:
                    break
            else:
                out[i] = step   # an inner loop without a match: this loop's break
                break
        else:
            out[i] = -5
    return out


def halvings(values, n, out):
    for i in range(n):
        v = values[i]
        count = 0
        while v > 1:
            if v % 7 == 0:
                break
            v = v // 2
            count += 1
        else:
            count += 1000
        out[i] = count
    return out


def test_a_prime_sieve_by_trial_division_compiles():
    assert_same_as_cpython(count_primes, 40, [0] * 40)


@pytest.mark.parametrize("value", [3, 99])
def test_the_else_block_runs_when_the_inner_loop_did_not_break(value):
    table = [[(i * 5 + j * 3) % 11 for j in range(6)] for i in range(7)]
    assert_same_as_cpython(first_rows_without, table, 7, 6, value, [0] * 7)


def test_a_break_in_a_nested_loops_else_leaves_the_loop_that_holds_it():
    assert_same_as_cpython(nested_else_breaks_outer, [0, 2, 3, 7, 8], 5, [0] * 5)


def test_while_else():
    assert_same_as_cpython(halvings, [1, 14, 64, 35, 100, 3], 6, [0] * 6)


def test_an_outermost_for_else_compiles_inside_a_one_trip_loop():
    def search(a, n):
        found = -1
        for i in range(n):
            if a[i] < 0:
                found = i
                break
        else:
            found = n
        return found
    assert_same_as_cpython(search, [1, 2, -3], 3, compiled=True)
    assert_same_as_cpython(search, [1, 2, 3], 3, compiled=True)
    assert_same_as_cpython(search, [5], 0, compiled=True)   # no trip: the else runs, i stays unbound
