# expect: compiled
"""inf and nan flowing through arithmetic that Python allows."""
import math


def special(xs, out):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        out[5 * i] = x + 1.0
        out[5 * i + 1] = x * 0.0 if x == x else -x
        out[5 * i + 2] = x - x
        out[5 * i + 3] = 1.0 / (x if x != 0 else 1.0)
        out[5 * i + 4] = max(x, 0.0) - min(x, 0.0)


xs = [math.inf, -math.inf, math.nan, 0.0, 1e308, -1e308, 5e-324]
out = [0.0] * (5 * len(xs))
special(xs, out)
print(repr(out))

s = 0.0
for i in range(10):  # mg: compiled
    s += 1e308
print(repr(s))
nans = 0
vals = [math.nan, 1.0, math.inf, -math.nan]
for i in range(4):  # mg: compiled
    if vals[i] != vals[i]:
        nans += 1
    if not (vals[i] < 0 or vals[i] >= 0):
        nans += 10
print(repr(nans))
