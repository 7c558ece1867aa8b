"""A hot helper around ``sum(x * x for x in values)``, called for many small
vectors whose entries mix ints and floats (measurements typed in by hand: 3, 2.5,
4, ...), as physics homework computes kinetic energies particle by particle.

    python genexpr_energy.py [PARTICLES] [STEPS]      (default 2000 particles, 1000 steps)
"""
import sys


def energy(velocity, mass):
    return 0.5 * mass * sum(v * v for v in velocity)


def main():
    particles = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    velocities = []
    for p in range(particles):
        velocities.append([p % 7, (p % 5) / 2.0, 3, (p % 3) * 0.25])
    masses = [1 + p % 4 for p in range(particles)]
    checksum = 0.0
    for step in range(steps):
        total = 0.0
        for p in range(particles):
            total += energy(velocities[p], masses[p])
        checksum += total * (step % 3 + 1)
        velocities[step % particles][1] += 0.5
    print("checksum=%r" % checksum)


main()
