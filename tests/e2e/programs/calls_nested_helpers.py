# expect: compiled
"""Helpers calling helpers: f calls g calls h, with math inside."""
import math


def inner(x):
    return x * 0.5 + 1.0


def middle(x, y):
    return inner(x) * inner(y) - math.exp(-x * x)


def outer(x, y, z):
    return middle(x, y) + middle(y, z) * 0.25 + inner(z)


def smooth(xs):
    out = [0.0] * len(xs)
    n = len(xs)
    for i in range(n):  # mg: compiled
        out[i] = outer(xs[i - 1], xs[i], xs[(i + 1) % n])
    return out


def twice(x):
    return inner(inner(x))


def chain(n):
    total = 0.0
    for i in range(n):  # mg: compiled
        total += twice(i * 0.125) - middle(twice(1.0), i)
    return total


xs = [math.sin(k * 0.7) for k in range(11)]
print(repr(smooth(xs)))
print(repr(chain(20)))
