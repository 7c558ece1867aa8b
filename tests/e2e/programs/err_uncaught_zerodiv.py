# expect: fallback
"""An uncaught ZeroDivisionError from a module-level loop (integer modulo)."""
values = [5, 2, 1, -3, 0, 3]
rest = [0] * len(values)
print("start")
for i in range(len(values)):  # mg: fallback
    rest[i] = 100 % values[i]
print(repr(rest))
