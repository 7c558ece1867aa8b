# expect: compiled
"""Ranges over a.shape[k] and len() of NumPy arrays of rank 1 to 3."""
import numpy as np


def frobenius(m):
    s = 0.0
    for i in range(m.shape[0]):  # mg: compiled
        for j in range(m.shape[1]):
            s += m[i, j] * m[i, j]
    return s


def plane_sums(c, out):
    for i in range(c.shape[0]):  # mg: compiled
        for j in range(c.shape[1]):
            for k in range(c.shape[2]):
                out[i] += c[i, j, k] * (j - k)


m = np.arange(12, dtype=np.float64).reshape(3, 4) / 3.0
print(repr(float(frobenius(m))), repr(float(frobenius(m.T))))
c = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
out = np.zeros(2, dtype=np.int64)
plane_sums(c, out)
print(out.tolist())
v = np.linspace(0.0, 1.0, 5)
t = 0.0
for i in range(len(v) - 1, -1, -1):  # mg: compiled
    t = t * 0.5 + v[i] * v.shape[0]
print(repr(float(t)))
