# expect: compiled
"""for ... else: the else block runs only without break.  As the site's own loop it compiles
inside a one-trip loop; inside a compiled loop, as a flag the loop's breaks set."""


def find(a, x):
    for i in range(len(a)):  # mg: compiled
        if a[i] == x:
            break
    else:
        i = -1
    return i


print(repr(find([1, 2, 3], 2)), repr(find([1, 2, 3], 7)), repr(find([5], 5)))


def primes(n):
    out = []
    for p in range(2, n):  # mg: compiled
        for d in range(2, p):
            if p % d == 0:
                break
        else:
            out.append(p)
    return out


print(repr(primes(30)))
