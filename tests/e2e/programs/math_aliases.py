# expect: compiled
"""The math module and its functions under other names."""
import math as m
from math import sqrt as root, floor as fl, pi as PI


def f(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = root(abs(xs[i])) + m.sin(xs[i] * PI) + fl(xs[i]) + m.e


xs = [0.25, -4.0, 2.5, 9.0]
out = [0.0] * 4
f(xs, out)
print(repr(out))
total = 0
for i in range(1, 30):  # mg: compiled
    total += fl(m.log(i) * 10) + m.ceil(root(i))
print(repr(total))


def shadowed(xs):
    sqrt = m.cbrt if hasattr(m, "cbrt") else (lambda v: v ** (1 / 3))
    s = 0.0
    for i in range(len(xs)):  # mg: fallback
        s += sqrt(xs[i])
    return s


print(repr(shadowed([8.0, 27.0])))
