# expect: fallback
"""float -> int of nan and inf inside loops: ValueError / OverflowError."""
import math


def to_ints(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = int(xs[i])


out = [0] * 4
try:
    to_ints([1.5, -2.5, float("nan"), 4.0], out)
except ValueError as error:
    print("ValueError:", error)
print(repr(out))
try:
    to_ints([1.5, float("inf"), 3.0, 4.0], out)
except OverflowError as error:
    print("OverflowError:", error)
print(repr(out))
to_ints([9.9, -9.9, 1e18, -0.0], out)
print(repr(out))

fl = [0] * 3
nan = float("nan")
try:
    for i in range(3):  # mg: fallback
        fl[i] = math.floor(i - 0.5) + round(nan if i == 2 else i * 1.0)
except ValueError as error:
    print("ValueError:", error)
print(repr(fl))
big = [0] * 2
try:
    for i in range(2):  # mg: fallback
        big[i] = round(1e300 * i)
except OverflowError as error:
    print("OverflowError:", error)
print(repr(big))
