# expect: compiled
"""Reductions inside compiled loops: sum over generators and sequences, min/max,
functools.reduce with a lambda; Python's int 0 for an empty sum, -0.0 added to 0.
Sums of floats compile on 3.12+ too, compensated as CPython's are."""
import functools


def row_sums(A, n, m):
    sums = [0.0] * n
    for i in range(n):  # mg: compiled
        sums[i] = sum(A[i][j] for j in range(m))
    return sums


A = [[(i * 7 + j * 3) % 11 - 5.5 for j in range(30)] for i in range(20)]
print(repr(row_sums(A, 20, 30)))
print(repr(row_sums([[-0.0] * 3, [-0.0, 0.0, -0.0]], 2, 3)))


def stats(rows):
    total = 0.0
    peak = -1.0
    for row in range(len(rows)):  # mg: compiled
        total += sum(rows[row])
        peak = max(peak, max(rows[row]))
    return total, peak


print(repr(stats([[1.5, 2.5], [-3.0, 8.25], [0.0, -0.0]])))


def products(values, n):
    acc = 0
    for i in range(n):  # mg: compiled
        acc += functools.reduce(lambda a, b: a * 3 + b, values, i)
    return acc


print(repr(products([1, 2, 3, 4], 10)))


def empty_sums(values, n):
    s = -1
    for i in range(n):  # mg: compiled
        s = sum(values[j] for j in range(i, 3))
    return s


print(repr(empty_sums([1, 2, 3], 5)), repr(empty_sums([1.0, 2.0, 3.0], 5)))
