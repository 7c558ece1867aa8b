# expect: compiled
"""Loops in methods reading self.n and self.data[i]."""


class Grid:
    def __init__(self, n):
        self.n = n
        self.scale = 0.5
        self.data = [float(i * i % 7) for i in range(n)]
        self.cells = [[0] * n for _ in range(n)]

    def blur(self):
        out = [0.0] * self.n
        for i in range(self.n):  # mg: compiled
            left = self.data[i - 1] if i > 0 else self.data[i]
            right = self.data[i + 1] if i < self.n - 1 else self.data[i]
            out[i] = (left + self.data[i] + right) * self.scale / 1.5
        return out

    def mark(self):
        for i in range(self.n):  # mg: compiled
            for j in range(self.n):
                self.cells[i][j] = (i * j) % self.n + self.cells[j][i]

    def normalize(self):
        top = self.data[0]
        for i in range(1, self.n):  # mg: compiled
            top = max(top, self.data[i])
        for i in range(self.n):  # mg: compiled
            self.data[i] = self.data[i] / top
        return top


g = Grid(7)
print(repr(g.blur()))
g.mark()
print(repr(g.cells))
print(repr(g.normalize()))
print(repr(g.data))


class Slotted:
    __slots__ = ("k", "vals")

    def __init__(self):
        self.k = 3
        self.vals = [1, 2, 3, 4, 5, 6]

    def bump(self):
        for i in range(0, len(self.vals), self.k):  # mg: compiled
            self.vals[i] += self.k
        return self.vals


print(repr(Slotted().bump()))
