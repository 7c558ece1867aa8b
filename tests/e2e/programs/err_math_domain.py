# expect: fallback
"""math domain errors mid-loop: ValueError, partial state kept."""
import math


def roots(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = math.sqrt(xs[i])


out = [0.0] * 5
try:
    roots([4.0, 2.0, -1.0, 9.0, 16.0], out)
except ValueError as error:
    print("ValueError:", error)
print(repr(out))
roots([1.0, 4.0, 0.0, -0.0, 2.25], out)
print(repr(out))

logs = [0.0] * 4
try:
    for i in range(4):  # mg: fallback
        logs[i] = math.log(2 - i)
except ValueError as error:
    print("ValueError:", error, repr(i))
print(repr(logs))

acs = [0.0] * 4
try:
    for i in range(4):  # mg: fallback
        acs[i] = math.acos(i * 0.5)
except ValueError as error:
    print("ValueError:", error)
print(repr(acs))
try:
    e = 0.0
    for i in range(0, 1000, 100):  # mg: fallback
        e = math.exp(i)
except OverflowError as error:
    print("OverflowError:", error, repr(e))
try:
    p = 0.0
    for i in range(10):  # mg: fallback
        p = 10.0 ** (i * 50)
except OverflowError as error:
    print("OverflowError:", error, repr(p))
