# expect: compiled
"""A helper rebound between calls of the loop: each entry must call the current one."""


def transform(x):
    return x + 1.0


def run(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: compiled
        out[i] = transform(xs[i])
    return out


xs = [0.5 * k for k in range(7)]
print(repr(run(xs)))


def transform(x):  # noqa: F811 -- rebinding the global is the point
    return x * x - 2.0


print(repr(run(xs)))
transform = abs
print(repr(run([-1.5, 2.0, -0.0])))


def make(k):
    def inner(x):
        return x * k
    return inner


transform = make(3.0)
print(repr(run(xs)))
transform = make(-0.5)
print(repr(run(xs)))
