# expect: compiled
"""Float reductions that are exact only in Python's order, under the suite's forced
parallelism: a Levinson-Durbin recursion (each step's sum feeds the next), Gram-Schmidt
on nearly dependent columns (tiny norms amplify any rounding), a harmonic sum, NaN signs
through negation, and NumPy's overflow warnings in compiled loops."""
import math
import warnings

import numpy


def durbin(r, n):
    y = [0.0] * n
    z = [0.0] * n
    y[0] = -r[0]
    beta, alpha = 1.0, -r[0]
    for k in range(1, n):  # mg: compiled
        beta = (1.0 - alpha * alpha) * beta
        total = 0.0
        for i in range(k):
            total += r[k - i - 1] * y[i]
        alpha = -(r[k] + total) / beta
        for i in range(k):
            z[i] = y[i] + alpha * y[k - i - 1]
        for i in range(k):
            y[i] = z[i]
        y[k] = alpha
    return y


def gram_schmidt(A, m, n, Q, R):
    for k in range(n):  # mg: compiled
        norm = 0.0
        for i in range(m):
            norm += A[i][k] * A[i][k]
        R[k][k] = math.sqrt(norm)
        for i in range(m):
            Q[i][k] = A[i][k] / R[k][k]
        for j in range(k + 1, n):
            dot = 0.0
            for i in range(m):
                dot += Q[i][k] * A[i][j]
            R[k][j] = dot
            for i in range(m):
                A[i][j] = A[i][j] - Q[i][k] * R[k][j]


def squares(a):
    s = 0.0
    for i in range(len(a)):  # mg: compiled
        s += a[i] * a[i]
    return s


def negated(a):
    t = 0.0
    for i in range(len(a)):  # mg: compiled
        t += -a[i]
    return t


def scaled(a, b):
    for i in range(len(a)):  # mg: fallback "numpy.seterr"
        b[i] = a[i] * 10.0


n = 60
r = [1.0 / (k + 2) + ((k * 37) % 11) * 1e-3 for k in range(n)]
print(repr(durbin(r, n)))
m, cols = 40, 6
A = [[1.0 + ((i * 7 + j) % 13) * 1e-9 + (j * 1e-12 if i == j else 0.0) for j in range(cols)] for i in range(m)]
Q = [[0.0] * cols for _ in range(m)]
R = [[0.0] * cols for _ in range(cols)]
gram_schmidt(A, m, cols, Q, R)
print(repr(R))
print(repr(Q[0]))
xs = [1.0 / (i + 1) for i in range(300000)]
print(repr(sum(xs)), repr(squares([i * 0.001 for i in range(200000)])))
print(math.copysign(1.0, negated([1.0, math.nan, 2.0])), math.copysign(1.0, negated([1.0, -math.nan])))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = numpy.zeros(4)
    scaled(numpy.array([1.0, 1e308, 2.0, 3.0]), out)
print(list(out), [str(w.message) for w in caught])
