"""Back-off: a failure is paid once, then rarely (issue 25, "Failures cost nothing the
second time" and "Keep the faster").

A site whose try failed for a reason likely to repeat (the guard failing while binding, at
entry or while unboxing; a runtime flag; a signature the analysis rejected; an expression
site falling back) remembers the failure against the cheapest key that predicts it: the
signature (the binding's key) when binding succeeded, the live-ins' classes when it did not.
Its next entries run in CPython without trying: the failing key is tried again at the 2nd,
4th, 8th ... entry since its first failure (at most every ``MAX_GAP`` entries), and any
success forgets every failure.  The test on entry is in the rewritten code itself, before it
gathers the live-ins: ``__megaguards_next__(<skip name>, 0) is None`` draws
one of the entries left to run in CPython (``skipping``) from an iterator that yields that
many (``itertools.repeat``); the skipped entries are booked into the site's stats
later (``settle``: at its next try, or when the report reads them).  After binding failed on
an array live-in's class (a dict, a tuple) that live-in's class is compared too
(``skip_position``, ``skip_class``), so that a list or array there is tried at once; such an
entry costs a call of the site (about a microsecond), so after ``CLASS_SKIPS`` of them in one
gap the rest of the gap is drawn by the rewritten code like any other (a generator iterated
by a loop entered 100,000 times: 70 ms otherwise).

Skipped entries run the original code: what the user sees is CPython's, always.  What is
remembered is reported (``describe``: why, how often, until which entry).

``Speed`` is the other half: per size class, the best time of the compiled path and of
CPython's run of the same site; a class whose compiled entries are slower goes back to
CPython, its compiled path retried at exponentially spaced entries.
"""
from __future__ import annotations

from itertools import repeat
from operator import length_hint

MAX_GAP = 16384         # entries between two tries of a hopeless key, at most (a try can cost
                        # 100-300 CPython runs of a small loop: at most 2% of the entries then)
MAX_RECORDS = 32        # failing keys remembered per site (beyond: forgotten, all at once)
CLASS_SKIPS = 64        # entries of one gap skipped by a live-in's class before the rewritten code draws the rest
FOREVER = 1 << 62       # ``skipping`` of a site that can never compile (non-strict)
NO_SKIPS = repeat(None, 0)   # the skips of a site that tries every entry (an exhausted iterator)
CAUSES = {"binding": "the guard failed while binding", "guard": "the guard failed at entry",
          "flag": "a runtime flag was raised", "rejected": "the signature is not compiled",
          "expression": "the expression fell back", "disabled": "the loop cannot be compiled",
          "off": "megaguards is off"}


# Tries in a row that fail before a cause backs off at all.  A runtime flag depends on the
# data (a NaN in one call says little of the next: tests/e2e/programs/err_nan_to_int.py
# passes two bad lists, then a good one), so its first two failures are retried at once.
FREE_TRIES = {"flag": 2}


def gap_after(failures: int) -> int:
    """Entries from the ``failures``-th failed try of a key to its next try: 1, 2, 4, ..."""
    return MAX_GAP if failures > MAX_GAP.bit_length() else min(1 << (failures - 1), MAX_GAP)


class Failure:
    """One key's failures in a row, as the report says them.  (Not a dataclass: the sites
    import this module with every rewritten module, and ``dataclasses`` costs about 8 ms.)"""

    __slots__ = ("cause", "reason", "failures", "retry_at")

    def __init__(self, cause: str, reason: str, failures: int = 0, retry_at: int = 0) -> None:
        self.cause = cause          # a key of CAUSES
        self.reason = reason        # the last failure's reason (``guard: ...``, ``runtime flag: ...``)
        self.failures = failures    # tries that failed in a row
        self.retry_at = retry_at    # the site's entry number of the next try

    def __repr__(self) -> str:
        return (f"Failure({self.cause!r}, {self.reason!r}, failures={self.failures!r}, "
                f"retry_at={self.retry_at!r})")

    def __eq__(self, other) -> bool:
        return type(other) is Failure and (self.cause, self.reason, self.failures, self.retry_at) == \
            (other.cause, other.reason, other.failures, other.retry_at)

    __hash__ = None   # mutable, as the dataclass was

    def describe(self) -> str:
        if self.cause == "off":
            return f"backing off (off): {self.reason}, in CPython until it is switched on"
        if self.cause == "disabled":
            return f"backing off ({self.cause}): {CAUSES[self.cause]}, in CPython from now on: {self.reason}"
        return (f"backing off ({self.cause}): {CAUSES[self.cause]} {self.failures} time(s) in a row, "
                f"in CPython until entry {self.retry_at}: {self.reason}")

    def as_record(self) -> dict:
        return {"cause": self.cause, "reason": self.reason, "failures": self.failures,
                "retry_at": None if self.cause in ("disabled", "off") else self.retry_at}


