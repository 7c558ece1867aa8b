"""All-pairs gravitational N-body: each time step accumulates on every body the
softened pull of every other body (a helper computes the pairwise force factor),
then updates velocities and positions (leapfrog kick-drift)."""
import math

from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"n": 256, "steps": 4}, "medium": {"n": 1024, "steps": 8},
         "large": {"n": 16384, "steps": 10}}

SOFTENING = 0.01
TIME_STEP = 0.001


def pair_force(dx, dy, dz, mass):
    """The factor by which the separation (dx, dy, dz) scales into an acceleration."""
    distance2 = dx * dx + dy * dy + dz * dz + SOFTENING
    return mass / (distance2 * math.sqrt(distance2))


def accelerate(position, mass, acceleration, n):
    for i in range(n):
        ax = 0.0
        ay = 0.0
        az = 0.0
        for j in range(n):
            dx = position[j][0] - position[i][0]
            dy = position[j][1] - position[i][1]
            dz = position[j][2] - position[i][2]
            factor = pair_force(dx, dy, dz, mass[j])
            ax += dx * factor
            ay += dy * factor
            az += dz * factor
        acceleration[i][0] = ax
        acceleration[i][1] = ay
        acceleration[i][2] = az


def advance(position, velocity, acceleration, n, dt):
    for i in range(n):
        for k in range(3):
            velocity[i][k] += acceleration[i][k] * dt
            position[i][k] += velocity[i][k] * dt


def simulate(position, velocity, mass, n, steps):
    acceleration = [[0.0, 0.0, 0.0] for _ in range(n)]
    for step in range(steps):
        accelerate(position, mass, acceleration, n)
        advance(position, velocity, acceleration, n, TIME_STEP)


def make_input(parameters):
    n = parameters["n"]
    random = generator("nbody")
    position = [[random.uniform(-1.0, 1.0) for _ in range(3)] for _ in range(n)]
    velocity = [[0.1 * random.uniform(-1.0, 1.0) for _ in range(3)] for _ in range(n)]
    mass = [random.uniform(0.5, 1.5) / n for _ in range(n)]
    return {"position": position, "velocity": velocity, "mass": mass, "n": n,
            "steps": parameters["steps"]}


def work(parameters):
    """Pair interactions: n^2 per step."""
    return parameters["n"] ** 2 * parameters["steps"]


def checksum(position, velocity):
    return fsum_nested(position) + fsum_nested(velocity)


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    position, velocity = inputs["position"], inputs["velocity"]
    timer = Timer()
    timer.start()
    simulate(position, velocity, inputs["mass"], inputs["n"], inputs["steps"])
    timer.stop()
    report(checksum(position, velocity), timer)


if __name__ == "__main__":
    run(main)
