"""numba peer of benchmarks/suite/bfs.py: Rodinia's two kernels on NumPy arrays, the
nodes under prange in both, the level loop in Python as in the program.

``expand`` under prange has Rodinia's benign race: two frontier nodes may both write
``cost[neighbour]`` and ``updating[neighbour]``, but with the same values (both nodes lie
on the same level), so the result is the sequential one.  ``advance`` counts the nodes it
moved to the frontier (a ``+=`` reduction, which numba's prange supports) instead of
setting a flag."""
import numba
import numpy

import _peer

program = _peer.suite_program("bfs")


@_peer.kernel
def expand(mask, updating, visited, cost, first_edge, edge_count, edges, n):
    for node in numba.prange(n):
        if mask[node]:
            mask[node] = False
            for e in range(first_edge[node], first_edge[node] + edge_count[node]):
                neighbour = edges[e]
                if not visited[neighbour]:
                    cost[neighbour] = cost[node] + 1
                    updating[neighbour] = True


@_peer.kernel
def advance(mask, updating, visited, n):
    moved = 0
    for node in numba.prange(n):
        if updating[node]:
            mask[node] = True
            visited[node] = True
            updating[node] = False
            moved += 1
    return moved > 0


def compute(inputs):
    n = inputs["n"]
    mask = numpy.zeros(n, dtype=numpy.bool_)
    updating = numpy.zeros(n, dtype=numpy.bool_)
    visited = numpy.zeros(n, dtype=numpy.bool_)
    cost = numpy.full(n, -1, dtype=numpy.int64)
    source = 0
    mask[source] = True
    visited[source] = True
    cost[source] = 0
    levels = 0
    changed = True
    while changed:
        expand(mask, updating, visited, cost, inputs["first_edge"], inputs["edge_count"],
               inputs["edges"], n)
        changed = advance(mask, updating, visited, n)
        levels += 1
    return cost.tolist(), levels


def checksum(outputs):
    return program.checksum(*outputs)


if __name__ == "__main__":
    _peer.run("bfs", compute, checksum)
