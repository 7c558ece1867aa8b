# expect: compiled
"""int / int is a float; bool and float operands too."""


def divide(n, out):
    for i in range(n):  # mg: compiled
        out[i] = (i - 7) / 3 + i / (i + 1) + (i * 1000003) / 7 - True / 4
    return out


print(repr(divide(15, [0.0] * 15)))


def ratio(a, b):
    r = [0.0] * len(a)
    for i in range(len(a)):  # mg: compiled
        r[i] = a[i] / b[i]
    return r


print(repr(ratio([1, -1, 7, -7, 2 ** 52, -(2 ** 53), 0], [3, 3, -2, -2, 3, 7, -5])))
print(repr(ratio([1.0, -1.0, 1e308, 5e-324], [3.0, -0.0 + 3, 0.5, 2.0])))
x = 0.0
for i in range(1, 12):  # mg: compiled
    x = x + 1 / i - i / 10
print(repr(x))
