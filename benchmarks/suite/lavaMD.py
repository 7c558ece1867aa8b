"""Rodinia lavaMD: particle potentials and forces in a 3-D grid of boxes.  Every particle
of a box interacts with every particle of the box itself and of its neighbouring boxes
(up to 26) through a Gaussian-screened pair potential.

Particles are indexed in full (``position[home][i][1]``), as Rodinia's C does: megaguards
keeps a loop that takes a row alias (``a = position[home][i]``) in CPython (partial
indexing, a documented limitation).  The neighbours of a box are found on the fly from
its grid coordinates (a ragged list of neighbour lists would keep the box loop in
CPython: its lists are not rectangular)."""
import math

from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"boxes": 2, "per_box": 40}, "medium": {"boxes": 4, "per_box": 60},
         "large": {"boxes": 10, "per_box": 100}}

ALPHA = 0.5


def interact(position, charge, force, boxes, per_box):
    a2 = 2.0 * ALPHA * ALPHA
    for home in range(boxes * boxes * boxes):
        x = home // (boxes * boxes)
        y = home // boxes % boxes
        z = home % boxes
        for dx in range(-1, 2):
            for dy in range(-1, 2):
                for dz in range(-1, 2):
                    if 0 <= x + dx < boxes and 0 <= y + dy < boxes and 0 <= z + dz < boxes:
                        other = ((x + dx) * boxes + y + dy) * boxes + z + dz
                        pairs(position, charge, force, home, other, per_box, a2)


def pairs(position, charge, force, home, other, per_box, a2):
    """Every particle of the home box against every particle of the other box."""
    for i in range(per_box):
        for j in range(per_box):
            r2 = (position[home][i][0] + position[other][j][0]
                  - (position[home][i][1] * position[other][j][1]
                     + position[home][i][2] * position[other][j][2]
                     + position[home][i][3] * position[other][j][3]))
            u2 = a2 * r2
            vij = math.exp(-u2)
            fs = 2.0 * vij
            dx = position[home][i][1] - position[other][j][1]
            dy = position[home][i][2] - position[other][j][2]
            dz = position[home][i][3] - position[other][j][3]
            q = charge[other][j]
            force[home][i][0] += q * vij
            force[home][i][1] += q * fs * dx
            force[home][i][2] += q * fs * dy
            force[home][i][3] += q * fs * dz


def make_input(parameters):
    boxes, per_box = parameters["boxes"], parameters["per_box"]
    box_count = boxes * boxes * boxes
    random = generator("lavaMD")
    # Rodinia: v, x, y, z of each particle drawn in [0.1, 1.0), charges likewise
    position = [[[(random.randrange(1, 10) + 1) / 10.0 for _ in range(4)] for _ in range(per_box)]
                for _ in range(box_count)]
    charge = [[(random.randrange(1, 10) + 1) / 10.0 for _ in range(per_box)]
              for _ in range(box_count)]
    return {"position": position, "charge": charge, "boxes": boxes, "per_box": per_box}


def work(parameters):
    """Particle pairs: (3 boxes - 2)^3 (home, neighbour) box pairs, per_box^2 pairs each."""
    return (3 * parameters["boxes"] - 2) ** 3 * parameters["per_box"] ** 2


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    boxes, per_box = inputs["boxes"], inputs["per_box"]
    box_count = boxes * boxes * boxes
    force = [[[0.0, 0.0, 0.0, 0.0] for _ in range(per_box)] for _ in range(box_count)]
    timer = Timer()
    timer.start()
    interact(inputs["position"], inputs["charge"], force, boxes, per_box)
    timer.stop()
    report(fsum_nested(force), timer)


if __name__ == "__main__":
    run(main)
