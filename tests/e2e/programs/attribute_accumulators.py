# expect: compiled
"""Attributes of one object assigned in a loop (``self.total += x``): compiled as variables,
read at entry and set once after the loop; where setting one would run code (a property,
``__setattr__``, ``__slots__`` without it) or another name may reach it, CPython runs the loop."""


class Stats:
    def __init__(self):
        self.total = 0.0
        self.count = 0
        self.largest = float("-inf")

    def add_all(self, values):
        for i in range(len(values)):  # mg: compiled
            self.total += values[i]
            self.count += 1
            if values[i] > self.largest:
                self.largest = values[i]


class Slotted:
    __slots__ = ("total",)

    def __init__(self):
        self.total = 0


class Watched:
    def __init__(self):
        self.log = []
        self.total = 0

    def __setattr__(self, name, value):
        if name == "total":
            self.log.append(value)
        object.__setattr__(self, name, value)


class Gauge:
    def __init__(self):
        self._level = 0.0

    @property
    def level(self):
        return self._level

    @level.setter
    def level(self, value):
        self._level = min(value, 10.0)


def into(holder, values):
    for v in values:  # mg: compiled
        holder.total += v * 2
    return holder.total


def watched(holder, values):
    for v in values:  # mg: fallback "would run its code"
        holder.total += v


def gauge(g, n):
    for k in range(n):  # mg: fallback "would run its code"
        g.level = g.level + 1.5


def two_names(a, b, n):
    for k in range(n):  # mg: fallback "one object may be both"
        a.total += k
        b.total += 1


s = Stats()
s.add_all([3.5, 1.0, 7.25, -2.0])
s.add_all([0.5])
print(s.total, s.count, s.largest)
print(into(Slotted(), [1, 2, 3]), into(Stats(), [0.5, 0.25]))
w = Watched()
watched(w, [1, 2, 3])
print(w.total, w.log)
g = Gauge()
gauge(g, 9)
print(g.level)
one = Stats()
two_names(one, one, 4)
print(one.total)
