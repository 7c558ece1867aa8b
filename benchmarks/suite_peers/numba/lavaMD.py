"""numba peer of benchmarks/suite/lavaMD.py: positions as a (boxes^3, per_box, 4) array,
charges (boxes^3, per_box); the home boxes under prange (each writes only its own
particles' forces), the neighbour boxes and the particle pairs in the program's order."""
import math

import numba
import numpy

import _peer

ALPHA = _peer.suite_program("lavaMD").ALPHA


@numba.njit(cache=True)
def pairs(position, charge, force, home, other, per_box, a2):
    for i in range(per_box):
        for j in range(per_box):
            r2 = (position[home, i, 0] + position[other, j, 0]
                  - (position[home, i, 1] * position[other, j, 1]
                     + position[home, i, 2] * position[other, j, 2]
                     + position[home, i, 3] * position[other, j, 3]))
            u2 = a2 * r2
            vij = math.exp(-u2)
            fs = 2.0 * vij
            dx = position[home, i, 1] - position[other, j, 1]
            dy = position[home, i, 2] - position[other, j, 2]
            dz = position[home, i, 3] - position[other, j, 3]
            q = charge[other, j]
            force[home, i, 0] += q * vij
            force[home, i, 1] += q * fs * dx
            force[home, i, 2] += q * fs * dy
            force[home, i, 3] += q * fs * dz


@_peer.kernel
def interact(position, charge, force, boxes, per_box):
    a2 = 2.0 * ALPHA * ALPHA
    for home in numba.prange(boxes * boxes * boxes):
        x = home // (boxes * boxes)
        y = home // boxes % boxes
        z = home % boxes
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                for dz in range(-1, 2):
                    if 0 <= x + dx < boxes and 0 <= y + dy < boxes and 0 <= z + dz < boxes:
                        other = ((x + dx) * boxes + y + dy) * boxes + z + dz
                        pairs(position, charge, force, home, other, per_box, a2)


def compute(inputs):
    position, boxes, per_box = inputs["position"], inputs["boxes"], inputs["per_box"]
    force = numpy.zeros_like(position)
    interact(position, inputs["charge"], force, boxes, per_box)
    return force.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("lavaMD", compute, checksum)
