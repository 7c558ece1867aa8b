"""Matrix multiply on nested Python lists: megaguards compiles the loop nest."""
import sys


def make(n, seed):
    state = seed
    matrix = []
    for i in range(n):
        row = []
        for j in range(n):
            state = (state * 1103515245 + 12345) % 2147483648
            row.append(state / 2147483648.0)
        matrix.append(row)
    return matrix


def matmul(A, B, C, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i][k] * B[k][j]
            C[i][j] = total


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    A, B = make(n, 1), make(n, 2)
    C = [[0.0] * n for _ in range(n)]
    matmul(A, B, C, n)
    checksum = 0.0
    for i in range(n):
        for j in range(n):
            checksum += C[i][j] * (i + 1) / (j + 1)
    print(f"mm n={n} checksum={checksum!r}")


if __name__ == "__main__":
    main()
