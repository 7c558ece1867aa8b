# expect: compiled
"""Objects subscripted through their class's own ``__getitem__``/``__setitem__`` (a grid
over a flat array.array, as scimark's Array2D; a bounded vector), with the index check of
the class (``raise IndexError``), and ``raise``/``assert`` in the loops themselves: the
methods are inlined; a kernel that reaches a ``raise`` (or a failing ``assert``) stops and
CPython runs the loop again from its entry, raising the exception itself."""
from array import array


class Grid:
    def __init__(self, width, height):
        self.width = width
        self.height = height
        self.data = array('d', [0.0]) * (width * height)

    def _index(self, x, y):
        if 0 <= x < self.width and 0 <= y < self.height:
            return y * self.width + x
        raise IndexError("grid index out of range")

    def __getitem__(self, x_y):
        (x, y) = x_y
        return self.data[self._index(x, y)]

    def __setitem__(self, x_y, value):
        (x, y) = x_y
        self.data[self._index(x, y)] = value


class Bounded:
    def __init__(self, values, limit):
        self.values = list(values)
        self.limit = limit

    def __getitem__(self, k):
        return self.values[k]

    def __setitem__(self, k, value):
        if abs(value) > self.limit:
            raise ValueError(f"{value!r} is over the limit {self.limit}")
        self.values[k] = value


def fill(grid):
    for y in range(grid.height):  # mg: compiled
        for x in range(grid.width):
            grid[x, y] = ((x * 7 + y * 3) % 13) / 13.0
    return grid


def relax(omega, grid, cycles):
    for p in range(cycles):  # mg: compiled
        for y in range(1, grid.height - 1):
            for x in range(1, grid.width - 1):
                grid[x, y] = (omega * 0.25 * (grid[x, y - 1] + grid[x, y + 1] + grid[x - 1, y]
                                              + grid[x + 1, y]) + (1.0 - omega) * grid[x, y])
    return grid


def shift_right(grid):
    for y in range(grid.height):
        for x in range(grid.width):
            grid[x + 1, y] = grid[x, y]   # the last column: the grid's own IndexError
    return grid


def smooth(vector, n):
    for k in range(1, n):  # mg: compiled
        vector[k] += 0.5 * vector[k - 1]
    return vector


def normalized(values, n, out):
    total = 0.0
    for i in range(n):  # mg: compiled
        assert values[i] >= 0.0, f"negative value at {i}"
        total += values[i]
    for i in range(n):
        if total == 0.0:
            raise ZeroDivisionError("all values are zero")
        out[i] = values[i] / total
    return out


grid = relax(1.25, fill(Grid(60, 40)), 20)
print(sum(grid.data), grid[30, 20], grid[1, 1])
try:
    shift_right(fill(Grid(8, 5)))
except IndexError as error:
    print("IndexError:", error)
print(smooth(Bounded([1.0] * 50, 10.0), 50).values[-3:])
try:
    smooth(Bounded([4.0] * 50, 10.0), 50)
except ValueError as error:
    print("ValueError:", error)
values = [float((k * 5) % 9) for k in range(300)]
print(sum(normalized(values, 300, [0.0] * 300)))
values[123] = -1.0
try:
    normalized(values, 300, [0.0] * 300)
except AssertionError as error:
    print("AssertionError:", error)
try:
    normalized([0.0] * 10, 10, [0.0] * 10)
except ZeroDivisionError as error:
    print("ZeroDivisionError:", error)
