"""Rodinia cfd (euler3d), simplified: the 3-D Euler equations of compressible flow on an
unstructured mesh of tetrahedra, explicit Runge-Kutta time stepping.

Every element keeps its conserved variables (density, momentum x/y/z, energy), its
volume, and for each of its four faces the neighbouring element (or -1 for a wall, -2 for
the far field) and the face's normal scaled by its area.  Per stage the flux through every
face is the central average of both sides' Euler fluxes (Rodinia's flux contributions,
dotted with the face normal here) plus a smoothing term, summed per element.  The mesh is
synthetic (Rodinia reads fvcorr.domn.097K): neighbours lie near in numbering, as in a
renumbered mesh, and the normals are random, so the flow is not physical but the work and
the access pattern (an indirect gather through the neighbour list) are Rodinia's.

MegaGuards could not parallelise it (the reads ``variables[neighbour]`` go through an
index array); here the element loops write only their own element's entries, so they
are parallel whatever the neighbour list holds."""
import math

from common import Timer, arguments, fsum_nested, generator, report, run

SIZES = {"small": {"elements": 3000, "iterations": 3},
         "medium": {"elements": 24000, "iterations": 10},
         "large": {"elements": 97046, "iterations": 100}}

GAMMA = 1.4
RK = 3  # Runge-Kutta stages per iteration
FAR_FIELD_MACH = 1.2
ANGLE_OF_ATTACK = 0.0  # radians
SMOOTHING = 1.0  # Rodinia has 0.2; the synthetic mesh needs more to stay stable
WALL = -1
FAR_FIELD = -2
LOCALITY = 48  # how far in numbering a neighbour may lie
# where each conserved variable sits in an element's row (Rodinia's VAR_*)
DENSITY = 0
MOMENTUM_X = 1
MOMENTUM_Y = 2
MOMENTUM_Z = 3
ENERGY = 4


def pressure_of(density, momentum_x, momentum_y, momentum_z, energy):
    speed_squared = (momentum_x * momentum_x + momentum_y * momentum_y
                     + momentum_z * momentum_z) / (density * density)
    return (GAMMA - 1.0) * (energy - 0.5 * density * speed_squared)


def speed_of_sound(density, pressure):
    return math.sqrt(GAMMA * pressure / density)


def face_flux(density, momentum_x, momentum_y, momentum_z, energy, nx, ny, nz):
    """The Euler flux of one side through a face of normal (nx, ny, nz)."""
    pressure = pressure_of(density, momentum_x, momentum_y, momentum_z, energy)
    normal_velocity = (momentum_x * nx + momentum_y * ny + momentum_z * nz) / density
    return (density * normal_velocity,
            momentum_x * normal_velocity + pressure * nx,
            momentum_y * normal_velocity + pressure * ny,
            momentum_z * normal_velocity + pressure * nz,
            (energy + pressure) * normal_velocity)


def compute_step_factors(variables, volumes, step_factors, count):
    for i in range(count):
        density = variables[i][DENSITY]
        momentum_x = variables[i][MOMENTUM_X]
        momentum_y = variables[i][MOMENTUM_Y]
        momentum_z = variables[i][MOMENTUM_Z]
        energy = variables[i][ENERGY]
        speed = math.sqrt(momentum_x * momentum_x + momentum_y * momentum_y
                          + momentum_z * momentum_z) / density
        pressure = pressure_of(density, momentum_x, momentum_y, momentum_z, energy)
        step_factors[i] = 0.5 / (math.sqrt(volumes[i]) * (speed + speed_of_sound(density, pressure)))


