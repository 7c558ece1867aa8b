# expect: compiled
"""array.array of every numeric typecode (scimark keeps its grids in 'd' ones) and 1-D
memoryviews: indexed in place like lists of Python numbers, copied in and out of the
compiled loop (narrower items converted, each store rounded to float32 or checked against
the item's range).  A store that would convert (an int into array('d')), an int past int64
or past a narrow item's range and iterating the array itself stay in CPython, whose results
and errors are the program's."""
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
    for i in range(n):  # mg: compiled
        c[i] = c[i] + 1
    return c


def blend(pixels, weights, n):
    view = memoryview(pixels)
    for i in range(n):  # mg: compiled
        view[i] = int(view[i] * weights[i])
    return pixels


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
print(narrow(array("f", [0.1, 0.2]), 2), narrow(array("B", [7, 8]), 2))
try:
    narrow(array("h", [1, 32767, 3]), 3)
except OverflowError as error:
    print("OverflowError:", error)
print(list(blend(bytearray(range(0, 250, 25)), array("f", [0.5 + i / 40 for i in range(10)]), 10)))
try:
    blend(bytearray([200, 200]), array("f", [1.0, 1.5]), 2)
except ValueError as error:
    print("ValueError:", error)
total = 0.0
for value in array("d", [0.5, 1.5]):
    total += value
print(total)
