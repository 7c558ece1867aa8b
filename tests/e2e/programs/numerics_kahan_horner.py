# expect: compiled
"""Rounding-sensitive numerics: Kahan summation, Horner, Newton, trapezoid rule.
Any reassociation or fused multiply-add would change the printed bits."""
import math


def kahan(xs):
    s = 0.0
    c = 0.0
    for i in range(len(xs)):  # mg: compiled
        y = xs[i] - c
        t = s + y
        c = (t - s) - y
        s = t
    return s, c


def naive(xs):
    s = 0.0
    for i in range(len(xs)):  # mg: compiled
        s += xs[i]
    return s


def horner(coeffs, xs, out):
    for k in range(len(xs)):  # mg: compiled
        acc = 0.0
        for i in range(len(coeffs) - 1, -1, -1):
            acc = acc * xs[k] + coeffs[i]
        out[k] = acc


def newton_sqrt(vals, out):
    for k in range(len(vals)):  # mg: compiled
        x = vals[k] if vals[k] > 1.0 else 1.0
        for it in range(60):
            nx = 0.5 * (x + vals[k] / x)
            if nx == x:
                break
            x = nx
        out[k] = x - math.sqrt(vals[k])


def trapezoid(n):
    h = math.pi / n
    s = 0.5 * (math.sin(0.0) + math.sin(math.pi))
    for i in range(1, n):  # mg: compiled
        s += math.sin(i * h)
    return s * h


xs = [1.0, 1e100, 1.0, -1e100] * 25 + [0.1] * 50 + [1e-16] * 30
print(repr(kahan(xs)), repr(naive(xs)))
coeffs = [1.0, -3.0, 0.5, 2.25, -1.125, 1e-3]
pts = [-2.0, -0.3, 0.0, 0.7, 1.1, 3.3]
out = [0.0] * len(pts)
horner(coeffs, pts, out)
print(repr(out))
vals = [2.0, 10.0, 0.25, 12345.678, 1e-8]
res = [0.0] * len(vals)
newton_sqrt(vals, res)
print(repr(res))
print(repr(trapezoid(100)), repr(trapezoid(7)))
