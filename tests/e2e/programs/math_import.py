# expect: compiled
"""math.* functions called as attributes of the imported module."""
import math


def apply(xs, out):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        out[8 * i] = math.sqrt(x)
        out[8 * i + 1] = math.exp(-x)
        out[8 * i + 2] = math.log(x + 1.0)
        out[8 * i + 3] = math.log10(x + 0.5)
        out[8 * i + 4] = math.log2(x + 2.0)
        out[8 * i + 5] = math.sin(x) * math.cos(x) - math.tan(x / 4.0)
        out[8 * i + 6] = math.atan2(x, -1.5) + math.atan(x)
        out[8 * i + 7] = math.log(x + 3.0, 2.0) + math.log(100.0, x + 1.5)


xs = [0.0, 0.25, 1.0, 2.0, 3.5, 10.0, 123.456]
out = [0.0] * (8 * len(xs))
apply(xs, out)
print(repr(out))

total = 0.0
for i in range(1, 50):  # mg: compiled
    total += math.sqrt(i) + math.log(i) - math.exp(i / 50) + math.pow(i, 0.5)
print(repr(total))


def ints_in_math(n):
    s = 0.0
    for i in range(1, n):  # mg: compiled
        s += math.sqrt(i) + math.log2(i) + math.log10(i * 7) + math.fabs(-i)
    return s


print(repr(ints_in_math(40)))
