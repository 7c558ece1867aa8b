"""numba peer of benchmarks/suite/stencil_numpy.py: the Jacobi sweep with its rows under
prange, two arrays swapped each sweep as in the program."""
import numba

import _peer


@_peer.kernel
def sweep(source, target, n):
    for i in numba.prange(1, n - 1):
        for j in range(1, n - 1):
            target[i, j] = 0.25 * (source[i - 1, j] + source[i + 1, j]
                                   + source[i, j - 1] + source[i, j + 1])


def compute(inputs):
    grid, sweeps, n = inputs["grid"], inputs["sweeps"], inputs["n"]
    other = grid.copy()
    for s in range(sweeps):
        sweep(grid, other, n)
        sweep(other, grid, n)
    return grid.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("stencil_numpy", compute, checksum)
