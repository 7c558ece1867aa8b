# expect: compiled
"""float32 comparisons against Python floats are done in single precision."""
import numpy as np


def count_eq(a, x):
    c = 0
    for i in range(len(a)):  # mg: compiled
        if a[i] == x:
            c += 1
        if a[i] < x:
            c += 100
    return c


a = np.array([0.1, 0.2, 0.3, 0.1], dtype=np.float32)
print(repr(count_eq(a, 0.1)))
print(repr(count_eq(a, 0.2)))
print(repr(count_eq(a.astype(np.float64), 0.1)))
m = np.zeros(4, dtype=np.float32)
for i in range(4):  # mg: compiled
    m[i] = a[i] * 3 - 0.3 + (a[i] > 0.15)
print(m.tolist(), m.dtype)
