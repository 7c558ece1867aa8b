# expect: compiled
"""A tiny gravitational n-body step with 2-D float lists."""
import math


def step(pos, vel, mass, n, dt, steps):
    for s in range(steps):  # mg: compiled
        for i in range(n):
            ax = 0.0
            ay = 0.0
            for j in range(n):
                if i != j:
                    dx = pos[j][0] - pos[i][0]
                    dy = pos[j][1] - pos[i][1]
                    d2 = dx * dx + dy * dy + 0.01
                    inv = mass[j] / (d2 * math.sqrt(d2))
                    ax += dx * inv
                    ay += dy * inv
            vel[i][0] += ax * dt
            vel[i][1] += ay * dt
        for i in range(n):
            pos[i][0] += vel[i][0] * dt
            pos[i][1] += vel[i][1] * dt


n = 5
pos = [[math.cos(k * 1.3) * (k + 1), math.sin(k * 1.3) * (k + 1)] for k in range(n)]
vel = [[0.0, 0.0] for _ in range(n)]
mass = [1.0 + 0.25 * k for k in range(n)]
step(pos, vel, mass, n, 0.01, 20)
print(repr(pos))
print(repr(vel))
energy = 0.0
for i in range(n):  # mg: compiled
    energy += 0.5 * mass[i] * (vel[i][0] ** 2 + vel[i][1] ** 2)
print(repr(energy))
