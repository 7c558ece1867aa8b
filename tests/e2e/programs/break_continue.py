# expect: compiled
"""break and continue in single and nested loops."""


def first_pair(a, target):
    pi = -1
    pj = -1
    for i in range(len(a)):  # mg: compiled
        for j in range(i + 1, len(a)):
            if a[i] + a[j] == target:
                pi = i
                pj = j
                break
        if pi >= 0:
            break
    return pi, pj


def odd_sum(n):
    s = 0
    for i in range(n):  # mg: compiled
        if i % 2 == 0:
            continue
        if i > 15:
            break
        s += i
    return s


print(repr(first_pair([5, 1, 7, 3, 9, 2], 10)))
print(repr(first_pair([5, 1, 7, 3, 9, 2], 100)))
print(repr(odd_sum(10)), repr(odd_sum(100)))

tri = 0
for i in range(10):  # mg: compiled
    for j in range(10):
        if j > i:
            break
        if (i + j) % 3 == 0:
            continue
        tri += i * j
    else_flag = i
print(repr(tri), repr(else_flag), repr(j))
