# expect: compiled
"""numpy.bool and NumPy scalar live-ins: flags computed before the loop."""
import numpy as np


def gate(a, flag, scale):
    out = np.zeros(len(a))
    for i in range(len(a)):  # mg: compiled
        if flag:
            out[i] = a[i] * scale
        else:
            out[i] = -a[i]
    return out


a = np.array([1.0, 2.0, 3.0])
print(gate(a, True, 2.0).tolist())
print(gate(a, a[0] > 0, np.float64(0.5)).tolist())
print(gate(a, a[0] > 5, np.float32(0.5)).tolist())
any_neg = a[0] < 0
count = 0
for i in range(3):  # mg: compiled
    if a[i] > 1.5 or any_neg:
        count += 1
print(repr(count))
