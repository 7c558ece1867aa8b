# expect: compiled
"""Argument forms at helper call sites: positional-only and keyword-only parameters,
*args and **kwargs helpers, helpers returning None or bool, and int overflow inside
a helper (the loop falls back to Python's big ints)."""


def positional_only(a, b, /, c=1.0):
    return a * b + c


def keyword_only(a, *, scale=2.0, shift=0.0):
    return a * scale + shift


def star_args(*values):
    return values[0] + values[1]


def star_kwargs(a, **options):
    return a + 1.0


def nothing(x):
    x = x + 1.0


def square(v):
    return v * v


def forms(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: compiled
        total += positional_only(xs[i], 2.0) + positional_only(xs[i], xs[i], c=-1.0)
        total += keyword_only(xs[i]) + keyword_only(xs[i], shift=1.0, scale=0.5)
    return total


def with_star_args(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: fallback "*args"
        total += star_args(xs[i], 1.0)
    return total


def with_star_kwargs(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: fallback "**kwargs"
        total += star_kwargs(xs[i], flag=True)
    return total


def uses_none(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: fallback "the value returned by 'nothing'"
        out[i] = nothing(xs[i])
    return out


def overflowing(n):
    value = 3
    for i in range(n):  # mg: compiled
        value = square(value) % 1000003 + square(i)
    return value


def overflowing_big(n):
    value = 3
    for i in range(n):  # mg: fallback "overflow"
        value = square(value) + 1
    return value


xs = [0.25 * k for k in range(8)]
print(repr(forms(xs)))
print(repr(with_star_args(xs)))
print(repr(with_star_kwargs(xs)))
print(repr(uses_none(xs)))
print(repr(overflowing(50)))
print(repr(overflowing_big(7)))
