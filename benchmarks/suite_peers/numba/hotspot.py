"""numba peer of benchmarks/suite/hotspot.py: the 5-point stencil over 2-D arrays, its
rows under prange (every cell is independent), launched twice per time step between two
arrays as the program does."""
import numba
import numpy

import _peer

program = _peer.suite_program("hotspot")
AMB_TEMP = program.AMB_TEMP


def chip_constants(n):
    """cap, rx, ry, rz, step_size: the set-up of the program's simulate(), same order."""
    grid_height = program.CHIP_HEIGHT / n
    grid_width = program.CHIP_WIDTH / n
    cap = program.FACTOR_CHIP * program.SPEC_HEAT_SI * program.T_CHIP * grid_width * grid_height
    rx = grid_width / (2.0 * program.K_SI * program.T_CHIP * grid_height)
    ry = grid_height / (2.0 * program.K_SI * program.T_CHIP * grid_width)
    rz = program.T_CHIP / (program.K_SI * grid_height * grid_width)
    max_slope = program.MAX_PD / (program.FACTOR_CHIP * program.T_CHIP * program.SPEC_HEAT_SI)
    return cap, rx, ry, rz, program.PRECISION / max_slope


@_peer.kernel
def step(temp, power, result, n, cap, rx, ry, rz, step_size):
    for r in numba.prange(n):
        for c in range(n):
            up = temp[r - 1, c] if r > 0 else temp[r, c]
            down = temp[r + 1, c] if r < n - 1 else temp[r, c]
            left = temp[r, c - 1] if c > 0 else temp[r, c]
            right = temp[r, c + 1] if c < n - 1 else temp[r, c]
            delta = (step_size / cap) * (power[r, c] + (up + down - 2.0 * temp[r, c]) / ry
                                         + (left + right - 2.0 * temp[r, c]) / rx
                                         + (AMB_TEMP - temp[r, c]) / rz)
            result[r, c] = temp[r, c] + delta


def compute(inputs):
    temp, power, steps, n = inputs["temp"], inputs["power"], inputs["steps"], inputs["n"]
    cap, rx, ry, rz, step_size = chip_constants(n)
    other = numpy.zeros_like(temp)
    for t in range(steps):
        step(temp, power, other, n, cap, rx, ry, rz, step_size)
        step(other, power, temp, n, cap, rx, ry, rz, step_size)
    return temp.tolist()


checksum = _peer.fsum_nested


if __name__ == "__main__":
    _peer.run("hotspot", compute, checksum)
