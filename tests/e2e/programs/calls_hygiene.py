# expect: compiled
"""Inlined helpers keep their own names: locals named like the caller's variables,
parameters reassigned inside the helper, the same helper twice in one expression,
helpers reading globals that change between calls, results typed as in CPython."""
import numpy

OFFSET = 1.5


def reassigns(x, i):
    x = x * 2.0   # rebinding a parameter must not touch the caller's x
    i = i + 100   # nor the caller's loop variable
    total = x + i
    return total


def uses_offset(x):
    return x + OFFSET


def count_up(n):
    total = 0
    for i in range(n):
        total += i
    return total


def is_big(x):
    return x > 2.0


def element(a, i):
    return a[i]


def index_of(i, n):
    return (i * 3) % n


def caller(xs):
    total = 0.0
    x = -1.0
    for i in range(len(xs)):  # mg: compiled
        total += reassigns(xs[i], i) + x
        x = xs[i]
    return total, x, i


def twice_in_one_expression(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: compiled
        out[i] = uses_offset(xs[i]) * uses_offset(i) - uses_offset(uses_offset(xs[i]))
    return out


def nested_loop_names(n):
    out = [0] * n
    for i in range(n):  # mg: compiled
        out[i] = count_up(i) + count_up(n - i)
    return out


def conditions(xs):
    big = 0
    for i in range(len(xs)):  # mg: compiled
        if is_big(xs[i]) and not is_big(-xs[i]):
            big += 1
    return big


def numpy_elements(a):
    total = 0.0
    for i in range(a.shape[0]):  # mg: compiled
        total += element(a, i)
    return total


def permuted(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: compiled
        out[index_of(i, len(xs))] = xs[i]
    return out


xs = [0.5 * k - 1.0 for k in range(10)]
print(repr(caller(xs)))
print(repr(twice_in_one_expression(xs)))
OFFSET = -2.25
print(repr(twice_in_one_expression(xs)))
OFFSET = 3  # an int now: the result types follow
print(repr(twice_in_one_expression(xs)))
print(repr(nested_loop_names(9)))
print(repr(conditions(xs)))
total = numpy_elements(numpy.linspace(0.0, 1.0, 7))
print(repr(total), type(total).__name__)
total = numpy_elements(numpy.arange(5, dtype=numpy.int32))
print(repr(total), type(total).__name__)
print(repr(permuted(xs)))
