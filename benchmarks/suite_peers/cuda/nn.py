"""Hand-written CUDA peer of benchmarks/suite/nn.py, as Rodinia's nn CUDA does it: the
distances on the device (one thread per record), copied back, and the k nearest picked on
the host (here k NumPy argmin scans: each returns the first index of the minimum, so ties
go to the lower index as in the Python selection).  Double sqrt is correctly rounded in
CUDA: identical to CPython's."""
import math

import numpy

import _peer

SOURCE = r"""
extern "C" __global__ void distances(const double *latitudes, const double *longitudes, double *result,
                                     int count, double latitude, double longitude) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) {
        return;
    }
    double dlat = latitudes[i] - latitude;
    double dlon = longitudes[i] - longitude;
    result[i] = sqrt(dlat * dlat + dlon * dlon);
}
"""
THREADS = 256


def compute(inputs):
    import cupy

    program = _peer.suite_program("nn")
    count = inputs["count"]
    latitudes = cupy.asarray(inputs["latitudes"])
    longitudes = cupy.asarray(inputs["longitudes"])
    result = cupy.empty(count, dtype=numpy.float64)
    _peer.kernel(SOURCE, "distances")(
        (_peer.blocks(count, THREADS),), (THREADS,),
        (latitudes, longitudes, result, numpy.int32(count),
         numpy.float64(program.QUERY_LATITUDE), numpy.float64(program.QUERY_LONGITUDE)))
    distance = result.get()
    remaining = distance.copy()
    chosen = []
    for _ in range(inputs["k"]):
        index = int(remaining.argmin())
        chosen.append(index)
        remaining[index] = math.inf
    return distance, chosen


def checksum(program, outputs):
    distance, chosen = outputs
    return program.checksum(distance.tolist(), chosen)


if __name__ == "__main__":
    _peer.run("nn", compute, checksum)
