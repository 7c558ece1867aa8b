# expect: compiled
"""Methods called on self inside loops, reading scalar attributes and arrays."""
import numpy


class Particles:
    def __init__(self, n):
        self.n = n
        self.damping = 0.75
        self.gravity = -9.5
        self.mass = [1.0 + 0.5 * (k % 3) for k in range(n)]
        self.height = [float(k * k % 7) for k in range(n)]

    def weight(self, i):
        return self.mass[i] * self.gravity

    def energy_of(self, i, speed):
        return 0.5 * self.mass[i] * speed * speed - self.weight(i) * self.height[i]

    def total_energy(self, speeds):
        total = 0.0
        for i in range(self.n):  # mg: compiled
            total += self.energy_of(i, speeds[i]) * self.damping
        return total

    def damp(self, speeds):
        for i in range(self.n):  # mg: compiled
            speeds[i] = self.scaled(speeds[i])

    def scaled(self, v):
        return v * self.damping


class HeavyParticles(Particles):
    def weight(self, i):
        return 2.0 * self.mass[i] * self.gravity


class Field:
    def __init__(self, values):
        self.values = values
        self.offset = 3

    def at(self, i):
        return self.values[(i + self.offset) % self.values.shape[0]]

    def shifted(self):
        out = numpy.zeros_like(self.values)
        for i in range(self.values.shape[0]):  # mg: compiled
            out[i] = self.at(i) - self.values[i]
        return out


p = Particles(10)
speeds = [0.25 * k - 1.0 for k in range(10)]
print(repr(p.total_energy(speeds)))
p.damp(speeds)
print(repr(speeds))
print(repr(HeavyParticles(10).total_energy(speeds)))
f = Field(numpy.linspace(-1.0, 2.0, 9))
print(repr(f.shifted().tolist()))
