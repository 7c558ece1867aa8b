# expect: compiled
"""Rows of a matrix exchanged inside compiled loops: Gauss-Jordan elimination with partial
pivoting solving A x = b, an LU factorization keeping its pivots, and a determinant whose
sign flips with each exchange.  The row objects end where CPython's swaps put them."""


def gauss_jordan(a, b):
    n = len(a)
    for col in range(n):  # mg: compiled
        pivot, top = col, abs(a[col][col])
        for row in range(col + 1, n):
            if abs(a[row][col]) > top:
                pivot, top = row, abs(a[row][col])
        b[col], b[pivot] = b[pivot], b[col]
        a[col], a[pivot] = a[pivot], a[col]
        d = a[col][col]
        for j in range(n):
            a[col][j] /= d
        b[col] /= d
        for row in range(n):
            if row != col:
                f = a[row][col]
                for j in range(n):
                    a[row][j] -= f * a[col][j]
                b[row] -= f * b[col]
    return b


def lu_factor(a, pivot):
    n = len(a)
    for j in range(n):  # mg: compiled
        jp = j
        t = abs(a[j][j])
        for i in range(j + 1, n):
            if abs(a[i][j]) > t:
                jp, t = i, abs(a[i][j])
        pivot[j] = jp
        if jp != j:
            a[j], a[jp] = a[jp], a[j]
        for k in range(j + 1, n):
            a[k][j] /= a[j][j]
        for ii in range(j + 1, n):
            for jj in range(j + 1, n):
                a[ii][jj] -= a[ii][j] * a[j][jj]
    return pivot


def determinant(m):
    n, sign, det = len(m), 1, 1.0
    for k in range(n):  # mg: compiled
        best = k
        for i in range(k + 1, n):
            if abs(m[i][k]) > abs(m[best][k]):
                best = i
        if best != k:
            m[best], m[k] = m[k], m[best]
            sign = -sign
        det *= m[k][k]
        for i in range(k + 1, n):
            factor = m[i][k] / m[k][k]
            for j in range(k + 1, n):
                m[i][j] -= factor * m[k][j]
    return sign * det


def table(n, seed):
    state, rows = seed, []
    for _ in range(n):
        row = []
        for _ in range(n):
            state = (state * 1103515245 + 12345) % 2147483648
            row.append(state / 2147483648.0 - 0.5)
        rows.append(row)
    return rows


a = table(24, 1)
rows = list(a)
x = gauss_jordan(a, [float(k % 5) for k in range(24)])
print([round(v, 9) for v in x[:6]], [rows.index(row) for row in a][:12])
m = table(20, 4)
print(lu_factor(m, [0] * 20), m[3][:4])
print(determinant(table(12, 2)), determinant([[0.0, 2.0], [3.0, 1.0]]))
