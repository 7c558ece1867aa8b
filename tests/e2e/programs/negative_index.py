# expect: compiled
"""Negative indices: a[-1], a[i - 1] at i = 0 wraps to the last element."""


def rotate_sum(a, out):
    for i in range(len(a)):  # mg: compiled
        out[i] = a[i - 1] + a[i] * 10 + a[-1] * 100 + a[-len(a)] * 1000


a = [1, 2, 3, 4, 5]
out = [0] * 5
rotate_sum(a, out)
print(repr(out))


def ring(a):
    n = len(a)
    b = [0.0] * n
    for i in range(n):  # mg: compiled
        b[-i - 1] = (a[i - 1] + a[i] + a[(i + 1) % n]) / 3.0
    return b


print(repr(ring([1.0, 4.0, 9.0, 16.0, 25.0, 36.0])))
grid = [[i * 4 + j for j in range(4)] for i in range(3)]
acc = 0
for i in range(3):  # mg: compiled
    for j in range(4):
        acc += grid[-i - 1][j - 2] * grid[i - 3][-1]
print(repr(acc))
