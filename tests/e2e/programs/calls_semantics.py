# expect: compiled
"""Python semantics at inlined call sites: argument evaluation order (which exception
wins), bool results in arithmetic, array-valued defaults, closure cells rebound between
loops, static and class methods, helpers writing into array arguments (also aliased),
and an exception inside a helper of a time-step loop (state of the earlier steps kept)."""
import math


def pair(a, b):
    return a - b


def order(xs, ys):
    total = 0.0
    for i in range(len(xs)):  # mg: compiled
        total += pair(b=1.0 / xs[i], a=math.sqrt(ys[i]))
    return total


def positive(x):
    return x > 0


def count_positive(xs):
    count = 0
    for i in range(len(xs)):  # mg: compiled
        count += positive(xs[i])
    return count


TABLE = [0.5, 1.5, 2.5, 3.5]


def lookup(i, table=TABLE):
    return table[i % len(table)]


def with_table(n):
    out = [0.0] * n
    for i in range(n):  # mg: compiled
        out[i] = lookup(i) * 2.0
    return out


def rebinding(xs):
    k = 2.0

    def times_k(x):
        return x * k

    first = 0.0
    for i in range(len(xs)):  # mg: compiled
        first += times_k(xs[i])
    k = -3
    second = 0.0
    for i in range(len(xs)):  # mg: compiled
        second += times_k(xs[i])
    return first, second


class Tools:
    factor = 4

    @staticmethod
    def twice(x):
        return 2 * x

    @classmethod
    def scaled(cls, x):
        return cls.factor * x

    def run(self, xs):
        out = [0.0] * len(xs)
        for i in range(len(xs)):
            out[i] = self.twice(xs[i]) + self.scaled(xs[i]) + Tools.twice(1.0)
        return out


def put(out, i, value):
    out[i] = value


def swap(a, b, i):
    t = a[i]
    a[i] = b[i]
    b[i] = t


def writes(xs, out):
    for i in range(len(xs)):  # mg: compiled
        put(out, i, xs[i] * 3.0)
    for i in range(len(xs)):  # mg: compiled
        swap(xs, out, i)
    for i in range(len(xs)):  # mg: compiled
        swap(xs, xs, len(xs) - 1 - i)


def decay(u, v):
    for i in range(len(u)):
        v[i] = u[i] / (u[i] - 2.0)


def steps(u, v, count):
    for t in range(count):  # mg: compiled
        decay(u, v)
        decay(v, u)


print(repr(order([1.0, 2.0, 4.0], [4.0, 9.0, 16.0])))
for xs, ys in (([1.0, 0.0], [4.0, -1.0]), ([1.0, 2.0], [4.0, -1.0])):
    try:
        order(xs, ys)
    except (ZeroDivisionError, ValueError) as error:
        print(type(error).__name__, error)
print(repr(count_positive([1.0, -2.0, 0.0, 3.5, 2.0])))
print(repr(with_table(6)))
TABLE[0] = -9.0  # the default is the same list object: the change shows
print(repr(with_table(6)))
print(repr(rebinding([1.0, 2.0, 3.5])))
print(repr(Tools().run([1.0, -0.5])))
Tools.factor = 0.25
print(repr(Tools().run([1.0, -0.5])))
xs = [1.0, 2.0, 3.0, 4.0]
out = [0.0] * 4
writes(xs, out)
print(repr(xs), repr(out))
u = [3.0, 5.0, 7.0]
v = [0.0] * 3
steps(u, v, 2)
print(repr(u), repr(v))
u = [3.0, 4.0, 7.0]
try:
    steps(u, v, 5)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error)
print(repr(u), repr(v))
