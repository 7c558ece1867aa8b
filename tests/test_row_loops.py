"""``for row in table`` at a site's own level: the row is read (and written) in place as
``table[k]``, passed to inlined functions as a row, and after the run its name holds the last
row, as CPython's loop leaves it.  Differential: plainly and through megaguards.jit."""
from conftest import assert_same_as_cpython, site_for


def weighted(row, weights):
    total = 0.0
    for j in range(len(row)):
        total += row[j] * weights[j]
    return total


def scores(table, weights):
    out = []
    for row in table:
        out.append(weighted(row, weights))
    return out


def last(table):
    total = 0.0
    for row in table:
        total += row[0] * len(row)
    return total, row


def scale(table, factor):
    for row in table:
        for j in range(len(row)):
            row[j] = row[j] * factor
    return table


TABLE = [[float((i * 7 + j * 3) % 5) for j in range(6)] for i in range(5)]


def test_rows_passed_to_a_helper_compile():
    assert_same_as_cpython(scores, TABLE, [0.5, 1.0, 0.25, 2.0, 1.5, 0.75])


def test_the_name_holds_the_last_row_after_the_loop():
    fast = assert_same_as_cpython(last, TABLE)
    assert fast(TABLE)[1] is TABLE[-1]   # the row object itself, as in CPython


def test_an_empty_table_leaves_the_name_unbound_as_cpython_does():
    assert_same_as_cpython(last, [], compiled=None)


def test_rows_written_in_place():
    assert_same_as_cpython(scale, [list(row) for row in TABLE], 0.5)


def test_a_row_used_as_a_value_runs_in_cpython():
    def collect(table, out):
        for row in table:
            out.append(row[0])
            kept = row
        return out, kept
    assert_same_as_cpython(collect, TABLE, [], compiled=False)


def test_a_loop_that_breaks_keeps_its_rows_in_cpython():
    def first_negative(table):
        found = -1.0
        for row in table:
            if row[0] < 0:
                found = row[1]
                break
        return found
    fast = assert_same_as_cpython(first_negative, [[1.0, 2.0], [-1.0, 5.0]], compiled=False)
    reasons = " ".join(r for site in site_for(fast) for r in site["reasons"])
    assert "partial indexing" in reasons


def test_enumerated_rows_are_read_in_place_too():
    def weighted_rows(table):
        total = 0.0
        for i, row in enumerate(table, 1):
            total += i * row[len(row) - 1]
        return total, i, row
    fast = assert_same_as_cpython(weighted_rows, TABLE)
    assert fast(TABLE)[2] is TABLE[-1]
