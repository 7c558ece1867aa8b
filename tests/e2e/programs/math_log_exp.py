# expect: compiled
"""exp and the logarithms, including log with a base."""
import math


def logs(xs, out):
    for i in range(len(xs)):  # mg: compiled
        x = xs[i]
        out[6 * i] = math.exp(x)
        out[6 * i + 1] = math.log(x)
        out[6 * i + 2] = math.log10(x)
        out[6 * i + 3] = math.log2(x)
        out[6 * i + 4] = math.log(x, 10)
        out[6 * i + 5] = math.log(x, 0.5)


xs = [1.0, 2.0, 8.0, 10.0, 100.0, 0.001, 1e-300, 700.0, 2.718281828459045, 7.5]
out = [0.0] * (6 * len(xs))
logs(xs, out)
print(repr(out))

s = 0.0
for k in range(1, 63):  # mg: compiled
    s += math.log2(2 ** k) - k + math.log10(10 ** (k % 18)) + math.exp(-k)
print(repr(s))
