"""numba peer of benchmarks/suite/blackscholes.py: the options under prange, the
cumulative normal distribution in a helper that numba inlines; priced `runs` times."""
import math

import numba
import numpy

import _peer

program = _peer.suite_program("blackscholes")
RATE = program.RATE
A1, A2, A3, A4, A5 = program.A1, program.A2, program.A3, program.A4, program.A5
RSQRT2PI = program.RSQRT2PI


@numba.njit(cache=True)
def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    value = RSQRT2PI * math.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
    if d > 0:
        value = 1.0 - value
    return value


@_peer.kernel
def price(calls, puts, spots, strikes, times, volatilities, count):
    for i in numba.prange(count):
        s = spots[i]
        x = strikes[i]
        t = times[i]
        v = volatilities[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (RATE + 0.5 * v * v) * t) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        cnd_d1 = cnd(d1)
        cnd_d2 = cnd(d2)
        discount = math.exp(-RATE * t)
        calls[i] = s * cnd_d1 - x * discount * cnd_d2
        puts[i] = x * discount * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


def compute(inputs):
    count = inputs["count"]
    calls = numpy.zeros(count)
    puts = numpy.zeros(count)
    for run in range(inputs["runs"]):
        price(calls, puts, inputs["spots"], inputs["strikes"], inputs["times"],
              inputs["volatilities"], count)
    return calls.tolist(), puts.tolist()


def checksum(outputs):
    return program.checksum(*outputs)


if __name__ == "__main__":
    _peer.run("blackscholes", compute, checksum)
