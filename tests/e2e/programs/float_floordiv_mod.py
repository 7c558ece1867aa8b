# expect: compiled
"""float // and % with negative operands and divisors, including -0.0 results."""


def float_divmods(xs, ys, q, r):
    k = 0
    for i in range(len(xs)):  # mg: compiled
        for j in range(len(ys)):
            q[k] = xs[i] // ys[j]
            r[k] = xs[i] % ys[j]
            k += 1


xs = [7.5, -7.5, 0.0, -0.0, 1e-300, -1e-300, 3.0, -3.0, 2.5, 1e17, -1e17, 0.1]
ys = [2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, 0.1, -0.1, 1e-3]
q = [0.0] * (len(xs) * len(ys))
r = [0.0] * (len(xs) * len(ys))
float_divmods(xs, ys, q, r)
print(repr(q))
print(repr(r))


def mixed(n):
    s = 0.0
    t = 0.0
    for i in range(-n, n):  # mg: compiled
        s += i // 2.5 + i % -2.5
        t += 7.25 % (i + 0.5) - (-7.25) // (i + 0.5)
    return s, t


print(repr(mixed(12)))
zeros = [0.0] * 6
for i in range(3):  # mg: compiled
    zeros[2 * i] = -0.0 % 5.0
    zeros[2 * i + 1] = 0.0 % -5.0 + (-0.0) // 3.0 * 0.0
print(repr(zeros))
