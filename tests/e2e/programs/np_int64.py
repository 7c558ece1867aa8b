# expect: compiled
"""NumPy int64 arrays: floor division and modulo of negatives, mixed with Python ints."""
import numpy as np


def ops(a, b, out):
    for i in range(len(a)):  # mg: compiled
        out[0, i] = a[i] // b[i]
        out[1, i] = a[i] % b[i]
        out[2, i] = a[i] * 3 - b[i]
        out[3, i] = (a[i] << 2) ^ b[i]
        out[4, i] = -a[i] + abs(b[i])


a = np.array([7, -7, 7, -7, 100, -1, 0, 123456789], dtype=np.int64)
b = np.array([2, 2, -2, -2, -7, 3, 5, -1000], dtype=np.int64)
out = np.zeros((5, 8), dtype=np.int64)
ops(a, b, out)
print(out.tolist(), out.dtype)
s = 0
for i in range(len(a)):  # mg: compiled
    s += a[i]
print(repr(int(s)), type(s).__name__)
f = 0.0
for i in range(len(a)):  # mg: compiled
    f += a[i] / b[i]
print(repr(float(f)), type(f).__name__)
