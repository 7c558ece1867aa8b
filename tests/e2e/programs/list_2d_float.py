# expect: compiled
"""2-D float lists: matrix product, transpose, row sums."""


def matmul(A, B, C, n, m, p):
    for i in range(n):  # mg: compiled
        for j in range(p):
            s = 0.0
            for k in range(m):
                s += A[i][k] * B[k][j]
            C[i][j] = s


def transpose(A, T):
    for i in range(len(A)):  # mg: compiled
        for j in range(len(A[0])):
            T[j][i] = A[i][j]


n, m, p = 4, 3, 5
A = [[(i * 3 + j) * 0.1 - 0.35 for j in range(m)] for i in range(n)]
B = [[(i - j) / 7 for j in range(p)] for i in range(m)]
C = [[0.0] * p for _ in range(n)]
matmul(A, B, C, n, m, p)
print(repr(C))
T = [[0.0] * n for _ in range(m)]
transpose(A, T)
print(repr(T))
rows = [0.0] * n
for i in range(n):  # mg: compiled
    for j in range(p):
        rows[i] += C[i][j] * (j + 1)
print(repr(rows))