class BackingOff:
    """The back-off of a site (mixed into Site and ExpressionSite, which own ``stats``).

    ``skipping``: entries left to run in CPython before the next try; ``skip_class``: the
    class of live-in number ``skip_position`` that failed binding (None: any live-ins are
    skipped)."""

    backs_off = True     # LoopSite (an expression site's synthetic loop): its owner backs off
    strict = False       # jit(strict=True): every entry tries, and raises what cannot compile
    reassociate = False  # jit(reassociate=True): float reductions may be reassociated

    def init_backoff(self) -> None:
        self.skip_iterator = NO_SKIPS       # yields once per entry left to skip
        self.skip_names: tuple = ()         # the site's names in ``skip_table`` (siteinfo.skip_name)
        self.skip_table: dict = {}          # the built-ins (Registry)
        self.booked = 0                     # ``skipping`` when skipped entries were last booked
        self.skip_position = 0
        self.skip_class: type | None = None
        self.class_skips = 0                # entries of this gap skipped by ``skip_class``
        self.failures: dict | None = None   # key -> Failure, while some key keeps failing

    @property
    def skipping(self) -> int:
        """Entries left to run in CPython before the next try."""
        return length_hint(self.skip_iterator)

    @skipping.setter
    def skipping(self, entries: int) -> None:
        # Skips that depend on a live-in's class are drawn by ``dispatch``, which reads it;
        # the others by the rewritten code.
        iterator = self.skip_iterator = repeat(None, entries) if entries > 0 else NO_SKIPS
        shown = iterator if self.skip_class is None else NO_SKIPS
        for name in self.skip_names:
            self.skip_table[name] = shown

    def settle(self) -> None:
        """Book the entries skipped since the last time into the stats (entries run in CPython)."""
        skipped = self.booked - self.skipping
        if skipped:
            self.stats.entries += skipped
            self.stats.fallback_runs += skipped
            self.booked = self.skipping

    def failed(self, key, cause: str, reason: str, predictor: tuple | None = None) -> None:
        """A try failed for ``key``: CPython runs the next entries until its next try (those
        whose live-in number ``predictor[0]`` is of class ``predictor[1]``, if given)."""
        if self.strict or not self.backs_off:
            return
        failures = self.failures
        if failures is None:
            failures = self.failures = {}
        record = failures.get(key)
        if record is None:
            if len(failures) >= MAX_RECORDS:
                failures.clear()
            record = failures[key] = Failure(cause, reason)
        record.reason = reason
        record.failures += 1
        free = FREE_TRIES.get(cause, 0)
        gap = 1 if record.failures <= free else gap_after(record.failures - free)
        record.retry_at = self.stats.entries + gap
        self.skip_position, self.skip_class = predictor or (0, None)
        self.class_skips = 0
        self.skipping = self.booked = gap - 1

    def skipped_by_class(self) -> None:
        """``dispatch`` ran an entry in CPython for its live-in's class (booked later)."""
        next(self.skip_iterator)
        self.class_skips += 1
        if self.class_skips >= CLASS_SKIPS:   # the class keeps coming: the rest of the gap is drawn
            self.skip_class = None
            self.skipping = self.skipping     # shown to the rewritten code (booked unchanged)

    def disable_for_good(self, reason: str) -> None:
        """The site can never compile: every later entry is one attribute test."""
        if self.strict or not self.backs_off:
            return
        self.failures = {"disabled": Failure("disabled", reason, 1, FOREVER)}
        self.skip_class = None
        self.skipping = self.booked = FOREVER

    def switch_off(self, reason: str) -> None:
        """megaguards is off (device=off): every later entry is one test in the rewritten code,
        until ``switched_on`` (config.configure turning a device on again)."""
        if self.strict or not self.backs_off:
            return
        self.failures = {"off": Failure("off", reason, 1, FOREVER)}
        self.skip_class = None
        self.skipping = self.booked = FOREVER

    def switched_on(self) -> None:
        if self.failures is not None and "off" in self.failures:
            self.settle()
            self.succeeded()

    def succeeded(self) -> None:
        """A compiled run: every failure is forgotten (called only while some are remembered,
        the skipped entries settled)."""
        self.failures = None
        self.skip_class = None
        self.skipping = self.booked = 0

    def slower_speeds(self) -> list[tuple[str, Speed]]:
        """(the size, its Speed) of each size measured slower compiled (keep the faster)."""
        return []

    def backoff_records(self) -> list[dict]:
        return [record.as_record() for record in (self.failures or {}).values()] + [
            {"cause": "slower", "reason": speed.describe(size), "failures": speed.slower, "retry_at": None}
            for size, speed in self.slower_speeds()]

    def backoff_reasons(self) -> list[str]:
        """What ``explain`` prints (a disabled site says "not compiled: ..." already)."""
        return [record.describe() for record in (self.failures or {}).values() if record.cause != "disabled"] + [
            f"backing off (slower): {speed.describe(size)}" for size, speed in self.slower_speeds()]


