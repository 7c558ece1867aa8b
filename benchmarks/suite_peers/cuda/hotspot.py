"""Hand-written CUDA peer of benchmarks/suite/hotspot.py: one thread per cell of a 2-D
grid (16 x 16 blocks), edges clamped, the time-step loop on the host launching the
stencil twice per step between two device buffers (temp -> other -> temp), no copies in
between.  The arithmetic is the Python expression's, in its order: bit-identical."""
import numpy

import _peer

SOURCE = r"""
#define AMB_TEMP 80.0

extern "C" __global__ void step(const double *temp, const double *power, double *result, int n,
                                double cap, double rx, double ry, double rz, double step_size) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= n || c >= n) {
        return;
    }
    int here = r * n + c;
    double center = temp[here];
    double up = r > 0 ? temp[here - n] : center;
    double down = r < n - 1 ? temp[here + n] : center;
    double left = c > 0 ? temp[here - 1] : center;
    double right = c < n - 1 ? temp[here + 1] : center;
    double delta = (step_size / cap) * (power[here] + (up + down - 2.0 * center) / ry
                                        + (left + right - 2.0 * center) / rx
                                        + (AMB_TEMP - center) / rz);
    result[here] = center + delta;
}
"""
BLOCK = (16, 16)


def chip_constants(program, n):
    """cap, rx, ry, rz, step_size: the host-side set-up of the program's simulate()."""
    grid_height = program.CHIP_HEIGHT / n
    grid_width = program.CHIP_WIDTH / n
    cap = program.FACTOR_CHIP * program.SPEC_HEAT_SI * program.T_CHIP * grid_width * grid_height
    rx = grid_width / (2.0 * program.K_SI * program.T_CHIP * grid_height)
    ry = grid_height / (2.0 * program.K_SI * program.T_CHIP * grid_width)
    rz = program.T_CHIP / (program.K_SI * grid_height * grid_width)
    max_slope = program.MAX_PD / (program.FACTOR_CHIP * program.T_CHIP * program.SPEC_HEAT_SI)
    return cap, rx, ry, rz, program.PRECISION / max_slope


def compute(inputs):
    import cupy

    n, steps = inputs["n"], inputs["steps"]
    constants = [numpy.float64(value) for value in chip_constants(_peer.suite_program("hotspot"), n)]
    temp = cupy.asarray(inputs["temp"])
    power = cupy.asarray(inputs["power"])
    other = cupy.empty_like(temp)
    step = _peer.kernel(SOURCE, "step")
    grid = (_peer.blocks(n, BLOCK[0]), _peer.blocks(n, BLOCK[1]))
    for _ in range(steps):
        step(grid, BLOCK, (temp, power, other, numpy.int32(n), *constants))
        step(grid, BLOCK, (other, power, temp, numpy.int32(n), *constants))
    return temp.get()


def checksum(program, temp):
    return _peer.fsum_nested(temp.tolist())


if __name__ == "__main__":
    _peer.run("hotspot", compute, checksum)
