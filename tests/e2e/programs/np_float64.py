# expect: compiled
"""NumPy float64 arrays: reads, writes, mixed arithmetic with Python scalars."""
import numpy as np


def axpy(alpha, x, y):
    for i in range(len(x)):  # mg: compiled
        y[i] = alpha * x[i] + y[i]


def stats(x):
    total = 0.0
    sq = 0.0
    for i in range(len(x)):  # mg: compiled
        total += x[i]
        sq += x[i] * x[i]
    return total, sq


x = np.linspace(-1.0, 2.0, 13)
y = np.arange(13, dtype=np.float64) * 0.25
axpy(1.5, x, y)
print(y.tolist(), y.dtype)
t, s = stats(y)
print(repr(t), type(t).__name__, repr(s), type(s).__name__)

z = np.zeros(8)
for i in range(8):  # mg: compiled
    z[i] = (i - 3.5) // 2 + (i % 3) / 7 - 2.0 ** (i - 4) + z[i - 1]
print(z.tolist(), z.dtype)
