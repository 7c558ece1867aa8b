# expect: compiled
"""A time-step loop calling step(A, B), whose body holds the loops: the outer loop
compiles as one region with step's loops inlined."""
import numpy


def step(A, B, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1])


def relax(A, B, n, steps):
    for t in range(steps):  # mg: compiled
        step(A, B, n)
        step(B, A, n)


def heat_step(u, v, n, alpha):
    for i in range(1, n - 1):
        v[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    for i in range(1, n - 1):
        u[i] = v[i]


def heat(u, v, n, alpha, steps):
    for t in range(steps):  # mg: compiled
        heat_step(u, v, n, alpha)


def residual(A, n):
    total = 0.0
    for i in range(n):  # mg: compiled
        for j in range(n):
            total += A[i][j] * (i + 1)
    return total


n = 12
A = [[float((i * 3 + j * 5) % 7) for j in range(n)] for i in range(n)]
B = [row[:] for row in A]
relax(A, B, n, 15)
print(repr(residual(A, n)))
print(repr(A[5]))
u = numpy.zeros(40)
u[20] = 100.0
v = u.copy()
heat(u, v, 40, 0.25, 50)
print(repr(u.tolist()))
