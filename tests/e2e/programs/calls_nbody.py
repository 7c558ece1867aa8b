# expect: compiled
"""An N-body step whose inner loop calls a helper for the pairwise force."""
import math


def pair_factor(dx, dy, dz, mass):
    distance2 = dx * dx + dy * dy + dz * dz + 0.01
    return mass / (distance2 * math.sqrt(distance2))


def accelerate(px, py, pz, vx, vy, vz, mass, n, dt):
    for i in range(n):  # mg: compiled
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            if i != j:
                dx = px[j] - px[i]
                dy = py[j] - py[i]
                dz = pz[j] - pz[i]
                f = pair_factor(dx, dy, dz, mass[j])
                ax += dx * f
                ay += dy * f
                az += dz * f
        vx[i] += ax * dt
        vy[i] += ay * dt
        vz[i] += az * dt


def drift(p, v, n, dt):
    for i in range(n):
        p[i] += v[i] * dt


def simulate(px, py, pz, vx, vy, vz, mass, n, dt, steps):
    for s in range(steps):  # mg: compiled
        accelerate(px, py, pz, vx, vy, vz, mass, n, dt)
        drift(px, vx, n, dt)
        drift(py, vy, n, dt)
        drift(pz, vz, n, dt)


def kinetic(vx, vy, vz, mass, n):
    energy = 0.0
    for i in range(n):  # mg: compiled
        energy += 0.5 * mass[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i])
    return energy


n = 9
px = [math.cos(k * 1.3) * (k + 1) for k in range(n)]
py = [math.sin(k * 1.3) * (k + 1) for k in range(n)]
pz = [0.1 * (k % 3) for k in range(n)]
vx = [0.0] * n
vy = [0.0] * n
vz = [0.0] * n
mass = [1.0 + 0.25 * k for k in range(n)]
accelerate(px, py, pz, vx, vy, vz, mass, n, 0.01)
print(repr(vx), repr(vy))
simulate(px, py, pz, vx, vy, vz, mass, n, 0.01, 25)
print(repr(px))
print(repr(kinetic(vx, vy, vz, mass, n)))
