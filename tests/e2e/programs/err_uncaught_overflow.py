# expect: fallback
"""An uncaught OverflowError (math range error) from inside a function's loop."""
import math


def grow(n):
    x = 1.0
    for i in range(n):
        x = math.exp(x) + i
    return x


print(repr(grow(3)))
print(repr(grow(8)))
