# expect: compiled
"""The sign bit of NaN results (visible through math.copysign): the C compiler
must not rewrite x * -1.0 as -x, which flips a NaN's sign where the hardware
multiplication keeps it."""
import math


def signs(vals, out):
    for i in range(len(vals)):  # mg: compiled
        x = vals[i] - vals[i]
        out[4 * i] = math.copysign(1.0, x)
        out[4 * i + 1] = math.copysign(1.0, x * -1.0)
        out[4 * i + 2] = math.copysign(1.0, -x)
        out[4 * i + 3] = math.copysign(1.0, x * 2.0)


vals = [float("inf"), float("-inf"), 1.5]
out = [0.0] * 12
signs(vals, out)
print(repr(out))
