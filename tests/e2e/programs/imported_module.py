# expect: compiled
"""Loops in an imported helper module (e2e_helpers/kernels.py) and in the script."""
from e2e_helpers import kernels
from e2e_helpers.kernels import dot, first_negative

a = [1.5, -2.0, 3.25, 0.5]
b = [2.0, 0.5, -1.0, 4.0]
print(repr(dot(a, b)), repr(kernels.dot(b, b)))
rows = [[3.0, 4.0], [1.0, 1.0], [0.0, -2.5]]
out = [0.0] * 3
kernels.norms(rows, out)
print(repr(out))
print(repr(kernels.scaled(6)))
kernels.SCALE = 10
print(repr(kernels.scaled(3)))
print(repr(first_negative(a)), repr(first_negative([1, 2])))
acc = 0.0
for i in range(len(out)):  # mg: compiled
    acc += out[i] * a[i]
print(repr(acc))
