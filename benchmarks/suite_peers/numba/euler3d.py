"""numba peer of benchmarks/suite/euler3d.py: the conserved variables and fluxes as
(elements, 5) arrays, neighbours (elements, 4), normals (elements, 4, 3); the three element
loops under prange (each writes only its own element's row, the flux loop reads its
neighbours' rows through the index array), the Runge-Kutta loops in Python as in the
program.  The flux helpers are the program's, compiled by numba (tuples and all)."""
import math

import numba
import numpy

import _peer

program = _peer.suite_program("euler3d")
GAMMA, RK, SMOOTHING = program.GAMMA, program.RK, program.SMOOTHING
WALL = program.WALL
DENSITY, MOMENTUM_X, MOMENTUM_Y, MOMENTUM_Z, ENERGY = (
    program.DENSITY, program.MOMENTUM_X, program.MOMENTUM_Y, program.MOMENTUM_Z, program.ENERGY)


@numba.njit(cache=True)
def pressure_of(density, momentum_x, momentum_y, momentum_z, energy):
    speed_squared = (momentum_x * momentum_x + momentum_y * momentum_y
                     + momentum_z * momentum_z) / (density * density)
    return (GAMMA - 1.0) * (energy - 0.5 * density * speed_squared)


@numba.njit(cache=True)
def speed_of_sound(density, pressure):
    return math.sqrt(GAMMA * pressure / density)


@numba.njit(cache=True)
def face_flux(density, momentum_x, momentum_y, momentum_z, energy, nx, ny, nz):
    pressure = pressure_of(density, momentum_x, momentum_y, momentum_z, energy)
    normal_velocity = (momentum_x * nx + momentum_y * ny + momentum_z * nz) / density
    return (density * normal_velocity,
            momentum_x * normal_velocity + pressure * nx,
            momentum_y * normal_velocity + pressure * ny,
            momentum_z * normal_velocity + pressure * nz,
            (energy + pressure) * normal_velocity)


@_peer.kernel
def compute_step_factors(variables, volumes, step_factors, count):
    for i in numba.prange(count):
        density = variables[i, DENSITY]
        momentum_x = variables[i, MOMENTUM_X]
        momentum_y = variables[i, MOMENTUM_Y]
        momentum_z = variables[i, MOMENTUM_Z]
        energy = variables[i, ENERGY]
        speed = math.sqrt(momentum_x * momentum_x + momentum_y * momentum_y
                          + momentum_z * momentum_z) / density
        pressure = pressure_of(density, momentum_x, momentum_y, momentum_z, energy)
        step_factors[i] = 0.5 / (math.sqrt(volumes[i]) * (speed + speed_of_sound(density, pressure)))


@_peer.kernel
def compute_fluxes(variables, neighbours, normals, far_field, fluxes, count):
    for i in numba.prange(count):
        density = variables[i, DENSITY]
        momentum_x = variables[i, MOMENTUM_X]
        momentum_y = variables[i, MOMENTUM_Y]
        momentum_z = variables[i, MOMENTUM_Z]
        energy = variables[i, ENERGY]
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
            neighbour = neighbours[i, face]
            nx = normals[i, face, 0]
            ny = normals[i, face, 1]
            nz = normals[i, face, 2]
            if neighbour == WALL:
                flux_x += pressure * nx
                flux_y += pressure * ny
                flux_z += pressure * nz
            else:
                # the far field is a row of its own: the same five reads either way
                side = variables[neighbour] if neighbour >= 0 else far_field
                o_density = side[DENSITY]
                o_x = side[MOMENTUM_X]
                o_y = side[MOMENTUM_Y]
                o_z = side[MOMENTUM_Z]
                o_energy = side[ENERGY]
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
        fluxes[i, DENSITY] = flux_density
        fluxes[i, MOMENTUM_X] = flux_x
        fluxes[i, MOMENTUM_Y] = flux_y
        fluxes[i, MOMENTUM_Z] = flux_z
        fluxes[i, ENERGY] = flux_energy


@_peer.kernel
def time_step(stage, old_variables, variables, step_factors, fluxes, count):
    for i in numba.prange(count):
        factor = step_factors[i] / (RK + 1 - stage)
        for v in range(5):
            variables[i, v] = old_variables[i, v] + factor * fluxes[i, v]


def compute(inputs):
    variables, volumes, neighbours, normals, far_field = (
        inputs["variables"], inputs["volumes"], inputs["neighbours"], inputs["normals"],
        inputs["far_field"])
    count = len(variables)
    old_variables = numpy.zeros_like(variables)
    fluxes = numpy.zeros_like(variables)
    step_factors = numpy.zeros(count)
    for iteration in range(inputs["iterations"]):
        old_variables[:] = variables
        compute_step_factors(variables, volumes, step_factors, count)
        for stage in range(RK):
            compute_fluxes(variables, neighbours, normals, far_field, fluxes, count)
            time_step(stage, old_variables, variables, step_factors, fluxes, count)
    return variables.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("euler3d", compute, checksum)
