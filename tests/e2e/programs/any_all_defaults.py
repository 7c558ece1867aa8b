# expect: compiled
"""any() and all() of a generator stop at the element that decides; min()/max() with
default= give it where no element is left."""
import math


def ascending(values):
    return all(values[i] <= values[i + 1]
               for i in range(len(values) - 1))  # mg: compiled


def has_negative(values):
    return any(v < 0
               for v in values)  # mg: compiled


def all_finite(values):
    return all(math.isfinite(v)
               for v in values if v != 0.0)  # mg: compiled


def inverse_above(values, limit):
    return any(1.0 / v > limit
               for v in values)  # mg: compiled


def nearest(values, origin, radius):
    return min((v
                for v in values if abs(v - origin) < radius),  # mg: compiled
               key=lambda v: abs(v - origin), default=None)


def largest_or(values, fallback):
    return max((2.0 * v
                for v in values if v > 0),  # mg: compiled
               default=fallback)


def run(label, function, *arguments):
    try:
        print(label, repr(function(*arguments)))
    except Exception as error:
        print(label, type(error).__name__, error)


ramp = [0.25 * k for k in range(4000)]
run("ascending", ascending, ramp)
run("not ascending", ascending, ramp[:100] + [-1.0] + ramp[100:])
run("ascending one", ascending, [3.0])
run("no negative", has_negative, ramp)
run("negative", has_negative, ramp + [-0.5])
run("negative zero", has_negative, [-0.0, 0.0])
run("finite", all_finite, ramp)
run("not finite", all_finite, ramp + [math.nan])
run("infinite", all_finite, [0.0, -math.inf])
run("inverse before zero", inverse_above, [4.0, 0.25, 0.0, 1.0], 2.0)
run("inverse at zero", inverse_above, [4.0, 0.0, 0.25], 2.0)
run("nearest", nearest, ramp, 100.1, 0.5)
run("nearest none", nearest, ramp, -5.0, 0.5)
run("largest", largest_or, [-1.0, 3.5, 2.0], -math.inf)
run("largest default", largest_or, [-1.0, -3.5], -math.inf)
run("largest empty", largest_or, [], 0)
