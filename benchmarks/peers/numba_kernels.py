"""The same kernels as a numba user writes them: njit(parallel=True) with prange."""
import numba
from numba import prange


@numba.njit(parallel=True)
def matmul(A, B, C, n):
    for i in prange(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i, k] * B[k, j]
            C[i, j] = total


@numba.njit(parallel=True)
def stencil(A, B, n, steps):
    for step in range(steps):
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in prange(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i - 1, j] + B[i + 1, j] + B[i, j - 1] + B[i, j + 1])


@numba.njit(parallel=True)
def mandelbrot(out, width, height, max_iter):
    for y in prange(height):
        for x in range(width):
            cr = -2.0 + 3.0 * x / width
            ci = -1.5 + 3.0 * y / height
            zr = 0.0
            zi = 0.0
            count = 0
            while count < max_iter and zr * zr + zi * zi <= 4.0:
                temp = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = temp
                count += 1
            out[y, x] = count


@numba.njit(parallel=True)
def total(a):
    s = 0.0
    for i in prange(len(a)):
        s += a[i]
    return s
