# expect: compiled
"""Names a loop assigns and the code after it reads in every way: loads, augmented
assignments, del, closures, nested functions, f-strings."""


def bump(n):
    for i in range(n):  # mg: compiled
        x = i * 3
    x += 1
    return "bumped"


def count(a):
    for i in range(len(a)):  # mg: compiled
        hits = a[i] > 2
    hits += 10
    return "counted"


def deleted(n):
    for i in range(n):  # mg: compiled
        y = i
    del y
    try:
        return y
    except UnboundLocalError:
        return "y deleted, i = " + str(i)


def closure(n):
    for i in range(n):  # mg: compiled
        z = i * i
    return lambda: (z, i)


def fstring(n):
    for j in range(n):  # mg: compiled
        w = j / 4
    return f"{w=} {j=}"


def dead_then_unbound(n):
    for i in range(n):  # mg: compiled
        v = i + 1
    try:
        v -= 1
        return "v bound"
    except UnboundLocalError:
        return "v unbound"


print(bump(4))
print(count([1, 5, 3]))
print(deleted(3))
print(closure(4)())
print(fstring(5))
print(dead_then_unbound(3), dead_then_unbound(0))
