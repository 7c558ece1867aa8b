# expect: compiled
"""Loops whose iterations depend on each other through one part of their body: column
statistics of a table read row by row (the column loop runs outside, in parallel), the
gradient of a least-squares fit (residuals per row, then the gradient summed over rows),
and a matrix times vector with its transpose in one pass (PolyBench's bicg).  megaguards
splits each loop in parts and exchanges nests where every element keeps the order of its
steps: the sums print with every digit CPython's."""


def column_stats(rows, n_cols):
    means = [0.0] * n_cols
    squares = [0.0] * n_cols
    for r in range(len(rows)):  # mg: compiled
        for c in range(n_cols):
            means[c] += rows[r][c]
            squares[c] += rows[r][c] * rows[r][c]
    count = len(rows)
    return [m / count for m in means], [s / count - (m / count) ** 2 for s, m in zip(squares, means)]


def gradient(X, y, w, residual):
    n, d = len(X), len(w)
    grad = [0.0] * d
    for i in range(n):  # mg: compiled
        residual[i] = -y[i]
        for k in range(d):
            residual[i] += X[i][k] * w[k]
        for k in range(d):
            grad[k] += 2.0 * residual[i] * X[i][k] / n
    return grad


def both_products(A, p, r):
    n, m = len(A), len(A[0])
    s, q = [0.0] * m, [0.0] * n
    for i in range(n):  # mg: compiled
        q[i] = 0.0
        for j in range(m):
            s[j] = s[j] + r[i] * A[i][j]
            q[i] = q[i] + A[i][j] * p[j]
    return s, q


def table(n, m, seed):
    return [[((r * 37 + c * 11 + seed) % 97) / 97.0 - 0.5 + seed / 1000.0 for c in range(m)] for r in range(n)]


data = table(300, 7, 11)
means, variances = column_stats(data, 7)
print("means", means)
print("variances", variances)

X, truth = table(400, 5, 3), [0.5, -1.0, 2.0, 0.25, -0.75]
y = [sum(x * t for x, t in zip(row, truth)) for row in X]
w, residual = [0.0] * 5, [0.0] * 400
for step in range(25):
    g = gradient(X, y, w, residual)
    w = [wk - 0.3 * gk for wk, gk in zip(w, g)]
print("weights", w)
print("last residuals", residual[-3:])

A = table(120, 90, 5)
s, q = both_products(A, [k / 90 for k in range(90)], [k / 120 for k in range(120)])
print("s", sum(s), s[:3])
print("q", sum(q), q[-3:])
