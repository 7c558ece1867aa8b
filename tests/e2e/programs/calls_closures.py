# expect: compiled
"""Nested helpers closing over read-only values (scalars, lists, other helpers)."""


def make_filter(weights, bias):
    count = len(weights)

    def weighted(xs, i):
        total = bias
        for k in range(count):
            total += weights[k] * xs[(i + k) % len(xs)]
        return total

    def run(xs):
        out = [0.0] * len(xs)
        for i in range(len(xs)):  # mg: compiled
            out[i] = weighted(xs, i)
        return out

    return run


def polynomial(coefficients):
    def evaluate(x):
        result = 0.0
        for c in range(len(coefficients)):
            result = result * x + coefficients[c]
        return result

    def table(n, step):
        out = [0.0] * n
        for i in range(n):  # mg: compiled
            out[i] = evaluate(i * step)
        return out

    return table


def rescaler(scale):
    def apply(v):
        return v * scale

    def run(xs):
        total = 0.0
        for i in range(len(xs)):  # mg: compiled
            total += apply(xs[i])
        return total

    return run


run = make_filter([0.25, 0.5, 0.25], -0.125)
xs = [float((k * 5) % 9) for k in range(12)]
print(repr(run(xs)))
print(repr(polynomial([1.0, -2.0, 0.5, 3.0])(9, 0.375)))
print(repr(polynomial([2, 0, 1])(6, 1)))
one, three = rescaler(1.5), rescaler(3)
print(repr(one(xs)), repr(three(xs)))
