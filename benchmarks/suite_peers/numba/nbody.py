"""numba peer of benchmarks/suite/nbody.py: positions, velocities and accelerations as
(n, 3) arrays; the bodies under prange in both kernels, each body's pull summed over the
others in the program's order."""
import math

import numba
import numpy

import _peer

program = _peer.suite_program("nbody")
SOFTENING = program.SOFTENING


@numba.njit(cache=True)
def pair_force(dx, dy, dz, mass):
    distance2 = dx * dx + dy * dy + dz * dz + SOFTENING
    return mass / (distance2 * math.sqrt(distance2))


@_peer.kernel
def accelerate(position, mass, acceleration, n):
    for i in numba.prange(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            dx = position[j, 0] - position[i, 0]
            dy = position[j, 1] - position[i, 1]
            dz = position[j, 2] - position[i, 2]
            factor = pair_force(dx, dy, dz, mass[j])
            ax += dx * factor
            ay += dy * factor
            az += dz * factor
        acceleration[i, 0] = ax
        acceleration[i, 1] = ay
        acceleration[i, 2] = az


@_peer.kernel
def advance(position, velocity, acceleration, n, dt):
    for i in numba.prange(n):
        for k in range(3):
            velocity[i, k] += acceleration[i, k] * dt
            position[i, k] += velocity[i, k] * dt


def compute(inputs):
    position, velocity, mass, n = inputs["position"], inputs["velocity"], inputs["mass"], inputs["n"]
    acceleration = numpy.zeros((n, 3))
    for step in range(inputs["steps"]):
        accelerate(position, mass, acceleration, n)
        advance(position, velocity, acceleration, n, program.TIME_STEP)
    return position.tolist(), velocity.tolist()


def checksum(outputs):
    return program.checksum(*outputs)


if __name__ == "__main__":
    _peer.run("nbody", compute, checksum)
