"""Per-entry cost of sites that never compile, in a hot function (issue 25: "Failures cost
nothing the second time").

Usage: python failures.py CALLS [BATCHES]

Calls ``hot`` CALLS times per batch, BATCHES times (default 5).  ``hot`` holds two loop
sites whose guard fails on every entry: a ``sum(genexpr)`` expression site and a ``for``
site, both over a list that mixes ints and floats (so unboxing it fails).  Under
megaguards both back off: they run in CPython, tried again at their 2nd, 4th, 8th ...
entry.  The driver is a ``while`` loop so that it is not a loop site itself.  Prints:

    checksum=<repr of a float>   identical under every interpreter
    time=<seconds>               per call, fastest batch (warm)
    first=<seconds>              per call, first batch (includes the failing tries)
"""
import sys
import time


def hot(data, scale):
    total = sum(x * x for x in data)
    for i in range(len(data)):
        total += data[i] * scale
    return total


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    data = [1, 2.5, 3, 4.5, 5, 6.5, 7, 8.5]
    checksum = 0.0
    times = []
    for _ in range(batches):
        count = 0
        started = time.perf_counter()
        while count < calls:
            checksum += hot(data, 0.5)
            count += 1
        times.append((time.perf_counter() - started) / calls)
    print(f"checksum={checksum!r}")
    print(f"time={min(times)!r}")
    print(f"first={times[0]!r}")


if __name__ == "__main__":
    main()
