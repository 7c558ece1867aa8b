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
the rewritten code skips the next entries without reading their size).

A longer compiled entry (``PROBE_BELOW`` or more, and so estimated in CPython) is compared
once per size, right away, where it took at least ``SUSPECT_SHARE`` of the CPython time the
site's work formula estimates for it (an exact estimate): a thin loop over objects whose fields the guard reads
and sets back (``for p in points: p.normalize()``) can cost more compiled than in CPython
whatever its length.  A site whose suspects were found faster compiled ``MAX_CLEARED``
times stops suspecting (a probe costs CPython's run of one entry: the loops it enters stay
in CPython up to ``SUSPECT_SPAN`` times the estimate, not ``PROBE_SPAN``)."""
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
SUSPECT_SPAN = 4          # a suspect's probe: that many times its estimated CPython time, if longer
SUSPECT_SHARE = 0.5       # a longer compiled entry taking this share of CPython's estimated time is probed
MAX_CLEARED = 2           # longer entries probed and found faster compiled before a site stops suspecting


def set_probing(process) -> None:
    """The rewritten code of a loop site reports CPython's run of its loop
    (``__megaguards_timed__``) while a probe or a tiering's timed entry (tiering.py) of that
    site is open: ``__megaguards_probing__`` holds their keys (empty: false, one test).  A
    loop nested in the one timed does not report: each report is a call, which would count
    in the time measured (16 a step of a k-means' inner loop: 4 of its 10 us)."""
    setattr(builtins, PROBING_NAME, frozenset(key for site in (*process.open_probes, *process.open_timings)
                                              for key in site.keys))


def inside_probe() -> bool:
    """Is a probe under way (a loop run in CPython to be timed)?  The loop sites entered
    meanwhile are inside it: they run in CPython too, so that what is timed is CPython's
    run of the whole loop.  A probe that never ended (the loop raised) stops counting after
    ``PROBE_SPAN``: only a loop far slower in CPython than compiled runs that long."""
    process = current_process()
    return bool(process.open_probes) and clock() < process.probe_nested_until


class LoopSpeeds:
    """The measured speeds of one loop site, by entry size (Site.speeds, once it compiled)."""

    __slots__ = ("arrays", "trips", "by_size", "probe_started", "probe_speed", "probe_site", "abandoned", "mixed",
                 "cleared", "estimates")

    def __init__(self, array_positions: tuple, trip_positions: tuple) -> None:
        self.arrays = array_positions    # live-in positions of the arrays (their lengths)
        self.trips = trip_positions      # live-in positions of the ints that set trip counts
        self.by_size: dict = {}          # size -> Speed
        self.probe_started: float | None = None
        self.probe_speed: Speed | None = None
        self.probe_site = None
        self.abandoned = 0
        self.mixed = False               # more than one size met: back off per size
        self.cleared = 0                 # longer entries suspected, then measured faster compiled
        self.estimates: dict = {}        # size -> CPython's estimated seconds (a suspect's): its probe's span

    def size(self, values: tuple) -> tuple:
        """The entry's size class: the bit length of each array's length (each dimension of an
        array with a shape) and of each int that sets a trip count.  A class, not the exact
        sizes: a list that grows by one at each entry (primes tried against the primes found
        so far) would otherwise meet a new size at almost every entry, never compared."""
        return (tuple([len(values[p]).bit_length() if type(values[p]) is list
                       else tuple(d.bit_length() for d in getattr(values[p], "shape", ()))
                       for p in self.arrays]),
                tuple([values[p].bit_length() for p in self.trips if type(values[p]) is int]))

    def wants_cpython(self, size: tuple, site) -> bool:
        """Should this entry of ``site`` run in CPython (timed when it probes)?  The probe
        times CPython's loop alone, from here, while a compiled entry is timed from the
        start of the site's call: an entry backing off in CPython skips that call
        (backoff.py), so the site's own cost is the compiled path's alone (a k-means' inner
        loop: 10 us in CPython, 14 us compiled all told, 14 us when CPython's run was timed
        from the call)."""
        if self.probe_started is not None:   # the last probe never ended
            self.end_probe()
            self.abandoned += 1
        speed = self.by_size.get(size)
        if speed is None or self.abandoned >= MAX_ABANDONED or not speed.wants_cpython():
            return False
        self.probe_speed, self.probe_site = speed, site
        process = current_process()
        process.open_probes.append(site)
        set_probing(process)
        self.probe_started = clock()
        # A suspect's probe runs CPython's whole loop, its nested loops included, for about
        # its estimated time: loop sites entered meanwhile are inside it (none compiles then,
        # each entry of a nested site would pay its call and binding for a probe that times CPython).
        process.probe_nested_until = self.probe_started + max(PROBE_SPAN, SUSPECT_SPAN * self.estimates.get(size, 0.0))
        return True

    def compiled(self, size: tuple, seconds: float, estimate) -> Speed | None:
        """A compiled entry took ``seconds``; the size's Speed, if it is measured.
        ``estimate()``: CPython's time for the entry as the site's formula tells it, or None."""
        speed = self.by_size.get(size)
        if speed is None:
            if seconds >= PROBE_BELOW:
                if self.cleared >= MAX_CLEARED:
                    return None
                cpython = estimate()
                if cpython is None or cpython < PROBE_BELOW or seconds < SUSPECT_SHARE * cpython:
                    return None
                speed = Speed(1, 1)   # suspected: CPython's next run of this size is timed
                self.estimates[size] = cpython
            else:
                speed = Speed(PROBE_AFTER, PROBE_RUNS)
            if self.by_size:
                self.mixed = True
            self.by_size[size] = speed
        speed.compiled(seconds)
        return speed

    def timed(self) -> Speed | None:
        """The original loop of a probe ended: book its time; the size's Speed (None: no probe)."""
        ended, started, speed = clock(), self.probe_started, self.probe_speed
        if started is None:
            return None
        self.end_probe()
        speed.cpython(ended - started)
        if speed.probe_runs == 1 and speed.cpython_runs == 1 and not speed.slower:
            self.cleared += 1   # a suspect found faster compiled
        return speed

    def end_probe(self) -> None:
        process = current_process()
        if self.probe_site in process.open_probes:
            process.open_probes.remove(self.probe_site)
        self.probe_started = self.probe_speed = self.probe_site = None
        set_probing(process)

    def slower_speeds(self) -> list[tuple[str, Speed]]:
        return [(describe_size(size), speed) for size, speed in self.by_size.items() if speed.slower]


def describe_size(size: tuple) -> str:
    """A size class (``LoopSpeeds.size``) as the report says it: "arrays of 4..7 and
    64..127 elements, trips 8..15"."""
    def span(bits) -> str:
        if isinstance(bits, tuple):
            return " x ".join(span(b) for b in bits) or "0-D"
        low = 0 if bits == 0 else 1 << (bits - 1)
        return f"{low}..{max(2 * low - 1, 0)}"
    arrays, trips = size
    parts = [f"arrays of {' and '.join(span(b) for b in arrays)} elements"] if arrays else []
    parts += [f"trips {', '.join(span(b) for b in trips)}"] if trips else []
    return ", ".join(parts) or "every size"
