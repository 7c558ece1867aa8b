# expect: compiled
"""Default arguments and keyword arguments at call sites of helpers inside loops."""


def affine(x, scale=2.0, shift=-1.0):
    return x * scale + shift


def mix(a, b, weight=0.25):
    return a * (1.0 - weight) + b * weight


def with_defaults(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: compiled
        out[i] = affine(xs[i]) + affine(xs[i], 0.5) + affine(xs[i], shift=3.0)
    return out


def with_keywords(xs, ys):
    total = 0.0
    for i in range(len(xs)):  # mg: compiled
        total += mix(b=ys[i], a=xs[i]) - mix(xs[i], ys[i], weight=0.75) + affine(shift=0.5, scale=xs[i], x=ys[i])
    return total


def int_default(n, step=3):
    return n * step


def ints(n):
    out = [0] * n
    for i in range(n):  # mg: compiled
        out[i] = int_default(i) - int_default(i, step=-2)
    return out


xs = [0.125 * k for k in range(9)]
ys = [1.0 - 0.25 * k for k in range(9)]
print(repr(with_defaults(xs)))
print(repr(with_keywords(xs, ys)))
print(repr(ints(8)))
# Defaults are read when the loop runs: changing them between calls changes the result.
affine.__defaults__ = (10.0, 0.0)
print(repr(with_defaults(xs)))
int_default.__defaults__ = (7,)
print(repr(ints(8)))
