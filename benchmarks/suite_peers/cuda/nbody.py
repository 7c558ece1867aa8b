"""Hand-written CUDA peer of benchmarks/suite/nbody.py: per time step, an all-pairs
acceleration kernel (one thread per body; the bodies staged through shared memory in
tiles of 256, as in GPU Gems 3 ch. 31) and a kick-drift kernel over the 3n coordinates.

Each thread visits the other bodies in increasing j, as the Python loop does; division
and double-precision sqrt are correctly rounded in CUDA, so with no FMA contraction the
result is bit-identical to CPython's."""
import numpy

import _peer

SOURCE = r"""
#define SOFTENING 0.01
#define TILE 256

extern "C" __global__ void accelerate(const double *position, const double *mass, double *acceleration, int n) {
    __shared__ double tile_x[TILE];
    __shared__ double tile_y[TILE];
    __shared__ double tile_z[TILE];
    __shared__ double tile_mass[TILE];
    int i = blockIdx.x * TILE + threadIdx.x;
    double xi = 0.0, yi = 0.0, zi = 0.0;
    if (i < n) {
        xi = position[3 * i];
        yi = position[3 * i + 1];
        zi = position[3 * i + 2];
    }
    double ax = 0.0, ay = 0.0, az = 0.0;
    for (int base = 0; base < n; base += TILE) {
        int j = base + threadIdx.x;
        if (j < n) {
            tile_x[threadIdx.x] = position[3 * j];
            tile_y[threadIdx.x] = position[3 * j + 1];
            tile_z[threadIdx.x] = position[3 * j + 2];
            tile_mass[threadIdx.x] = mass[j];
        }
        __syncthreads();
        int count = min(TILE, n - base);
        for (int k = 0; k < count; k++) {
            double dx = tile_x[k] - xi;
            double dy = tile_y[k] - yi;
            double dz = tile_z[k] - zi;
            double distance2 = dx * dx + dy * dy + dz * dz + SOFTENING;
            double factor = tile_mass[k] / (distance2 * sqrt(distance2));
            ax += dx * factor;
            ay += dy * factor;
            az += dz * factor;
        }
        __syncthreads();
    }
    if (i < n) {
        acceleration[3 * i] = ax;
        acceleration[3 * i + 1] = ay;
        acceleration[3 * i + 2] = az;
    }
}

extern "C" __global__ void advance(double *position, double *velocity, const double *acceleration,
                                   int coordinates, double dt) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= coordinates) {
        return;
    }
    velocity[e] += acceleration[e] * dt;
    position[e] += velocity[e] * dt;
}
"""
TILE = 256


def compute(inputs):
    import cupy

    n = inputs["n"]
    dt = numpy.float64(_peer.suite_program("nbody").TIME_STEP)
    position = cupy.asarray(inputs["position"])
    velocity = cupy.asarray(inputs["velocity"])
    mass = cupy.asarray(inputs["mass"])
    acceleration = cupy.empty_like(position)
    accelerate = _peer.kernel(SOURCE, "accelerate")
    advance = _peer.kernel(SOURCE, "advance")
    for _ in range(inputs["steps"]):
        accelerate((_peer.blocks(n, TILE),), (TILE,), (position, mass, acceleration, numpy.int32(n)))
        advance((_peer.blocks(3 * n, TILE),), (TILE,), (position, velocity, acceleration, numpy.int32(3 * n), dt))
    return position.get(), velocity.get()


def checksum(program, outputs):
    position, velocity = outputs
    return program.checksum(position.tolist(), velocity.tolist())


if __name__ == "__main__":
    _peer.run("nbody", compute, checksum)
