# expect: compiled
"""Results that are -0.0 must keep their sign bit."""
import math


def zeros(xs, out):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        out[6 * i] = -x
        out[6 * i + 1] = x * -1.0
        out[6 * i + 2] = x - x if x == x else 0.0
        out[6 * i + 3] = math.copysign(0.0, -x)
        out[6 * i + 4] = (-x) % 3.0
        out[6 * i + 5] = x // -7.0


xs = [0.0, -0.0, 1.0, -1.0, 2.0, -2.5]
out = [1.5] * (6 * len(xs))
zeros(xs, out)
print(repr(out))
print(repr([math.copysign(1.0, v) for v in out]))

prod = 1.0
for i in range(5):  # mg: compiled
    prod *= -0.0 if i == 2 else 1.0
print(repr(prod))
neg = 0.0
for i in range(3):  # mg: compiled
    neg = -neg
print(repr(neg), repr(-0.0 + 0.0), repr(abs(-0.0)))
