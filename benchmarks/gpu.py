"""GPU benchmark (run on the H100 machine): megaguards' CUDA back end vs CPython,
a hand-written naive CUDA kernel (CuPy RawKernel) and numba.cuda, in one process.

    python benchmarks/gpu.py [--quick] [--out benchmarks/results/gpu.md]

Every megaguards time is end to end: unboxing, host<->device copies, kernel, copies
back and write-back.  The hand-written kernels do the same copies."""
from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "programs"))

import megaguards  # noqa: E402
from megaguards import config  # noqa: E402

import parallel_kernels as kernels  # noqa: E402


def nbody_step(px, py, pz, vx, vy, vz, n, dt):
    for i in range(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            dx = px[j] - px[i]
            dy = py[j] - py[i]
            dz = pz[j] - pz[i]
            inverse = 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + 0.01)
            cube = inverse * inverse * inverse
            ax += dx * cube
            ay += dy * cube
            az += dz * cube
        vx[i] = vx[i] + dt * ax
        vy[i] = vy[i] + dt * ay
        vz[i] = vz[i] + dt * az


def matmul_lists(A, B, C, n):
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(n):
                total += A[i][k] * B[k][j]
            C[i][j] = total


def mandelbrot_lists(out, width, height, max_iter):
    for y in range(height):
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
            out[y][x] = count


def scale_add(x, y, out):
    for i in range(len(x)):
        out[i] = 2.0 * x[i] + y[i]


MM_SOURCE = r'''
extern "C" __global__ void mm(const double *A, const double *B, double *C, long long n) {
    long long i = blockIdx.y * (long long)blockDim.y + threadIdx.y;
    long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= n || j >= n) return;
    double total = 0.0;
    for (long long k = 0; k < n; k++) total += A[i * n + k] * B[k * n + j];
    C[i * n + j] = total;
}'''


