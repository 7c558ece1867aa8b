"""Per-row statistics of a table held as a list of lists, one helper call per row.

    python rowsums.py [N] [ROUNDS]      (default 1500 x 1500, 8 rounds)

Each round calls ``weighted_sum(row, weights)`` (a ``for j`` loop) once per row,
collecting the results with ``append``, then ``row_total(row)`` once per row, the
way a student tabulates a data set.  The values are small multiples of 1/8, so
every sum is exact in any order.
"""
import sys


def row_total(row):
    total = 0.0
    for j in range(len(row)):
        total += row[j]
    return total


def weighted_sum(row, weights):
    total = 0.0
    for j in range(len(row)):
        total += row[j] * weights[j]
    return total


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    table = [[((i * 7 + j * 13) % 64) / 8.0 for j in range(n)] for i in range(n)]
    checksum = 0.0
    for r in range(rounds):
        weights = [((j + r) % 5) / 4.0 for j in range(n)]
        scores = []
        for row in table:
            scores.append(weighted_sum(row, weights))
        best = max(scores)
        grand = 0.0
        for i in range(n):
            grand += row_total(table[i])
        checksum += best + scores.index(best) + grand
    print("checksum=%r" % checksum)


main()
