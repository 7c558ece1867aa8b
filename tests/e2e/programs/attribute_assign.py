# expect: compiled
"""Loops assigning attributes of a plain object compile (set once after the loop); a
property read keeps the loop in CPython."""


class Acc:
    def __init__(self):
        self.total = 0
        self.items = [3, 1, 4, 1, 5]

    def add_all(self):
        for i in range(len(self.items)):  # mg: compiled
            self.total += self.items[i]
        return self.total

    def weighted(self):
        w = 0
        for i in range(len(self.items)):  # mg: compiled
            w += self.items[i] * (i + 1) + self.total
        return w


a = Acc()
print(repr(a.add_all()), repr(a.add_all()))
print(repr(a.weighted()))


class Prop:
    def __init__(self):
        self._n = 4

    @property
    def n(self):
        print("property read")
        return self._n

    def count(self):
        c = 0
        for i in range(5):  # mg: fallback "property or descriptor"
            c += self.n
        return c


print(repr(Prop().count()))
