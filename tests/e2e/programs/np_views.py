# expect: compiled
"""Non-contiguous NumPy views: strided slices, transposes, reversed views."""
import numpy as np


def rowsum(M, out):
    for i in range(len(out)):  # mg: compiled
        s = 0.0
        for j in range(len(M[0])):
            s += M[i, j] * (j + 1)
        out[i] = s


base = np.arange(24, dtype=np.float64).reshape(4, 6)
T = base.T
out = np.zeros(6)
rowsum(T, out)
print(out.tolist(), out.dtype)
ev = base[:, ::2]
out2 = np.zeros(4)
rowsum(ev, out2)
print(out2.tolist())

v = np.arange(10, dtype=np.int64)
odd = v[1::2]
rev = v[::-1]
acc = np.zeros(5, dtype=np.int64)
for i in range(5):  # mg: compiled
    acc[i] = odd[i] * 100 + rev[i]
print(acc.tolist(), acc.dtype)
w = v[::3]
for i in range(len(w)):  # mg: compiled
    w[i] = -w[i] * 2
print(v.tolist(), w.tolist())
tt = np.zeros((3, 2))
tview = tt.T
for i in range(2):  # mg: compiled
    for j in range(3):
        tview[i, j] = i * 10.0 + j
print(tt.tolist())
