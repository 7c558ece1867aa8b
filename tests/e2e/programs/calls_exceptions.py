# expect: fallback
"""Exceptions raised inside helpers surface exactly as in CPython: type, message,
the state written before the failing iteration, and the traceback's last line."""
import math


def ratio(a, b):
    return a / b


def int_ratio(a, b):
    return a // b


def root(x):
    return math.sqrt(x) + 1.0


def log_of(x):
    return math.log(x)


def divide_all(xs, ys, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = ratio(xs[i], ys[i])


def floor_divide_all(xs, ys, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = int_ratio(xs[i], ys[i])


def roots(xs, out):
    for i in range(len(xs)):  # mg: compiled
        out[i] = root(xs[i])


def logs(xs):
    total = 0.0
    for i in range(len(xs)):  # mg: compiled
        total += log_of(xs[i])
    return total


out = [0.0] * 5
try:
    divide_all([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 0.0, 1.0, 1.0], out)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error)
print(repr(out))
divide_all([1.0, 2.0, 3.0, 4.0, 5.0], [2.0, 4.0, 8.0, 1.0, -3.0], out)
print(repr(out))

iout = [0] * 4
try:
    floor_divide_all([7, -7, 9, 1], [2, 2, 0, 1], iout)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error)
print(repr(iout))
floor_divide_all([7, -7, 9, 1], [2, 2, -4, 1], iout)
print(repr(iout))

rout = [0.0] * 4
try:
    roots([4.0, 2.0, -1.0, 9.0], rout)
except ValueError as error:
    print("ValueError:", error)
print(repr(rout))
roots([4.0, 2.0, 0.0, -0.0], rout)
print(repr(rout))

try:
    print(repr(logs([1.0, 2.0, 0.0])))
except ValueError as error:
    print("ValueError:", error)
print(repr(logs([1.0, 2.0, 3.0])))

# Uncaught: the traceback's last line must match.
divide_all([1.0, 2.0], [1.0, 0.0], [0.0, 0.0])
