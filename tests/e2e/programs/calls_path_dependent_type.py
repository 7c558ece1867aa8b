# expect: compiled
"""A helper returning int on one path and float on another: its value is int-or-float in
the kernel, and the list it is stored into holds both, each element of CPython's class."""


def half_or_count(x):
    if x > 2:
        return x / 2
    return 1


def run(xs):
    out = [0] * len(xs)
    for i in range(len(xs)):  # mg: compiled
        out[i] = half_or_count(xs[i])
    return out


def accumulate(xs):
    total = 0
    for i in range(len(xs)):  # mg: compiled
        total += half_or_count(xs[i])
    return total


xs = [0, 1, 2, 3, 4, 5, 6]
print(repr(run(xs)))
print(repr(accumulate(xs)))
print(repr(accumulate([0, 1, 2])), type(accumulate([0, 1, 2])).__name__)
