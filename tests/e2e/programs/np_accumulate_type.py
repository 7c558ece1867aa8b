# expect: compiled
"""s += a[i] on a NumPy array turns a Python float into numpy.float64."""
import numpy as np


def total(a):
    s = 0.0
    for i in range(len(a)):  # mg: compiled
        s += a[i]
    return s


def conditional(a):
    s = 0.0
    for i in range(len(a)):  # mg: compiled
        if a[i] > 100.0:
            s += a[i]
    return s


a = np.array([0.1, 0.2, 0.3, 0.4])
s = total(a)
print(repr(float(s)), type(s).__name__)
s = conditional(a)
print(repr(s), type(s).__name__)
s = conditional(a * 1000.0)
print(repr(float(s)), type(s).__name__)
empty = total(np.zeros(0))
print(repr(empty), type(empty).__name__)
n = 0
for i in range(len(a)):  # mg: compiled
    n += a[i] > 0.15
print(repr(int(n)), type(n).__name__)
