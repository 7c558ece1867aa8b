# expect: fallback
"""A loop that writes a list (or a writable array) and a read-only NumPy array:
CPython stops at the first write to the read-only array, after one iteration's
other writes."""
import numpy as np

lst = [0, 0, 0]
a = np.zeros(3)
b = np.zeros(3)
b.flags.writeable = False
try:
    for i in range(3):
        lst[i] += 1
        a[i] += 1.0
        b[i] = 5.0
except ValueError as error:
    print("ValueError:", error)
print(repr(lst), a.tolist(), b.tolist())


def scale(src, dst, n):
    for i in range(n):
        src[i] *= 2.0
        dst[i] = src[i]


c = np.arange(4.0)
d = np.broadcast_to(np.zeros(1), (4,))
try:
    scale(c, d, 4)
except ValueError as error:
    print("ValueError:", error)
print(c.tolist(), d.tolist())
