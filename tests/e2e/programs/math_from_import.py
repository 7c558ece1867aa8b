# expect: compiled
"""Functions imported by name: from math import sqrt, ..."""
from math import sqrt, exp, log, sin, cos, floor, ceil, pi, e, inf, fabs, copysign, atan2
from math import log10 as lg


def distances(xs, ys, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = sqrt(xs[i] * xs[i] + ys[i] * ys[i])


def mix(n):
    acc = 0.0
    lo = inf
    for i in range(n):  # mg: compiled
        t = i * pi / n
        v = sin(t) * cos(t) + exp(-t) - log(t + e) + lg(t + 1.0)
        acc += v
        lo = min(lo, v)
        acc += floor(v * 100.0) - ceil(v * 100.0) + fabs(copysign(v, -1.0)) + atan2(v, 1.0)
    return acc, lo


xs = [3.0, 5.0, 0.0, 1.5, -2.0]
ys = [4.0, 12.0, 0.0, 2.0, -0.5]
out = [0.0] * 5
distances(xs, ys, out)
print(repr(out))
print(repr(mix(30)))
print(repr(mix(7)))
