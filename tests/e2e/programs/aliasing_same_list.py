# expect: compiled
"""The same list passed twice: writes through one name are seen through the other."""
import numpy as np


def shift(src, dst):
    for i in range(1, len(src)):  # mg: compiled
        dst[i] = src[i - 1] + 1


a = [0, 10, 20, 30, 40]
shift(a, a)
print(repr(a))
b = [0, 10, 20, 30, 40]
c = [0] * 5
shift(b, c)
print(repr(b), repr(c))


def accumulate(x, y):
    for i in range(len(x)):  # mg: compiled
        y[i] += x[i]
        x[i] = y[i] * 2.0


f = [1.0, 2.0, 3.0]
accumulate(f, f)
print(repr(f))
arr = np.arange(6, dtype=np.float64)
shift(arr, arr)
print(arr.tolist())
view_src = np.arange(8, dtype=np.int64)
shift(view_src[1:], view_src[:-1])
print(view_src.tolist())
m = [[1, 2], [3, 4]]
for i in range(2):  # mg: compiled
    for j in range(2):
        m[j][i] = m[i][j] + m[1 - i][1 - j]
print(repr(m))
