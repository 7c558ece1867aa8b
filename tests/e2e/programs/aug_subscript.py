# expect: compiled
"""Augmented assignment on subscripts, every operator."""


def augment(a, b):
    for i in range(len(a)):  # mg: compiled
        a[i] += 3
        a[i] -= i
        a[i] *= 2
        a[i] //= 3
        a[i] %= 17
        a[i] **= 2
        a[i] |= i
        a[i] &= 0xFF
        a[i] ^= 0x5A
        a[i] <<= 2
        a[i] >>= 1
        b[i] += a[i] * 0.5
        b[i] /= 3.0
        b[i] -= 1.0
        b[i] //= 0.25
        b[i] %= 7.0
        b[i] **= 1.5


a = [5, -3, 10, 0, 99, -100]
b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
augment(a, b)
print(repr(a))
print(repr(b))
m = [[1, 2], [3, 4], [5, 6]]
for r in range(3):  # mg: compiled
    for c in range(2):
        m[r][c] *= m[r][1 - c] + r
        m[(r + 1) % 3][c] += 1
print(repr(m))
