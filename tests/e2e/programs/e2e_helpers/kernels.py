"""Loops in an imported module: megaguards rewrites user modules next to the script."""
import math

SCALE = 3


def dot(a, b):
    s = 0.0
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


def norms(rows, out):
    for i in range(len(rows)):
        t = 0.0
        for j in range(len(rows[0])):
            t += rows[i][j] * rows[i][j]
        out[i] = math.sqrt(t)


def scaled(n):
    v = [0] * n
    for i in range(n):
        v[i] = i * SCALE - n
    return v


def first_negative(a):
    for i in range(len(a)):
        if a[i] < 0:
            return i
    return -1
