"""Lists that grow while the loop reads them (frontend/appends.py, grown in place), beside
CPython.

Usage: megaguards run benchmarks/micro/grown_lists.py [N] [CALLS]
       python benchmarks/micro/grown_lists.py ...                  (CPython, for the ratio)
       (default 2000000 3)

The primes below N by trial division against the primes found so far, and a running mean
of N floats kept in a list that starts empty, each as tutorials write it.  Under megaguards
each loop compiles whole, on one core (its appends in order).  Prints, per call, the seconds
of each and a checksum (the same under megaguards and under CPython); the last call is the
warm one.
"""
import sys
import time


def primes_below(n):
    primes = [2]
    for candidate in range(3, n, 2):
        k = 0
        while primes[k] * primes[k] <= candidate:
            if candidate % primes[k] == 0:
                break
            k += 1
        else:
            primes.append(candidate)
    return primes


def running_mean(values):
    means = []
    for i in range(len(values)):
        if i == 0:
            means.append(values[0])
        else:
            means.append(means[i - 1] + (values[i] - means[i - 1]) / (i + 1))
    return means


def main() -> None:
    n, calls = (int(a) for a in (sys.argv[1:] + ["2000000", "3"][len(sys.argv) - 1:]))
    values = [((k * 7919) % 10007) / 100.0 for k in range(n)]
    for _ in range(calls):
        began = time.perf_counter()
        primes = primes_below(n)
        found = time.perf_counter() - began
        began = time.perf_counter()
        means = running_mean(values)
        averaged = time.perf_counter() - began
        print(f"primes {found:.4f} s  running mean {averaged:.4f} s  checksum {len(primes)} {primes[-1]} "
              f"{means[-1]!r}", flush=True)


if __name__ == "__main__":
    main()
