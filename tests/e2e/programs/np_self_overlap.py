# expect: fallback
"""A writable NumPy view whose elements overlap (as_strided with stride 0, or
overlapping windows): every write is seen by the following reads, as in CPython."""
import numpy as np
from numpy.lib.stride_tricks import as_strided

x = np.zeros(1)
v = as_strided(x, shape=(4,), strides=(0,))
for i in range(4):  # mg: fallback
    v[i] += 1.0
print(x.tolist(), v.tolist())

base = np.arange(8, dtype=np.int64)
win = as_strided(base, shape=(3, 4), strides=(16, 8))
for i in range(3):  # mg: fallback
    for j in range(4):
        win[i, j] = win[i, j] * 2 + 1
print(base.tolist())