def compute_fluxes(variables, neighbours, normals, far_field, fluxes, count):
    for i in range(count):
        density = variables[i][DENSITY]
        momentum_x = variables[i][MOMENTUM_X]
        momentum_y = variables[i][MOMENTUM_Y]
        momentum_z = variables[i][MOMENTUM_Z]
        energy = variables[i][ENERGY]
        pressure = pressure_of(density, momentum_x, momentum_y, momentum_z, energy)
        speed = math.sqrt(momentum_x * momentum_x + momentum_y * momentum_y
                          + momentum_z * momentum_z) / density
        sound = speed_of_sound(density, pressure)
        flux_density = 0.0
        flux_x = 0.0
        flux_y = 0.0
        flux_z = 0.0
        flux_energy = 0.0
        for face in range(4):
            neighbour = neighbours[i][face]
            nx = normals[i][face][0]
            ny = normals[i][face][1]
            nz = normals[i][face][2]
            if neighbour == WALL:
                # a wall: only the pressure pushes on it
                flux_x += pressure * nx
                flux_y += pressure * ny
                flux_z += pressure * nz
            else:
                if neighbour >= 0:
                    o_density = variables[neighbour][DENSITY]
                    o_x = variables[neighbour][MOMENTUM_X]
                    o_y = variables[neighbour][MOMENTUM_Y]
                    o_z = variables[neighbour][MOMENTUM_Z]
                    o_energy = variables[neighbour][ENERGY]
                else:
                    o_density = far_field[DENSITY]
                    o_x = far_field[MOMENTUM_X]
                    o_y = far_field[MOMENTUM_Y]
                    o_z = far_field[MOMENTUM_Z]
                    o_energy = far_field[ENERGY]
                o_pressure = pressure_of(o_density, o_x, o_y, o_z, o_energy)
                o_speed = math.sqrt(o_x * o_x + o_y * o_y + o_z * o_z) / o_density
                normal_length = math.sqrt(nx * nx + ny * ny + nz * nz)
                smoothing = -0.5 * SMOOTHING * normal_length * (
                    speed + o_speed + sound + speed_of_sound(o_density, o_pressure))
                mine = face_flux(density, momentum_x, momentum_y, momentum_z, energy, nx, ny, nz)
                theirs = face_flux(o_density, o_x, o_y, o_z, o_energy, nx, ny, nz)
                flux_density += smoothing * (density - o_density) + 0.5 * (mine[0] + theirs[0])
                flux_x += smoothing * (momentum_x - o_x) + 0.5 * (mine[1] + theirs[1])
                flux_y += smoothing * (momentum_y - o_y) + 0.5 * (mine[2] + theirs[2])
                flux_z += smoothing * (momentum_z - o_z) + 0.5 * (mine[3] + theirs[3])
                flux_energy += smoothing * (energy - o_energy) + 0.5 * (mine[4] + theirs[4])
        fluxes[i][DENSITY] = flux_density
        fluxes[i][MOMENTUM_X] = flux_x
        fluxes[i][MOMENTUM_Y] = flux_y
        fluxes[i][MOMENTUM_Z] = flux_z
        fluxes[i][ENERGY] = flux_energy


def time_step(stage, old_variables, variables, step_factors, fluxes, count):
    for i in range(count):
        factor = step_factors[i] / (RK + 1 - stage)
        for v in range(5):
            variables[i][v] = old_variables[i][v] + factor * fluxes[i][v]


def simulate(variables, volumes, neighbours, normals, far_field, iterations):
    count = len(variables)
    old_variables = [[0.0] * 5 for _ in range(count)]
    fluxes = [[0.0] * 5 for _ in range(count)]
    step_factors = [0.0] * count
    for iteration in range(iterations):
        for i in range(count):
            for v in range(5):
                old_variables[i][v] = variables[i][v]
        compute_step_factors(variables, volumes, step_factors, count)
        for stage in range(RK):
            compute_fluxes(variables, neighbours, normals, far_field, fluxes, count)
            time_step(stage, old_variables, variables, step_factors, fluxes, count)
    return variables


def far_field_state():
    density = 1.4
    pressure = 1.0
    speed = FAR_FIELD_MACH * math.sqrt(GAMMA * pressure / density)
    momentum_x = density * speed * math.cos(ANGLE_OF_ATTACK)
    momentum_y = density * speed * math.sin(ANGLE_OF_ATTACK)
    energy = 0.5 * density * speed * speed + pressure / (GAMMA - 1.0)
    return [density, momentum_x, momentum_y, 0.0, energy]


def make_input(parameters):
    count = parameters["elements"]
    random = generator("euler3d")
    far_field = far_field_state()
    # the free stream, slightly disturbed per element
    variables = [[value * (1.0 + 0.01 * (random.random() - 0.5)) for value in far_field]
                 for _ in range(count)]
    volumes = [0.5 + random.random() for _ in range(count)]
    # a neighbour near in numbering; faces that fall off the mesh face the far field,
    # and about one face in twenty is a wall
    offsets = [[random.randint(-LOCALITY, LOCALITY) or 1 for _ in range(4)] for _ in range(count)]
    walls = [[random.random() < 0.05 for _ in range(4)] for _ in range(count)]
    neighbours = [[WALL if walls[i][f] else
                   i + offsets[i][f] if 0 <= i + offsets[i][f] < count else FAR_FIELD
                   for f in range(4)] for i in range(count)]
    # a tetrahedron is closed: its four area-scaled normals sum to zero
    normals = [[[random.random() - 0.5 for _ in range(3)] for _ in range(3)] for _ in range(count)]
    for faces in normals:
        faces.append([-(faces[0][k] + faces[1][k] + faces[2][k]) for k in range(3)])
    return {"variables": variables, "volumes": volumes, "neighbours": neighbours,
            "normals": normals, "far_field": far_field, "iterations": parameters["iterations"]}


def work(parameters):
    """Element flux evaluations: every element once per Runge-Kutta stage per iteration."""
    return parameters["elements"] * parameters["iterations"] * RK


def main():
    size, parameters = arguments(SIZES, __doc__)
    inputs = make_input(parameters)
    variables = inputs["variables"]
    timer = Timer()
    timer.start()
    simulate(variables, inputs["volumes"], inputs["neighbours"], inputs["normals"],
             inputs["far_field"], inputs["iterations"])
    timer.stop()
    report(fsum_nested(variables), timer)


if __name__ == "__main__":
    run(main)
