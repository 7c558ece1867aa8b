# expect: compiled
"""floor, ceil, trunc (ints), fabs, fmod, copysign (floats)."""
import math


def rounding(xs, ints, floats):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        ints[3 * i] = math.floor(x)
        ints[3 * i + 1] = math.ceil(x)
        ints[3 * i + 2] = math.trunc(x)
        floats[4 * i] = math.fabs(x)
        floats[4 * i + 1] = math.fmod(x, 2.5)
        floats[4 * i + 2] = math.fmod(x, -0.75)
        floats[4 * i + 3] = math.copysign(3.0, x)


xs = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.999999, -2.000001, 1e10 + 0.5, -7.0, 7.25]
ints = [0] * (3 * len(xs))
floats = [0.0] * (4 * len(xs))
rounding(xs, ints, floats)
print(repr(ints))
print(repr(floats))

s = 0
for i in range(-10, 10):  # mg: compiled
    s += math.floor(i / 3) + math.ceil(i / 3) + math.trunc(i / 3) + math.floor(i) + math.trunc(True)
print(repr(s))
