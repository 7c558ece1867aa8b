# expect: compiled
"""abs, min, max on ints and floats, NaN order and signed zeros."""


def extremes(xs):
    lo = xs[0]
    hi = xs[0]
    for i in range(1, len(xs)):  # mg: compiled
        lo = min(lo, xs[i])
        hi = max(xs[i], hi)
    return lo, hi


print(repr(extremes([3, -7, 12, 0, -7, 5])))
print(repr(extremes([2.5, -1.5, 8.25, -0.0, 0.0])))
print(repr(extremes([0.0, -0.0])))
print(repr(extremes([-0.0, 0.0])))
print(repr(extremes([1.0, float("nan"), 3.0, -2.0])))
print(repr(extremes([float("nan"), 1.0, -5.0])))


def various(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[4 * i] = abs(xs[i])
        out[4 * i + 1] = min(xs[i], 1.0, -xs[i])
        out[4 * i + 2] = max(0.0, xs[i], xs[i] * 2.0)
        out[4 * i + 3] = max(min(xs[i], 2.0), -2.0)


xs = [-3.5, 0.0, -0.0, 1.25, 4.0, float("-inf"), float("nan")]
out = [0.0] * (4 * len(xs))
various(xs, out)
print(repr(out))

ia = [0] * 8
for i in range(8):  # mg: compiled
    ia[i] = abs(i - 5) + min(i, 3) - max(i - 2, 0, -i) + min(i % 2, 1)
print(repr(ia))