# -- keep the faster ------------------------------------------------------------------------

PROBE_AFTER = 3          # compiled runs of a size class before CPython's run of it is timed
FIRST_SLOW_GAP = 8       # a class measured slower compiled: CPython's entries before a retry
REPROBE = 16             # a class measured faster compiled is probed again after this many times its runs
# The compiled path is kept where it is this much faster: its clock (in the site's call) misses
# the rewritten code's work around the call (the live-ins' tuple, the live-outs' assignments:
# about 1 us of a k-means step's 13), which an entry backing off in CPython does not pay.
KEEP_MARGIN = 1.1


class Speed:
    """One size class of a site: the best seconds of its compiled path and of CPython's
    run of it.  Once both are known and the compiled path is slower, the class runs in
    CPython (timed, which refines CPython's best), its compiled path retried after 8, 16,
    32 ... entries (at most ``MAX_GAP``); a retry faster than CPython's best ends that."""

    __slots__ = ("compiled_runs", "compiled_best", "cpython_runs", "cpython_best", "slower", "countdown",
                 "probe_after", "probe_runs", "cpython_wanted")

    def __init__(self, probe_after: int = PROBE_AFTER, probe_runs: int = 1) -> None:
        self.probe_after = probe_after   # compiled runs before CPython's is timed
        self.probe_runs = probe_runs     # CPython runs timed before the two bests are compared
        self.compiled_runs = 0
        self.compiled_best = float("inf")
        self.cpython_runs = 0
        self.cpython_best = float("inf")
        self.slower = 0        # retries measured slower in a row (0: the compiled path is kept)
        self.countdown = 0     # entries left in CPython before the compiled path is retried
        # CPython runs timed by the end of the current probe.  A class found faster compiled is
        # probed again after REPROBE times its compiled runs: CPython's first runs may have paid
        # for what settles later (sites nested in the loop entered before they skip).
        self.cpython_wanted = probe_runs

    def wants_cpython(self) -> bool:
        """Should this entry run in CPython (timed)?  A probe, or a slower class backing off."""
        if self.countdown:
            self.countdown -= 1
            return True
        return self.cpython_runs < self.cpython_wanted and self.compiled_runs >= self.probe_after

    def compiled(self, seconds: float) -> None:
        self.compiled_runs += 1
        if seconds < self.compiled_best:
            self.compiled_best = seconds
        if self.cpython_runs:  # a retry of a slower class is judged by itself, else by the best
            self.judge(seconds if self.slower else self.compiled_best)

    def cpython(self, seconds: float) -> None:
        self.cpython_runs += 1
        if seconds < self.cpython_best:
            self.cpython_best = seconds
        if self.cpython_runs == self.cpython_wanted:  # the probes done: compare the bests
            self.judge(self.compiled_best)
            if not self.slower:
                self.probe_after, self.cpython_wanted = self.compiled_runs * REPROBE, self.cpython_wanted + self.probe_runs

    def judge(self, compiled_seconds: float) -> None:
        if compiled_seconds * KEEP_MARGIN <= self.cpython_best:
            self.slower = 0
            return
        self.slower += 1
        self.countdown = min(FIRST_SLOW_GAP << min(self.slower - 1, MAX_GAP.bit_length()), MAX_GAP)

    def describe(self, size: str) -> str:
        return (f"compiled slower than CPython for {size} "
                f"({1e6 * self.compiled_best:.1f} us vs {1e6 * self.cpython_best:.1f} us, best of "
                f"{self.compiled_runs} and {self.cpython_runs}): in CPython, retried {self.slower} time(s)")
