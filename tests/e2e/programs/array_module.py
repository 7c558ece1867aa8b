# expect: compiled
"""array.array of doubles and of 64-bit ints (scimark keeps its grids in them): indexed in
place like lists of Python numbers, copied in and out of the compiled loop in one memcpy
each.  Other typecodes, a store that would convert (an int into array('d')), an int past
int64 and iterating the array itself stay in CPython, whose results and errors are the
program's."""
import math
from array import array


def scale(a, x, n):
    for i in range(n):  # mg: compiled
        a[i] = a[i] * x + 1.0
    return a


def dot(a, b):
    s = 0.0
    for i in range(len(a)):  # mg: compiled
        s += a[i] * b[i]
    return s


def counts(c, n):
    for i in range(n):
        c[i] = c[i] * 3 + i
    return c


def successive_over_relaxation(grid, n, omega, sweeps):
    for sweep in range(sweeps):  # mg: compiled
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                grid[i * n + j] = omega * 0.25 * (grid[(i - 1) * n + j] + grid[(i + 1) * n + j] + grid[i * n + j - 1]
                                                  + grid[i * n + j + 1]) + (1.0 - omega) * grid[i * n + j]
    return grid


def store_int(b):
    for i in range(len(b)):  # mg: fallback "storing int into the array.array 'b'"
        b[i] = 3
    return b


def narrow(c, n):
    for i in range(n):  # mg: fallback "typecode 'i'"
        c[i] = c[i] + 1
    return c


a = array("d", [i * 0.5 for i in range(1000)])
print(scale(a, 2.0, 1000)[:3], type(a[0]).__name__)
print(dot(a, array("d", [1.0] * 1000)), dot(array("d"), array("d")))
print(counts(array("q", range(10)), 10), counts(array("l", range(10)), 10))
n = 30
grid = array("d", [math.sin(i) for i in range(n * n)])
print(repr(sum(successive_over_relaxation(grid, n, 1.25, 4))))
try:
    print(counts(array("q", [2**62, 1]), 2))
except OverflowError as error:
    print("OverflowError:", error)
print(store_int(array("d", [1.0, 2.0])), narrow(array("i", range(5)), 5))
total = 0.0
for value in array("d", [0.5, 1.5]):
    total += value
print(total)
