"""Black-Scholes European option pricing over plain float lists, with the classic
``cnd()`` helper (cumulative normal distribution, the Rodinia/PARSEC formulation).

Usage: python blackscholes.py N [REPEATS] [helper|inlined|both]

N options (spot price, strike, years) drawn from random.Random(2024), rate 2 %,
volatility 30 %.  ``helper`` (the default) prices them with ``black_scholes``,
which calls ``cnd(d1)`` and ``cnd(d2)``; ``inlined`` runs ``black_scholes_inlined``,
the same arithmetic with cnd's body written out by hand in the loop: the two give
bit-identical prices, so the runner can check that a call costs nothing once
megaguards inlines it.  REPEATS calls (default 1); prints

    checksum=<fsum(calls)>:<fsum(puts)>   identical under every interpreter and variant
    time=<seconds>                        fastest single call (the kernel region)
    first=<seconds>                       the first call in this process

``both`` alternates the two kernels in one process (REPEATS calls of each, the order
swapped every round, so that other work on the machine slows both alike): ``time=``
and ``first=`` are the helper's, and it also prints ``time_inlined=``; the checksum
is that of both variants, or ``MISMATCH`` when they differ.
"""
import math
import random
import sys
import time

A1 = 0.31938153
A2 = -0.356563782
A3 = 1.781477937
A4 = -1.821255978
A5 = 1.330274429
RSQRT2PI = 0.39894228040143267793994605993438


def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    value = RSQRT2PI * math.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
    if d > 0:
        value = 1.0 - value
    return value


def black_scholes(calls, puts, prices, strikes, years, rate, volatility, n):
    for i in range(n):
        s = prices[i]
        x = strikes[i]
        t = years[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (rate + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t)
        d2 = d1 - volatility * sqrt_t
        cnd_d1 = cnd(d1)
        cnd_d2 = cnd(d2)
        discount = math.exp(-rate * t)
        calls[i] = s * cnd_d1 - x * discount * cnd_d2
        puts[i] = x * discount * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


def black_scholes_inlined(calls, puts, prices, strikes, years, rate, volatility, n):
    for i in range(n):
        s = prices[i]
        x = strikes[i]
        t = years[i]
        sqrt_t = math.sqrt(t)
        d1 = (math.log(s / x) + (rate + 0.5 * volatility * volatility) * t) / (volatility * sqrt_t)
        d2 = d1 - volatility * sqrt_t
        k1 = 1.0 / (1.0 + 0.2316419 * abs(d1))
        cnd_d1 = RSQRT2PI * math.exp(-0.5 * d1 * d1) * (k1 * (A1 + k1 * (A2 + k1 * (A3 + k1 * (A4 + k1 * A5)))))
        if d1 > 0:
            cnd_d1 = 1.0 - cnd_d1
        k2 = 1.0 / (1.0 + 0.2316419 * abs(d2))
        cnd_d2 = RSQRT2PI * math.exp(-0.5 * d2 * d2) * (k2 * (A1 + k2 * (A2 + k2 * (A3 + k2 * (A4 + k2 * A5)))))
        if d2 > 0:
            cnd_d2 = 1.0 - cnd_d2
        discount = math.exp(-rate * t)
        calls[i] = s * cnd_d1 - x * discount * cnd_d2
        puts[i] = x * discount * (1.0 - cnd_d2) - s * (1.0 - cnd_d1)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4 * 10**6
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    variant = sys.argv[3] if len(sys.argv) > 3 else "helper"
    kernels = {"helper": [black_scholes], "inlined": [black_scholes_inlined],
               "both": [black_scholes, black_scholes_inlined]}[variant]
    generator = random.Random(2024)
    # Comprehensions, not for statements: the data set-up stays CPython's in every engine.
    prices = [5.0 + 25.0 * generator.random() for _ in range(n)]
    strikes = [1.0 + 99.0 * generator.random() for _ in range(n)]
    years = [0.25 + 9.75 * generator.random() for _ in range(n)]
    times = {kernel: [] for kernel in kernels}
    checksums = set()
    for repetition in range(repeats):
        for kernel in kernels if repetition % 2 == 0 else kernels[::-1]:
            calls = [0.0] * n
            puts = [0.0] * n
            started = time.perf_counter()
            kernel(calls, puts, prices, strikes, years, 0.02, 0.30, n)
            times[kernel].append(time.perf_counter() - started)
            checksums.add(f"{math.fsum(calls)!r}:{math.fsum(puts)!r}")
    print(f"checksum={checksums.pop() if len(checksums) == 1 else 'MISMATCH'}")
    print(f"time={min(times[kernels[0]])!r}")
    print(f"first={times[kernels[0]][0]!r}")
    if variant == "both":
        print(f"time_inlined={min(times[black_scholes_inlined])!r}")


if __name__ == "__main__":
    main()
