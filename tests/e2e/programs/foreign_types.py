# expect: fallback
"""Values megaguards cannot represent must leave the loop to CPython: Fraction,
Decimal, complex, IntEnum, int/float/list subclasses, tuples, array.array,
NumPy float16/uint8/object/0-d arrays, big ints."""
import array
import enum
from decimal import Decimal
from fractions import Fraction

import numpy as np


def total(a):
    s = a[0] * 0
    for i in range(len(a)):  # mg: compiled
        s += a[i] * 2
    return s


def fill(a, v):
    for i in range(len(a)):
        a[i] = v * i
    return a


class Color(enum.IntEnum):
    RED = 1
    GREEN = 2


class MyFloat(float):
    pass


class MyInt(int):
    pass


class MyList(list):
    pass


for data in ([Fraction(1, 3), Fraction(2, 7)], [Decimal("0.1"), Decimal("0.2")], [1 + 2j, 3 - 1j],
             [Color.RED, Color.GREEN], [MyFloat(1.5), MyFloat(2.5)], [MyInt(3), MyInt(4)],
             MyList([1, 2, 3]), (1, 2, 3), array.array("d", [1.0, 2.5]), array.array("i", [7, 8]),
             np.array([1.5, 2.5], dtype=np.float16), np.array([200, 100], dtype=np.uint8),
             np.array([1, "x"], dtype=object)[:1], [2 ** 70, 1], [1, 2.5], [True, 2], [1.0, 2.0], [5, 6]):
    r = total(data)
    print(type(data).__name__, repr(r), type(r).__name__)

print(fill([0, 0, 0], Fraction(1, 2)))
print(fill([0.0, 0.0], 1 + 1j))
print(fill(np.zeros(3, dtype=np.float16), 0.1).tolist())
print(fill(np.zeros(3, dtype=np.uint8), 100).tolist())
print(fill([0, 0, 0], Color.GREEN))
print(fill([0, 0], MyInt(5)))
print(fill([0, 0], 3))
z = np.array(2.5)
acc = 0.0
for i in range(3):  # mg: fallback
    acc += z * i
print(repr(acc), type(acc).__name__)
