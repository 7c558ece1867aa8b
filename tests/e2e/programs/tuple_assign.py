# expect: compiled
"""Tuple assignment and swaps: a, b = b, a + b."""


def fib(n):
    a, b = 0, 1
    for i in range(n):  # mg: compiled
        a, b = b, a + b
    return a


def rotate3(n):
    x, y, z = 1.0, 2.0, 3.0
    for i in range(n):  # mg: compiled
        x, y, z = y, z, x + 0.5
    return x, y, z


def swaps(a):
    for i in range(len(a) - 1):  # mg: compiled
        if a[i] > a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
    return a


print([fib(k) for k in (0, 1, 2, 10, 50, 90)])
print(repr(rotate3(7)))
print(repr(swaps([5, 3, 8, 1, 9, 2])))
v = [3, 1, 2]
for i in range(len(v)):  # mg: compiled
    for j in range(len(v) - 1 - i):
        if v[j] > v[j + 1]:
            v[j], v[j + 1] = v[j + 1], v[j]
p = q = 0
for i in range(4):  # mg: compiled
    p = q = p + q + i
print(repr(v), repr(p), repr(q))
