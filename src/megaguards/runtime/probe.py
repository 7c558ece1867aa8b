"""Keep the faster, for loop sites (issue 25): a loop compiled but entered many times for
little work each time (a 3x3 window summed once per pixel) may cost more compiled (binding,
marshalling, the device choice: 10-15 us an entry) than CPython's run of it (about 1 us).

A site whose compiled entries of one size take under ``PROBE_BELOW`` each is measured:
after ``PROBE_AFTER`` compiled entries of that size, its next entries run in CPython, timed
(``PROBE_RUNS`` of them); where CPython's best is faster than the compiled best, the size
runs in CPython from then on, its compiled path retried after 8, 16, 32 ... entries
(``backoff.Speed``).  The size of an entry is its arrays' lengths and the int live-ins its
trip counts depend on (``analysis.features.trip_count_names``), read before binding.

CPython's run of a loop is timed by the rewritten code: after the original loop it calls
``__megaguards_timed__(site)`` when ``__megaguards_probing__`` (a built-in, False unless a
probe is under way) says so.  A probe that never ends (the loop raised or returned) is
abandoned at the site's next entry; a site that abandons ``MAX_ABANDONED`` stops probing.
A site that has met one size only backs off in the cheapest way (``BackingOff.skipping``:
the rewritten code skips the next entries without reading their size)."""
from __future__ import annotations

import builtins
import time

from ..frontend.siteinfo import PROBING_NAME
from .backoff import Speed
from .process import current as current_process

clock = time.perf_counter
PROBE_AFTER = 64          # compiled entries of a size before CPython's run of it is timed
PROBE_BELOW = 100e-6      # compiled entries slower than this are never compared (a probe costs too much)
PROBE_RUNS = 3            # CPython runs timed per size (their best counts)
MAX_ABANDONED = 2         # probes that never ended before a site stops probing
PROBE_SPAN = 0.02         # seconds after a probe's start during which loops nested in it run in CPython


def set_probing(process) -> None:
    """The rewritten code reports CPython's runs of loops (``__megaguards_timed__``) while a
    probe or a tiering's timed entry (tiering.py) is open."""
    setattr(builtins, PROBING_NAME, bool(process.open_probes or process.open_timings))


def inside_probe() -> bool:
    """Is a probe under way (a loop run in CPython to be timed)?  The loop sites entered
    meanwhile are inside it: they run in CPython too, so that what is timed is CPython's
    run of the whole loop.  A probe that never ended (the loop raised) stops counting after
    ``PROBE_SPAN``: only a loop far slower in CPython than compiled runs that long."""
    process = current_process()
    return bool(process.open_probes) and clock() < process.probe_nested_until


class LoopSpeeds:
    """The measured speeds of one loop site, by entry size (Site.speeds, once it compiled)."""

    __slots__ = ("arrays", "trips", "by_size", "probe_started", "probe_speed", "abandoned", "mixed")

    def __init__(self, array_positions: tuple, trip_positions: tuple) -> None:
        self.arrays = array_positions    # live-in positions of the arrays (their lengths)
        self.trips = trip_positions      # live-in positions of the ints that set trip counts
        self.by_size: dict = {}          # size -> Speed
        self.probe_started: float | None = None
        self.probe_speed: Speed | None = None
        self.abandoned = 0
        self.mixed = False               # more than one size met: back off per size

    def size(self, values: tuple) -> tuple:
        return (tuple([len(values[p]) if type(values[p]) is list else getattr(values[p], "shape", None)
                       for p in self.arrays]),
                tuple([values[p] for p in self.trips if type(values[p]) is int]))

    def wants_cpython(self, size: tuple) -> bool:
        """Should this entry run in CPython (timed when it probes)?"""
        if self.probe_started is not None:   # the last probe never ended
            self.end_probe()
            self.abandoned += 1
        speed = self.by_size.get(size)
        if speed is None or self.abandoned >= MAX_ABANDONED or not speed.wants_cpython():
            return False
        self.probe_speed, self.probe_started = speed, clock()
        process = current_process()
        process.probe_nested_until = self.probe_started + PROBE_SPAN
        process.open_probes += 1
        set_probing(process)
        return True

    def compiled(self, size: tuple, seconds: float) -> Speed | None:
        """A compiled entry took ``seconds``; the size's Speed, if it is measured."""
        speed = self.by_size.get(size)
        if speed is None:
            if seconds >= PROBE_BELOW:
                return None
            if self.by_size:
                self.mixed = True
            speed = self.by_size[size] = Speed(PROBE_AFTER, PROBE_RUNS)
        speed.compiled(seconds)
        return speed

    def timed(self) -> None:
        """The original loop of a probe ended: book its time."""
        started, speed = self.probe_started, self.probe_speed
        if started is None:
            return
        self.end_probe()
        speed.cpython(clock() - started)

    def end_probe(self) -> None:
        self.probe_started = self.probe_speed = None
        process = current_process()
        process.open_probes = max(0, process.open_probes - 1)
        set_probing(process)

    def slower_speeds(self) -> list[tuple[str, Speed]]:
        return [(f"size {size}", speed) for size, speed in self.by_size.items() if speed.slower]
