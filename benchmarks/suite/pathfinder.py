"""Rodinia pathfinder: the cheapest path from the top row to the bottom row of a grid of
walls (small integer costs), moving down one row per step to the same column or a
neighbouring one.  Dynamic programming row by row: each row's costs from the previous
row's, a three-way minimum per column.

Under megaguards each row (``advance``) compiles; the loop over rows stays in CPython
because it swaps the two row lists (an array used as a value)."""
from common import Timer, arguments, generator, report, run

SIZES = {"small": {"rows": 20, "cols": 4000}, "medium": {"rows": 100, "cols": 20000},
         "large": {"rows": 100, "cols": 100000}}


def advance(previous, current, wall_row, cols):
    for n in range(cols):
        best = previous[n]
        if n > 0 and previous[n - 1] < best:
            best = previous[n - 1]
        if n < cols - 1 and previous[n + 1] < best:
            best = previous[n + 1]
        current[n] = wall_row[n] + best


def pathfinder(wall, rows, cols):
    previous = list(wall[0])
    current = [0] * cols
    for t in range(1, rows):
        advance(previous, current, wall[t], cols)
        previous, current = current, previous
    return previous


def make_input(parameters):
    rows, cols = parameters["rows"], parameters["cols"]
    random = generator("pathfinder")
    wall = [[random.randrange(10) for _ in range(cols)] for _ in range(rows)]
    return {"wall": wall, "rows": rows, "cols": cols}


def work(parameters):
    """Cell updates: every column of every row after the first."""
    return (parameters["rows"] - 1) * parameters["cols"]


def checksum(result):
    """Integer costs: the total mixed with the cheapest path and its column."""
    cheapest = min(result)
    return sum(result) * 1000003 + cheapest * 1009 + result.index(cheapest)


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    timer = Timer()
    timer.start()
    result = pathfinder(inputs["wall"], inputs["rows"], inputs["cols"])
    timer.stop()
    report(checksum(result), timer)


if __name__ == "__main__":
    run(main)
