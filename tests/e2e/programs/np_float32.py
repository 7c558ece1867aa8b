# expect: compiled
"""NumPy float32: arithmetic stays in single precision (NEP 50 with Python scalars)."""
import numpy as np


def scale(a, out):
    for i in range(len(a)):  # mg: compiled
        out[i] = a[i] * 0.1 + 1.0 / 3.0 - a[i] / 7


def total32(a):
    s = np.float32(0.0)
    for i in range(len(a)):  # mg: compiled
        s += a[i] * a[i]
    return s


a = np.arange(10, dtype=np.float32) * np.float32(1.1)
out = np.zeros(10, dtype=np.float32)
scale(a, out)
print(out.tolist(), out.dtype)
s = total32(a)
print(repr(float(s)), type(s).__name__)
flags = [False] * 10
for i in range(10):  # mg: fallback
    flags[i] = a[i] > 4.4 or a[i] == 1.1
print(repr(flags))
mixed = np.zeros(10)
for i in range(10):  # mg: compiled
    mixed[i] = a[i] + out[i] * 2.0 + a[i] // 0.3
print(mixed.tolist(), mixed.dtype)
