# expect: compiled
"""Conditional expressions whose branches are an int and a float, used where the
result's type does not have to be stable (comparisons, truth tests, stores)."""
import numpy as np


def compare(xs):
    r = False
    for i in range(len(xs)):  # mg: compiled
        r = (0.5 if xs[i] else 0) > 0
    return r


def store(xs, out):
    for i in range(len(xs)):  # mg: fallback
        out[i] = 0.5 if xs[i] > 0 else 1


def truth(xs):
    n = 0
    for i in range(len(xs)):  # mg: compiled
        if (0.25 if xs[i] else 3):
            n += 1
    return n


def negate(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = -(0.0 if xs[i] else 5) * 1.0


print(repr(compare([1, 1])))
out = np.zeros(3)
store([1, -1, 2], out)
print(out.tolist())
print(repr(truth([1, 0, 1])))
out2 = np.zeros(2)
negate([1, 0], out2)
print(out2.tolist(), [np.copysign(1.0, v) for v in out2.tolist()])
