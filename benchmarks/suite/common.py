"""What every program of the benchmark suite shares: the command line, seeded inputs,
timing of the kernel region and the checksum line.

A suite program is plain Python that CPython runs as is::

    python benchmarks/suite/hotspot.py --size small

It builds its input deterministically (``random.Random`` seeded by the program's name),
runs its kernel(s) between ``timer.start()`` and ``timer.stop()``, and prints::

    checksum=<repr of a float or int>     identical under every system (see TOLERANCE)
    time=<seconds of the kernel region>

``SIZES`` of each program maps small / medium / large to its parameters (Rodinia-like
shapes at ``large``).  ``SUITE_CALLS=N`` in the environment (the runner's ``--peak``) runs
``main`` N times in one process, each call building its inputs afresh and printing its
lines: the last is the warm call (the MegaGuards paper's peak method).  A program whose checksum comes from a float reduction that
megaguards may reassociate sets ``TOLERANCE`` (relative) in its module.
"""
from __future__ import annotations

import argparse
import math
import os
import random
import time


def arguments(sizes: dict, description: str) -> tuple[str, dict]:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--size", choices=sorted(sizes), default="small")
    chosen = parser.parse_args().size
    return chosen, sizes[chosen]


def calls() -> int:
    """How many times the program's computation runs in this process (``SUITE_CALLS``)."""
    try:
        return max(1, int(os.environ.get("SUITE_CALLS", "1")))
    except ValueError:
        raise SystemExit(f"SUITE_CALLS must be a whole number, not {os.environ['SUITE_CALLS']!r}") from None


def run(main) -> None:
    """A program's ``if __name__ == "__main__"``: ``main()`` once, or ``SUITE_CALLS`` times."""
    for _ in range(calls()):
        main()


def generator(name: str) -> random.Random:
    """The program's own seeded random stream (the same on every system and run)."""
    return random.Random(f"megaguards suite {name}")


class Timer:
    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = None

    def start(self) -> None:
        self._started = time.perf_counter()

    def stop(self) -> None:
        self.seconds += time.perf_counter() - self._started


def report(checksum, timer: Timer) -> None:
    """Print the checksum (``math.fsum`` of floats is exact and order-free) and the time."""
    print(f"checksum={checksum!r}")
    print(f"time={timer.seconds!r}")


def fsum_nested(values) -> float:
    """An exact, order-independent sum of a list or nested lists of numbers."""
    if values and isinstance(values[0], list):
        return math.fsum(fsum_nested(row) for row in values)
    return math.fsum(values)
