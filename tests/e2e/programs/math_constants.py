# expect: compiled
"""math.pi, math.e, math.inf and the classification functions."""
import math


def classify(xs, out):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        out[i] = math.isnan(x) * 1 + math.isinf(x) * 2 + math.isfinite(x) * 4 + (x == math.inf) * 8 + (x == -math.inf) * 16


xs = [0.0, -1.5, math.inf, -math.inf, math.nan, 1e308 * 10.0, 5e-324]
out = [0] * len(xs)
classify(xs, out)
print(repr(out))

circ = [0.0] * 6
for r in range(6):  # mg: compiled
    circ[r] = 2.0 * math.pi * r + math.e ** (r / 3) - math.tau * 0.0
print(repr(circ))

lowest = math.inf
highest = -math.inf
vals = [3.5, -2.0, 7.25, 0.0]
for i in range(len(vals)):  # mg: compiled
    if vals[i] < lowest:
        lowest = vals[i]
    if vals[i] > highest:
        highest = vals[i]
print(repr(lowest), repr(highest), repr(math.isinf(lowest)))
