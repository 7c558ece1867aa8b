# expect: compiled
"""Module-level helpers called inside loops: float, int and mixed arguments."""
import math


def square_plus(x):
    return x * x + 1.0


def scaled(x, factor):
    return x * factor - 0.5


def int_mix(i, k):
    return (i * k + 7) % 11 - i // 3


def hypotenuse(a, b):
    return math.sqrt(a * a + b * b)


def apply_square(xs):
    out = [0.0] * len(xs)
    for i in range(len(xs)):  # mg: compiled
        out[i] = square_plus(xs[i])
    return out


def apply_two(xs, ys, factor):
    total = 0.0
    for i in range(len(xs)):  # mg: compiled
        total += scaled(xs[i], factor) * hypotenuse(xs[i], ys[i])
    return total


def ints(n, k):
    out = [0] * n
    for i in range(n):  # mg: compiled
        out[i] = int_mix(i, k) + int_mix(k, i)
    return out


def helper_in_condition(xs, limit):
    count = 0
    for i in range(len(xs)):  # mg: compiled
        if square_plus(xs[i]) > limit:
            count += 1
    return count


def helper_on_int_arguments(n):
    # square_plus(int) returns float: the clone for int arguments is another specialization.
    out = [0.0] * n
    for i in range(n):  # mg: compiled
        out[i] = square_plus(i) + scaled(i, 3)
    return out


xs = [0.5 * k - 3.0 for k in range(13)]
ys = [math.cos(k) for k in range(13)]
print(repr(apply_square(xs)))
print(repr(apply_two(xs, ys, 1.25)))
print(repr(apply_two(xs, ys, 3)))
print(repr(ints(12, 5)))
print(repr(helper_in_condition(xs, 4.0)))
print(repr(helper_on_int_arguments(9)))
print(repr(apply_square([1, 2, 3])))
