# expect: compiled
"""NumPy bool arrays: reads, writes, logic."""
import numpy as np


def mask(x, lo, m):
    for i in range(len(x)):  # mg: compiled
        m[i] = x[i] > lo


def count(m):
    n = 0
    for i in range(len(m)):  # mg: compiled
        if m[i]:
            n += 1
    return n


x = np.array([0.5, -1.0, 3.0, 2.0, -0.0, 7.5])
m = np.zeros(6, dtype=bool)
mask(x, 0.0, m)
print(m.tolist(), m.dtype)
print(repr(count(m)))
both = np.zeros(6, dtype=bool)
for i in range(6):  # mg: compiled
    both[i] = (m[i] & (i % 2 == 0)) | (not m[i] and x[i] < 0)
print(both.tolist(), both.dtype)
vals = np.zeros(6)
for i in range(6):  # mg: compiled
    vals[i] = x[i] if m[i] else -1.0
print(vals.tolist(), vals.dtype)
