# expect: compiled
"""2-D NumPy arrays indexed A[i, j] and A[i][j]; a stencil and a reduction."""
import numpy as np


def laplace(u, v):
    n, m = u.shape
    for i in range(1, n - 1):  # mg: compiled
        for j in range(1, m - 1):
            v[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


def colmax(a, out):
    for j in range(len(a[0])):  # mg: compiled
        best = a[0][j]
        for i in range(1, len(a)):
            if a[i][j] > best:
                best = a[i][j]
        out[j] = best


u = np.fromfunction(lambda i, j: (i - 2.0) ** 2 + (j - 1.5) * 3.0, (5, 4))
v = np.zeros_like(u)
laplace(u, v)
print(v.tolist(), v.dtype)
ints = (np.arange(20, dtype=np.int64).reshape(4, 5) * 37) % 11 - 5
out = np.zeros(5, dtype=np.int64)
colmax(ints, out)
print(out.tolist(), out.dtype)