def timed(function, repeats=3):
    function()
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def row(name, mine, peer, peer_name, target):
    print(f"  {name}: megaguards {mine:.4f} s, {peer_name} {peer if peer else 0:.4f} s", flush=True)
    return (name, f"{mine * 1e3:.2f} ms", f"{peer * 1e3:.2f} ms" if peer else "-", peer_name,
            f"{peer / mine:.2f}x" if peer else "-", target)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(HERE / "results" / "gpu.md"))
    options = parser.parse_args()
    import cupy

    config.configure(device="gpu", reassociate=True)
    rng = numpy.random.default_rng(3)
    rows = []
    # 1. mm, NumPy inputs: megaguards vs hand-written CUDA with the same copies, vs numba.cuda
    n = 512 if options.quick else 2048
    A, B = rng.random((n, n)), rng.random((n, n))
    C = numpy.zeros((n, n))
    fast_mm = megaguards.jit(kernels.matmul)
    mine = timed(lambda: fast_mm(A, B, C, n))
    assert megaguards.report()["loops"][-1]["backend"] == "cuda"
    raw = cupy.RawKernel(MM_SOURCE, "mm", options=("--fmad=false",))

    def handwritten():
        dA, dB, dC = cupy.asarray(A), cupy.asarray(B), cupy.zeros((n, n))
        raw(((n + 31) // 32, (n + 7) // 8), (32, 8), (dA, dB, dC, numpy.int64(n)))
        return dC.get()
    peer = timed(handwritten)
    assert numpy.array_equal(handwritten(), C)
    rows.append(row(f"mm n={n}, NumPy in/out", mine, peer, "CuPy RawKernel (same copies)", ">= 0.77x (within 1.3x)"))
    try:
        from numba import cuda as numba_cuda

        @numba_cuda.jit
        def numba_mm(A, B, C):
            i, j = numba_cuda.grid(2)
            if i < C.shape[0] and j < C.shape[1]:
                total = 0.0
                for k in range(A.shape[1]):
                    total += A[i, k] * B[k, j]
                C[i, j] = total

        def with_numba():
            dA, dB = numba_cuda.to_device(A), numba_cuda.to_device(B)
            dC = numba_cuda.device_array((n, n))
            numba_mm[((n + 15) // 16, (n + 15) // 16), (16, 16)](dA, dB, dC)
            return dC.copy_to_host()
        rows.append(row(f"mm n={n}, NumPy in/out", mine, timed(with_numba), "numba.cuda.jit (same copies)", ">= 1x"))
    except Exception as error:  # numba.cuda unavailable: say so, never fake it
        rows.append((f"mm n={n}", "-", "-", f"numba.cuda: {type(error).__name__}", "-", "-"))
    # 2. pure-list programs vs CPython, end to end
    m = 128 if options.quick else 1024
    La = [[float((i * 7 + j) % 13) for j in range(m)] for i in range(m)]
    Lc = [[0.0] * m for _ in range(m)]
    list_mm = megaguards.jit(matmul_lists)
    mine = timed(lambda: list_mm(La, La, Lc, m), repeats=1)
    small = 128
    Ls = [row[:small] for row in La[:small]]
    cpython = timed(lambda: matmul_lists(Ls, Ls, [[0.0] * small for _ in range(small)], small), repeats=1)
    cpython *= (m / small) ** 3  # CPython at n=1024 takes minutes: measured at 128, scaled by n^3
    rows.append(row(f"mm n={m}, nested lists (CPython scaled from n={small})", mine, cpython, "CPython", ">= 100x"))
    w = 256 if options.quick else 2048
    out = [[0] * w for _ in range(w)]
    list_mandelbrot = megaguards.jit(mandelbrot_lists)
    mine = timed(lambda: list_mandelbrot(out, w, w, 200), repeats=1)
    cpython = timed(lambda: mandelbrot_lists([[0] * 256 for _ in range(256)], 256, 256, 200), repeats=1)
    rows.append(row(f"mandelbrot {w}x{w}, nested lists (CPython scaled from 256x256)", mine,
                    cpython * (w / 256) ** 2, "CPython", ">= 100x"))
    bodies = 1024 if options.quick else 16384
    state = [rng.random(bodies).tolist() for _ in range(6)]
    list_nbody = megaguards.jit(nbody_step)
    mine = timed(lambda: list_nbody(*state, bodies, 0.01), repeats=1)
    few = 512
    cpython = timed(lambda: nbody_step(*[s[:few] for s in state], few, 0.01), repeats=1) * (bodies / few) ** 2
    rows.append(row(f"N-body step, {bodies} bodies, lists (CPython scaled from {few})", mine, cpython,
                    "CPython", ">= 100x"))
    # 3. elementwise on CuPy arrays already on the device vs device-to-device copy bandwidth
    size = 10**7 if options.quick else 10**8
    x, y, z = cupy.random.random(size), cupy.random.random(size), cupy.empty(size)
    device_add = megaguards.jit(scale_add)

    def synced(function):
        def run():
            function()
            cupy.cuda.Device().synchronize()
        return run
    mine = timed(synced(lambda: device_add(x, y, z)))
    copy = timed(synced(lambda: cupy.copyto(z, x)))
    bandwidth_mine = 3 * size * 8 / mine
    bandwidth_copy = 2 * size * 8 / copy
    rows.append((f"2*x+y on CuPy arrays, n={size:.0e}", f"{mine * 1e3:.2f} ms ({bandwidth_mine / 1e9:.0f} GB/s)",
                 f"{copy * 1e3:.2f} ms ({bandwidth_copy / 1e9:.0f} GB/s)", "cupy.copyto (device to device)",
                 f"{bandwidth_mine / bandwidth_copy:.2f} of copy bandwidth", ">= 0.70"))
    header = ("benchmark", "megaguards (gpu)", "peer", "peer is", "peer time / megaguards time", "target")
    lines = [f"# GPU benchmark ({'quick' if options.quick else 'full'})", "",
             f"machine: {platform.node()}, {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
             f"Python {platform.python_version()}, {os.cpu_count()} cores", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    Path(options.out).parent.mkdir(parents=True, exist_ok=True)
    Path(options.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
