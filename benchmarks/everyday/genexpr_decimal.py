"""The hot helper of ``genexpr_energy.py``, ``sum(v * v for v in velocity)``, over exact
decimal measurements (``decimal.Decimal``, as bookkeeping-minded homework keeps them):
no kernel holds a Decimal, so the site's guard fails at every entry and megaguards must
cost next to nothing there.

    python genexpr_decimal.py [PARTICLES] [STEPS]      (default 2000 particles, 400 steps)
"""
import sys
from decimal import Decimal


def energy(velocity, mass):
    return mass * sum(v * v for v in velocity) / 2


def main():
    particles = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    velocities = []
    for p in range(particles):
        velocities.append([Decimal(p % 7), Decimal(p % 5) / 2, Decimal(3), Decimal(p % 3) / 4])
    masses = [1 + p % 4 for p in range(particles)]
    checksum = Decimal(0)
    for step in range(steps):
        total = Decimal(0)
        for p in range(particles):
            total += energy(velocities[p], masses[p])
        checksum += total * (step % 3 + 1)
        velocities[step % particles][1] += Decimal("0.5")
    print("checksum=%s" % checksum)


main()
