"""The microbenchmark loops ``megaguards calibrate`` times on every device: plain Python,
compiled through ``megaguards.jit`` like a user's loops.  Together they span what the
cost model's terms tell apart: memory-bound streams, arithmetic-bound inner loops,
libm calls, integer work, list marshalling and GPU-uncoalesced accesses."""
import math


def stream(x, y, a, n):
    for i in range(n):
        y[i] = a * x[i] + y[i]


def polynomial(x, y, n, m):
    for i in range(n):
        value = x[i]
        for k in range(m):
            value = value * 0.999 + 0.5
        y[i] = value


def transcendental(x, y, n):
    for i in range(n):
        y[i] = math.exp(-x[i]) * math.sqrt(x[i] + 1.0)


def integer_mix(out, n, m):
    for i in range(n):
        h = i
        for k in range(m):
            h = (h * 31 + k) % 1000003
        out[i] = h


def list_stencil(a, b, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j] + a[i][j - 1] + a[i][j + 1])


def row_sums(a, out, n, m):
    for i in range(n):
        total = 0.0
        for j in range(m):
            total += a[i, j]
        out[i] = total
