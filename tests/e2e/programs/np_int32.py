# expect: compiled
"""NumPy int32 arrays, promotion with int64 and Python ints."""
import numpy as np


def work(a, b, c):
    for i in range(len(a)):  # mg: compiled
        c[i] = a[i] * 2 + b[i] // 3 - a[i] % 5


a = np.arange(-6, 6, dtype=np.int32) * 1000
b = np.arange(12, dtype=np.int64) - 20
c = np.zeros(12, dtype=np.int32)
work(a, b, c)
print(c.tolist(), c.dtype)
t = np.int32(0)
for i in range(12):  # mg: compiled
    t += a[i] // 7
print(repr(int(t)), type(t).__name__)
f32 = np.zeros(12, dtype=np.float32)
for i in range(12):  # mg: compiled
    f32[i] = a[i] / 3
print(f32.tolist(), f32.dtype)
