# expect: compiled
"""Lists of objects with numeric fields (``p.x += p.vx * dt``, ``ps[i].m``): each field the
loop uses is read into an array, the kernel runs on it, and the values it changed are set on
the objects after the run (methods, and functions the objects are passed to, inlined; a
field of a field, ``b.pos.x``, is an array of the ``pos`` objects' ``x``); ``p`` after the loop is the last object, as in CPython.  Classes
whose fields run code (a property, ``__setattr__``), lists holding one object twice (a written
field), or objects of several classes stay in CPython."""


class Particle:
    def __init__(self, k):
        self.x = k * 0.5
        self.y = 1.0 - k * 0.25
        self.vx = (k % 3) - 1.0
        self.vy = 0.5 * (k % 2)
        self.m = 1 + k % 4          # an int field


class Planet(Particle):
    def advance(self, dt):
        self.x += self.vx * dt
        self.y += self.vy * dt
        self.bounce()

    def bounce(self):
        if self.y < 0.0:
            self.y = -self.y
            self.vy = -self.vy

    def energy(self):
        return 0.5 * self.m * (self.vx * self.vx + self.vy * self.vy)


class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def dot(self, k):
        return self.x * k + self.y * k


class Ball:
    def __init__(self, k):
        self.pos = Vec(k * 0.5, 2.0 - (k % 5))
        self.vel = Vec((k % 3) - 1.0, 0.25 * (k % 4))


class Slotted:
    __slots__ = ("value", "weight")

    def __init__(self, k):
        self.value = k * 1.5
        self.weight = 2.0


class Guarded:
    def __init__(self, k):
        self._x = float(k)

    @property
    def x(self):
        return self._x

    @x.setter
    def x(self, value):
        self._x = min(value, 3.0)


class Defaulted:
    scale = 2.0                    # read from the class: no instance has its own

    def __init__(self, k):
        self.v = float(k)


def drift(ps, dt, steps):
    for step in range(steps):  # mg: compiled
        for p in ps:
            p.x += p.vx * dt
            p.y += p.vy * dt
    return p


def drift_shared(ps, dt, steps):
    for step in range(steps):  # mg: fallback "more than once"
        for p in ps:
            p.x += p.vx * dt


def drift_mixed(ps, dt, steps):
    for step in range(steps):  # mg: fallback "several classes"
        for p in ps:
            p.x += p.vx * dt


def energy(ps):
    total = 0.0
    for i in range(len(ps)):  # mg: compiled
        total += 0.5 * ps[i].m * (ps[i].vx ** 2 + ps[i].vy ** 2)
    return total


def counted(ps):
    heavy = 0
    for i, p in enumerate(ps):  # mg: compiled
        if p.m > 2:
            heavy += p.m
            p.vx = -p.vx
    return heavy, i


def slotted_sum(items):
    s = 0.0
    for item in items:  # mg: compiled
        s += item.value * item.weight
        item.weight += 1.0
    return s


def clamp(items):
    for item in items:  # mg: fallback "property"
        item.x += 2.5


def defaulted(items):
    out = 0.0
    for d in items:  # mg: compiled
        out += d.v * d.scale
    return out


def grid_scale(g):
    for i in range(len(g)):  # mg: compiled
        for j in range(len(g[i])):
            g[i][j].x *= 2.0


def attract(ps, dt):
    for i in range(len(ps)):  # mg: compiled
        b1 = ps[i]
        for j in range(i + 1, len(ps)):
            b2 = ps[j]
            dx = b1.x - b2.x
            d2 = dx * dx + 0.01
            b1.vx -= dx * b2.m * dt / d2
            b2.vx += dx * b1.m * dt / d2


def orbit(planets, dt, steps):
    total = 0.0
    for step in range(steps):  # mg: compiled
        for planet in planets:
            planet.advance(dt)
            total += planet.energy()
    return total


def push(p, dt):
    p.vx -= 0.1 * p.m * dt


def glide(p, dt):
    p.x += p.vx * dt
    return p.x


def step_all(ps, dt, steps):
    farthest = 0.0
    for step in range(steps):  # mg: compiled
        for p in ps:
            push(p, dt)
            farthest = max(farthest, glide(p, dt))
    return farthest


def bounce_all(balls, dt, steps):
    for step in range(steps):  # mg: compiled
        for b in balls:
            b.pos.x += b.vel.x * dt
            b.pos.y += b.vel.y * dt
            if b.pos.y < 0.0:
                b.vel.y = -b.vel.y
    return b.pos.y


def momentum(balls):
    total = 0.0
    for b in balls:  # mg: compiled
        total += b.vel.dot(0.5)
    return total


def pull(ps):
    for a in ps:  # mg: compiled
        for b in ps:
            if a is not b:
                a.vx += (b.x - a.x) * 0.001


def show(ps):
    print([round(p.x, 6) for p in ps][:6], [round(p.y, 6) for p in ps][-3:], [p.vx for p in ps][:6])


ps = [Particle(k) for k in range(5000)]
last = drift(ps, 0.01, 20)
print(last is ps[-1], round(last.x, 9))
show(ps)
print(energy(ps))
print(counted(ps))
show(ps)
print(type(ps[3].m).__name__, ps[3].m)
few = ps[:300]
attract(few, 0.001)
show(few)
pull(few)
show(few)

planets = [Planet(k) for k in range(2000)]
print(orbit(planets, 0.05, 30))
show(planets)

print(step_all(ps, 0.02, 10))
show(ps)

balls = [Ball(k) for k in range(3000)]
print(bounce_all(balls, 0.05, 25), [round(b.pos.x, 6) for b in balls][:5], sum(b.vel.y for b in balls))
print(momentum(balls))
crossed = [Ball(k) for k in range(1000)]
crossed[10].vel = crossed[20].pos   # one Vec as a position and a velocity
print(bounce_all(crossed, 0.05, 3), crossed[20].pos.x, crossed[10].vel is crossed[20].pos)

items = [Slotted(k) for k in range(3000)]
print(slotted_sum(items), items[5].weight)

guarded = [Guarded(k) for k in range(2000)]
clamp(guarded)
print(sum(item.x for item in guarded))

print(defaulted([Defaulted(k) for k in range(2000)]), "scale" in vars(Defaulted(1)))

twice = [Particle(k) for k in range(1000)]
twice[7] = twice[3]                # one object twice: its field is written twice per sweep
drift_shared(twice, 0.5, 3)
print(twice[3].x, twice[7] is twice[3], round(sum(p.x for p in twice), 6))

mixed = [Particle(k) for k in range(1500)] + [Slotted(1)]
try:
    drift_mixed(mixed, 0.1, 2)
except AttributeError as error:
    print("AttributeError:", error, round(mixed[0].x, 6), round(mixed[1499].x, 6))

grid = [[Particle(i * 10 + j) for j in range(300)] for i in range(40)]
grid_scale(grid)
print(grid[3][4].x, grid[39][299].x)

empty = []
p = "before"
for p in empty:
    p.x = 1
print(p)
