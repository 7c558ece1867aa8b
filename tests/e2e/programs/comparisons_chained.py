# expect: compiled
"""Comparisons, chained comparisons, mixed int/float/bool operands."""


def classify(xs, lo, hi, out):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        code = 0
        if lo < x < hi:
            code += 1
        if lo <= x <= hi:
            code += 2
        if x == lo or x != x:
            code += 4
        if hi > x >= lo > -100:
            code += 8
        if not (x > 0):
            code += 16
        out[i] = code


xs = [-5.0, 0.0, 0.5, 1.0, 2.5, 3.0, 10.0, float("nan"), float("inf"), -0.0]
out = [0] * len(xs)
classify(xs, 0, 3, out)
print(repr(out))
classify(xs, -0.5, 2.5, out)
print(repr(out))

ints = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
flags = [False] * len(ints)
for i in range(len(ints)):  # mg: compiled
    flags[i] = ints[i] < ints[(i + 1) % len(ints)] <= 6
print(repr(flags))

count = 0
for i in range(-10, 10):  # mg: compiled
    b = i > 0
    count += (b == True) + (i < 2.5) + (True < i) + (i >= False) + (0.5 < i < 3.5 != 4)
print(repr(count))

big = [2 ** 53, 2 ** 53 + 1, -(2 ** 53) - 1, 3]
res = [False] * 4
for i in range(4):  # mg: fallback
    res[i] = big[i] == big[i] * 1.0 or big[i] < 0.5
print(repr(res))
