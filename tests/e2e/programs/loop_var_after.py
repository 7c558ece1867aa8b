# expect: compiled
"""The loop variable after the loop, after break, and reassigned in the body."""


def last(n):
    for i in range(n):  # mg: compiled
        pass
    return i


def broken(a, target):
    found = -1
    for i in range(len(a)):  # mg: compiled
        if a[i] == target:
            found = i
            break
    return found, i


def reassigned(n):
    total = 0
    for i in range(n):  # mg: compiled
        i = i * 10
        total += i
    return total, i


print(repr(last(1)), repr(last(17)))
print(repr(broken([4, 8, 15, 16, 23, 42], 16)))
print(repr(broken([4, 8, 15, 16, 23, 42], 99)))
print(repr(reassigned(6)))

for i in range(3):  # mg: compiled
    for j in range(i):
        k = i * j
print(repr(i), repr(j), repr(k))
