# expect: fallback
"""A name read by the loop that is unbound before it: CPython's NameError/UnboundLocalError."""


def uses_later(n):
    for i in range(n):  # mg: fallback
        if i > 2:
            total += i
        total = 0 if i == 0 else total
    return total


print(repr(uses_later(5)))


def broken(n):
    for i in range(n):  # mg: fallback
        acc += i
    return acc


try:
    broken(3)
except UnboundLocalError as error:
    print("UnboundLocalError:", error)
print(repr(broken(0)) if False else "skipped")


def prev_value(a):
    out = [0] * len(a)
    for i in range(len(a)):  # mg: fallback
        if i > 0:
            out[i] = a[i] - prev
        prev = a[i]
    return out


print(repr(prev_value([3, 8, 2, 9])))
try:
    for i in range(2):  # mg: fallback
        undefined_name_xyz = i + not_defined_anywhere
except NameError as error:
    print("NameError:", error)
