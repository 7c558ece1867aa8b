# expect: compiled
"""Loop targets that unpack rows (``for x, y in pairs``), over lists of tuples or of lists
and 2-D NumPy arrays, with enumerate and zip: compiled, each name bound to its element of
the row.  Rows of another length than the target's, ragged rows, and tuple rows the loop
would write stay in CPython, which raises its own ValueError or TypeError."""
import numpy


def weighted(pairs):
    total = 0.0
    for value, weight in pairs:  # mg: compiled
        total += value * weight
    return total, value, weight


def centroid(points, weights):
    sx = sy = mass = 0.0
    for (x, y), w in zip(points, weights):  # mg: compiled
        sx += x * w
        sy += y * w
        mass += w
    return sx / mass, sy / mass


def spread(pairs, out):
    for k, (low, high) in enumerate(pairs):  # mg: compiled
        out[k] = high - low
    return out


def bounding(points):
    lowest, highest = points[0][1], points[0][1]
    for x, y in points:  # mg: compiled
        if y < lowest:
            lowest = y
        if y > highest:
            highest = y
    return lowest, highest


def unpack_three(rows):
    total = 0
    for a, b in rows:  # mg: fallback "hold 3 values where the loop unpacks 2"
        total += a - b
    return total


def shifted(rows, out):
    for k, (a, b) in enumerate(rows):  # mg: fallback
        out[k] = a * 10 + b
    return out


def overwrite(rows, n):
    for i in range(n):  # mg: fallback
        rows[i][0] = rows[i][1] * 2
    return rows


pairs = [(1.5 * i, (i % 4) * 0.25) for i in range(200)]
print(weighted(pairs))
print(weighted([[i, i + 1] for i in range(50)]))
points = [((i * 7) % 11 * 0.5, (i * 3) % 5 * 1.25) for i in range(120)]
print(centroid(points, [1.0 + (i % 3) for i in range(120)]))
print(spread([(i, i * i) for i in range(30)], [0] * 30)[-5:])
print(bounding(points))
print(bounding(numpy.arange(40.0).reshape(20, 2)))
print(weighted(numpy.array([[1, 2], [3, 4], [5, 6]], dtype=numpy.int64)))
for rows in ([(1, 2, 3)] * 4, [(1, 2)] * 3 + [(3, 4, 5)] + [(6, 7)] * 3):
    try:
        print(unpack_three(rows))
    except ValueError as error:
        print("ValueError:", error)
out = [0] * 6
try:
    shifted([(1, 2), (3, 4), (5,), (7, 8), (9, 1), (2, 3)], out)
except ValueError as error:
    print("ValueError:", error, out)
lists_then_tuple = [[1, 2], [3, 4], (5, 6), [7, 8]]
try:
    overwrite(lists_then_tuple, 4)
except TypeError as error:
    print("TypeError:", error, lists_then_tuple)
