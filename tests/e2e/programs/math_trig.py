# expect: compiled
"""Trigonometric and hyperbolic functions."""
import math


def trig(n, out):
    for i in range(n):  # mg: compiled
        x = (i - n / 2) / (n / 2)
        out[10 * i] = math.sin(x * 3.0)
        out[10 * i + 1] = math.cos(x * 3.0)
        out[10 * i + 2] = math.tan(x)
        out[10 * i + 3] = math.asin(x * 0.999)
        out[10 * i + 4] = math.acos(x * 0.999)
        out[10 * i + 5] = math.atan(x * 100.0)
        out[10 * i + 6] = math.atan2(x, x - 0.5)
        out[10 * i + 7] = math.sinh(x * 5.0)
        out[10 * i + 8] = math.cosh(x * 5.0)
        out[10 * i + 9] = math.tanh(x * 5.0)


n = 21
out = [0.0] * (10 * n)
trig(n, out)
print(repr(out))

ident = 0.0
for i in range(100):  # mg: compiled
    t = i * 0.1
    ident += math.sin(t) ** 2 + math.cos(t) ** 2 - 1.0 + math.atan2(-0.0, -1.0) + math.atan2(0.0, -1.0)
print(repr(ident))
