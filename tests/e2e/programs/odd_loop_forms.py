# expect: fallback
"""Unusual but valid loop forms: attribute and subscript targets, starred and
keyword range() arguments, float and huge bounds, shadowed range."""
import numpy as np


class Box:
    pass


b = Box()
b.i = -1
for b.i in range(3):  # mg: fallback
    pass
print(repr(b.i))

slots = [0, 0]
for slots[1] in range(4):  # mg: fallback
    slots[0] += slots[1]
print(repr(slots))

args = (2, 11, 3)
acc = 0
for i in range(*args):  # mg: fallback
    acc += i
print(repr(acc), repr(i))

try:
    for i in range(2.0):  # mg: fallback
        acc += 1
except TypeError as error:
    print("TypeError:", error)

try:
    for i in range(stop=3):  # mg: fallback
        acc += 1
except TypeError as error:
    print("TypeError:", error)

big = 0
for i in range(2 ** 64, 2 ** 64 + 3):  # mg: fallback
    big += i
print(repr(big), repr(i))

n = np.int64(5)
t = 0
for i in range(n):  # mg: compiled
    t += i
print(repr(t), type(i).__name__)

for _ in range(3):  # mg: compiled
    t -= 1
print(repr(t), repr(_))


def shadow():
    range = lambda n: [10, 20]
    s = 0
    for i in range(5):  # mg: fallback
        s += i
    return s


print(repr(shadow()))
