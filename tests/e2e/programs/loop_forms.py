# expect: compiled
"""Element iteration, enumerate, zip, reversed(range) and divmod inside compiled loops:
iteration variables keep Python's values after the loop (unchanged when empty)."""
import numpy


def weighted(xs, ws):
    total = 0.0
    for x in xs:  # mg: compiled
        total += x * x
    for i, x in enumerate(xs):  # mg: compiled
        total += i * x
    for k, w in enumerate(ws, 1):  # mg: compiled
        total -= k * w
    for x, w in zip(xs, ws):  # mg: compiled
        total += x * w
    return total, x, w, k


xs = [0.5 * k - 3.0 for k in range(40)]
ws = [1.0 / (k + 1) for k in range(25)]
print(repr(weighted(xs, ws)))
print(repr(weighted(numpy.array(xs), numpy.array(ws))))


def countdown(values, n):
    last = -1
    out = 0
    for i in reversed(range(n)):  # mg: compiled
        out = (out * 3 + values[i]) % 1000003
        last = i
    for j in reversed(range(2, n, 3)):  # mg: compiled
        out += j
    return out, last, i, j


print(repr(countdown(list(range(100, 160)), 50)))


def digits(values):
    quotients = 0
    remainders = 0
    for v in values:  # mg: compiled
        q, r = divmod(v, 10)
        quotients += q
        remainders = remainders * 2 + r
    return quotients, remainders, q, r


print(repr(digits([123, -45, 6, 7890, -1])))
print(repr(digits([1.5, -2.25, 1e300, -0.0])))


def untouched(values):
    x = "before"
    for x in values:  # mg: compiled
        pass
    return x


print(repr(untouched([])), repr(untouched([1.5, 2.5])))
