"""numba peer of benchmarks/suite/pathfinder.py: one row of the dynamic programme per
kernel call, its columns under prange; the row loop swaps the two row arrays, as the
program does."""
import numba
import numpy

import _peer

program = _peer.suite_program("pathfinder")


@_peer.kernel
def advance(previous, current, wall_row, cols):
    for n in numba.prange(cols):
        best = previous[n]
        if n > 0 and previous[n - 1] < best:
            best = previous[n - 1]
        if n < cols - 1 and previous[n + 1] < best:
            best = previous[n + 1]
        current[n] = wall_row[n] + best


def compute(inputs):
    wall, rows, cols = inputs["wall"], inputs["rows"], inputs["cols"]
    previous = wall[0].copy()
    current = numpy.zeros(cols, dtype=numpy.int64)
    for t in range(1, rows):
        advance(previous, current, wall[t], cols)
        previous, current = current, previous
    return previous.tolist()


checksum = program.checksum


if __name__ == "__main__":
    _peer.run("pathfinder", compute, checksum)
