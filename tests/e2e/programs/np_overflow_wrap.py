# expect: fallback
"""NumPy fixed-width ints wrap on overflow: the compiled loop must hand over to NumPy."""
import warnings

import numpy as np

warnings.simplefilter("ignore")


def grow(a, steps):
    for k in range(steps):  # mg: fallback
        for i in range(len(a)):
            a[i] = a[i] * 7 + 1


a32 = np.array([1, 2, 3, 1000], dtype=np.int32)
grow(a32, 12)
print(a32.tolist(), a32.dtype)
a64 = np.array([1, -3, 5], dtype=np.int64)
grow(a64, 25)
print(a64.tolist(), a64.dtype)
s = np.int64(2 ** 62)
for i in range(3):  # mg: fallback
    s += np.int64(2 ** 61)
print(repr(int(s)), type(s).__name__)
x = np.int32(2 ** 30)
for i in range(2):
    x = x * 2
print(repr(int(x)), type(x).__name__)
