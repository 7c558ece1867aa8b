"""Rodinia bfs: breadth-first search over a random graph in compressed adjacency form
(each node's first edge and edge count into one edge list), level by level with
frontier masks: the nodes of the frontier visit their unvisited neighbours and give
them a cost one higher, then the updated nodes become the next frontier.

What megaguards does (MegaGuards could not parallelise bfs): both kernels compile, the
level loop (``while``) stays in CPython.  ``advance`` runs in parallel (its ``changed =
True`` is the same constant from every iteration).  ``expand`` runs as sequential C:
``cost[neighbour]`` is written at an index read from ``edges``, so two frontier nodes may
write one entry (Rodinia's GPU kernel tolerates that race since both write the same
level), which the dependence analysis cannot rule out.  Every level enters both kernels
once, so the node arrays cross between Python and C twice per level."""
import math

from common import Timer, arguments, generator, report, run

SIZES = {"small": {"nodes": 4096, "degree": 6}, "medium": {"nodes": 65536, "degree": 6},
         "large": {"nodes": 1000000, "degree": 6}}


def expand(mask, updating, visited, cost, first_edge, edge_count, edges, n):
    """Rodinia's first kernel: every frontier node relaxes its edges."""
    for node in range(n):
        if mask[node]:
            mask[node] = False
            for e in range(first_edge[node], first_edge[node] + edge_count[node]):
                neighbour = edges[e]
                if not visited[neighbour]:
                    cost[neighbour] = cost[node] + 1
                    updating[neighbour] = True


def advance(mask, updating, visited, n):
    """Rodinia's second kernel: the updated nodes form the next frontier."""
    changed = False
    for node in range(n):
        if updating[node]:
            mask[node] = True
            visited[node] = True
            updating[node] = False
            changed = True
    return changed


def search(first_edge, edge_count, edges, source, n):
    mask = [False] * n
    updating = [False] * n
    visited = [False] * n
    cost = [-1] * n
    mask[source] = True
    visited[source] = True
    cost[source] = 0
    levels = 0
    changed = True
    while changed:
        expand(mask, updating, visited, cost, first_edge, edge_count, edges, n)
        changed = advance(mask, updating, visited, n)
        levels += 1
    return cost, levels


def make_input(parameters):
    n, degree = parameters["nodes"], parameters["degree"]
    random = generator("bfs")
    # Rodinia's generator: every node gets a random number of edges to random nodes
    edge_count = [random.randint(1, 2 * degree - 1) for _ in range(n)]
    first_edge = [0] * n
    total = 0
    for node in range(n):
        first_edge[node] = total
        total += edge_count[node]
    edges = [random.randrange(n) for _ in range(total)]
    return {"first_edge": first_edge, "edge_count": edge_count, "edges": edges, "n": n}


def work(parameters):
    """Node visits: both kernels scan every node once per level (about log_degree(nodes) + 4
    levels on these random graphs), plus every edge once."""
    n, degree = parameters["nodes"], parameters["degree"]
    levels = math.log(n) / math.log(degree) + 4
    return 2.0 * n * levels + n * degree


def checksum(cost, levels):
    return sum(cost) * 1000 + levels


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    first_edge, edge_count, edges, n = (inputs["first_edge"], inputs["edge_count"], inputs["edges"],
                                        inputs["n"])
    timer = Timer()
    timer.start()
    cost, levels = search(first_edge, edge_count, edges, 0, n)
    timer.stop()
    report(checksum(cost, levels), timer)


if __name__ == "__main__":
    run(main)
