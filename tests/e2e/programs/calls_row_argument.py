# expect: compiled
"""Helpers receiving one row of a 2-D list or NumPy array (rows[i]) as their argument."""
import numpy


def first_index_above(xs, limit):
    for k in range(len(xs)):
        if xs[k] > limit:
            return k
    return -1


def row_sum(row):
    total = 0.0
    for k in range(len(row)):
        total += row[k]
    return total


def thresholds(rows, limits):
    found = [0] * len(rows)
    for i in range(len(rows)):  # mg: compiled
        found[i] = first_index_above(rows[i], limits[i])
    return found


def sums(rows, out):
    for i in range(len(rows)):  # mg: compiled
        out[i] = row_sum(rows[i])


rows = [[float((i * 7 + j * 3) % 10) for j in range(6)] for i in range(5)]
print(repr(thresholds(rows, [5.0, 8.5, 9.0, 100.0, 0.5])))
out = [0.0] * 5
sums(rows, out)
print(repr(out))
grid = numpy.arange(20.0).reshape(4, 5) * 0.5
totals = numpy.zeros(4)
sums(grid, totals)
print(repr(totals.tolist()))
