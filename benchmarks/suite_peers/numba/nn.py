"""numba peer of benchmarks/suite/nn.py: the distances under prange; each of the k
selections is an argmin over the records not yet taken.  Sequentially that is the
program's scan; in parallel the records are cut into one chunk per thread, each chunk's
scan runs under prange, and the chunks' minima are combined in chunk order with a strict
``<``, so a tie still goes to the lowest index and the picks are the program's."""
import math

import numba
import numpy

import _peer

program = _peer.suite_program("nn")


@_peer.kernel
def distances(latitudes, longitudes, result, count, latitude, longitude):
    for i in numba.prange(count):
        dlat = latitudes[i] - latitude
        dlon = longitudes[i] - longitude
        result[i] = math.sqrt(dlat * dlat + dlon * dlon)


@_peer.kernel
def nearest(distance, count, k, chunks):
    taken = numpy.zeros(count, dtype=numpy.bool_)
    chosen = numpy.empty(k, dtype=numpy.int64)
    chunk_best = numpy.empty(chunks)
    chunk_index = numpy.empty(chunks, dtype=numpy.int64)
    length = (count + chunks - 1) // chunks
    for j in range(k):
        for chunk in numba.prange(chunks):
            best = math.inf
            best_index = -1
            for i in range(chunk * length, min(count, (chunk + 1) * length)):
                if not taken[i] and distance[i] < best:
                    best = distance[i]
                    best_index = i
            chunk_best[chunk] = best
            chunk_index[chunk] = best_index
        best = math.inf
        best_index = -1
        for chunk in range(chunks):
            if chunk_best[chunk] < best:
                best = chunk_best[chunk]
                best_index = chunk_index[chunk]
        taken[best_index] = True
        chosen[j] = best_index
    return chosen


def compute(inputs):
    count = inputs["count"]
    distance = numpy.zeros(count)
    distances(inputs["latitudes"], inputs["longitudes"], distance, count,
              program.QUERY_LATITUDE, program.QUERY_LONGITUDE)
    chunks = numba.get_num_threads() if _peer.kernel.parallel else 1
    chosen = nearest(distance, count, inputs["k"], chunks)
    return distance, chosen.tolist()


def checksum(outputs):
    return program.checksum(*outputs)


if __name__ == "__main__":
    _peer.run("nn", compute, checksum)
