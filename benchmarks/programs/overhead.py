"""Per-entry cost of a tiny loop: a few iterations on small scalars and a small list.

Usage: python overhead.py CALLS ITERATIONS [BATCHES]

Calls ``tiny`` CALLS times per batch, BATCHES times (default 5); each call runs
a loop of ITERATIONS (1 to 8) iterations over a list of 8 floats.  The driver
is a ``while`` loop so that it is not a loop site itself.  Prints:

    checksum=<repr of a float>   identical under every interpreter
    time=<seconds>               per call, fastest batch (warm)
    first=<seconds>              per call, first batch (includes any compile)
"""
import sys
import time


def tiny(xs, scale, n):
    total = 0.0
    for i in range(n):
        total += xs[i] * scale
    return total


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    batches = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    xs = [0.5, 1.25, -2.0, 3.0, 0.75, -1.5, 2.25, 4.0]
    if not 1 <= n <= len(xs):
        raise SystemExit(f"ITERATIONS must be between 1 and {len(xs)}")
    checksum = 0.0
    times = []
    for _ in range(batches):
        count = 0
        started = time.perf_counter()
        while count < calls:
            checksum += tiny(xs, 1.5, n)
            count += 1
        times.append((time.perf_counter() - started) / calls)
    print(f"checksum={checksum!r}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
