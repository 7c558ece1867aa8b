# expect: fallback
"""Recursive helpers (direct and mutual) called inside loops stay in CPython."""


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def is_even(n):
    if n == 0:
        return True
    return is_odd(n - 1)


def is_odd(n):
    if n == 0:
        return False
    return is_even(n - 1)


def fibs(n):
    out = [0] * n
    for i in range(n):  # mg: fallback "recursive"
        out[i] = fib(i)
    return out


def parities(n):
    count = 0
    for i in range(n):  # mg: fallback "recursive"
        if is_even(i):
            count += 1
    return count


print(repr(fibs(15)))
print(repr(parities(30)))
