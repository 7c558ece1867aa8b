"""numba peer of benchmarks/suite/particlefilter.py: the video as a (frames, size, size)
array, the particles' state as arrays, Rodinia's per-particle LCG on an int64 seed array
(a * seed + c stays below 2^63).  The frame loop is in Python, as in the program; the
per-particle kernels (motion, likelihood, weight update, resampling) run the particles
under prange.  The weight sums (normalisation, estimate) and the cumulative sum stay
sequential in both modes: resampling compares the cumulative weights with thresholds, so
a reassociated sum could pick another particle; in order the checksum is CPython's."""
import math

import numba
import numpy

import _peer

program = _peer.suite_program("particlefilter")
LCG_A, LCG_C, LCG_M = program.LCG_A, program.LCG_C, program.LCG_M


@numba.njit(cache=True)
def uniform(seed, index):
    seed[index] = (LCG_A * seed[index] + LCG_C) % LCG_M
    return abs(seed[index] / LCG_M)


@numba.njit(cache=True)
def normal(seed, index):
    u = uniform(seed, index)
    v = uniform(seed, index)
    return math.sqrt(-2.0 * math.log(u + 1e-300)) * math.cos(2.0 * math.pi * v)


@_peer.kernel
def move(x, y, seed, n):
    for i in numba.prange(n):
        x[i] += 1.0 + 5.0 * normal(seed, i)
        y[i] += -2.0 + 2.0 * normal(seed, i)


@_peer.kernel
def likelihood_of(frame, x, y, offsets, likelihood, n, size):
    count = offsets.shape[0]
    for i in numba.prange(n):
        cx = int(math.floor(x[i] + 0.5))
        cy = int(math.floor(y[i] + 0.5))
        total = 0.0
        for j in range(count):
            px = min(abs(cx + offsets[j, 0]), size - 1)
            py = min(abs(cy + offsets[j, 1]), size - 1)
            pixel = frame[px, py]
            total += ((pixel - 100.0) ** 2 - (pixel - 228.0) ** 2) / 50.0
        likelihood[i] = total / count


@_peer.kernel
def update_weights(weights, likelihood, n):
    for i in numba.prange(n):
        weights[i] = weights[i] * math.exp(likelihood[i])


@numba.njit(cache=True)
def normalise_and_estimate(weights, x, y, cdf, n):
    """The sequential part of a frame: normalise, estimate, cumulative sum."""
    total = 0.0
    for i in range(n):
        total += weights[i]
    for i in range(n):
        weights[i] = weights[i] / total
    estimate_x = 0.0
    estimate_y = 0.0
    for i in range(n):
        estimate_x += x[i] * weights[i]
        estimate_y += y[i] * weights[i]
    cdf[0] = weights[0]
    for i in range(1, n):
        cdf[i] = cdf[i - 1] + weights[i]
    return estimate_x, estimate_y


@_peer.kernel
def resample(x, y, cdf, new_x, new_y, start, n):
    for j in numba.prange(n):
        u = start + j / n
        chosen = n - 1
        for i in range(n):
            if cdf[i] >= u:
                chosen = i
                break
        new_x[j] = x[chosen]
        new_y[j] = y[chosen]


def compute(inputs):
    video, x, y, seed, n, size = (inputs["video"], inputs["x"], inputs["y"], inputs["seed"],
                                  inputs["n"], inputs["size"])
    offsets = numpy.array(program.disk_offsets(program.RADIUS), dtype=numpy.int64)
    weights = numpy.full(n, 1.0 / n)
    likelihood = numpy.zeros(n)
    cdf = numpy.zeros(n)
    new_x = numpy.zeros(n)
    new_y = numpy.zeros(n)
    estimates = []
    for k in range(1, len(video)):
        move(x, y, seed, n)
        likelihood_of(video[k], x, y, offsets, likelihood, n, size)
        update_weights(weights, likelihood, n)
        estimates.append(list(normalise_and_estimate(weights, x, y, cdf, n)))
        start = uniform(seed, 0) / n
        resample(x, y, cdf, new_x, new_y, start, n)
        x[:] = new_x
        y[:] = new_y
        weights[:] = 1.0 / n
    return estimates, x.tolist(), y.tolist()


def checksum(outputs):
    return program.checksum(*outputs)


if __name__ == "__main__":
    _peer.run("particlefilter", compute, checksum)
