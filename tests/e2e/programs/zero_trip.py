# expect: compiled
"""Zero-trip loops: the loop variable keeps its old value or stays unbound."""


def keeps_old(n):
    i = -1
    s = 0
    for i in range(n):  # mg: compiled
        s += i
    return i, s


print(repr(keeps_old(0)), repr(keeps_old(5)), repr(keeps_old(-3)))


def unbound(n):
    for i in range(n):  # mg: compiled
        pass
    try:
        return i
    except UnboundLocalError as error:
        return "unbound: " + str(error)


print(repr(unbound(0)))
print(repr(unbound(4)))


def inner_zero(n):
    t = 100
    for i in range(n):  # mg: compiled
        for j in range(i, i):
            t = j
    return t, i


print(repr(inner_zero(4)))

for q in range(0):
    pass
try:
    print(q)
except NameError as error:
    print("NameError:", error)

z = 7.5
for z in range(10, 3):  # mg: compiled
    pass
print(repr(z))
for z in range(10, 3, -3):  # mg: compiled
    pass
print(repr(z))
