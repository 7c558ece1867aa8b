# expect: fallback
"""IndexError and math errors mid-loop on NumPy arrays: partial writes as in CPython."""
import math

import numpy as np


def scale(a, n):
    for i in range(n):  # mg: fallback
        a[i] = a[i] * 2.0 + i


a = np.ones(5)
try:
    scale(a, 7)
except IndexError as error:
    print("IndexError:", error)
print(a.tolist(), a.dtype)

b = np.array([4.0, 1.0, -9.0, 16.0])
c = np.zeros(4)
try:
    for i in range(4):  # mg: fallback
        c[i] = math.sqrt(b[i])
except ValueError as error:
    print("ValueError:", error)
print(c.tolist(), c.dtype)

m = np.zeros((3, 3), dtype=np.int64)
try:
    for i in range(3):  # mg: fallback
        for j in range(4):
            m[i, j] = i + j
except IndexError as error:
    print("IndexError:", error)
print(m.tolist())
