"""Compile what pays (issue 25: the cost of megaguards follows the work a loop does).

Compiling a loop costs milliseconds even when its kernel is cached (the process's first
compile imports the back end: about 50 ms; each loop is then lowered, analysed and
loaded: a few ms more); a loop that runs for microseconds never earns that back.  So a
site is compiled once the CPython time its entries are estimated to take
(``frontend/work.py``, read from the live-ins before anything else) pays for compiling
it, as a JIT compiles code once it is hot:

* an entry whose estimate alone reaches ``compile_after`` (``MEGAGUARDS_COMPILE_AFTER``
  milliseconds, default 30: a compile that does not pay back then keeps the process
  within 1.1x CPython's time + 30 ms) is compiled at once;
* where some trips cannot be told (a ``while`` loop that does not count, an iterator, a
  call of a function that loops) the estimate is a lower bound: an entry whose lower bound
  is ``UNTOLD_SHARE`` of the threshold compiles at once (a 200x200 image around an
  escape-time ``while``); below it, CPython runs the entry timed (the rewritten code
  reports the end of its loop, as for probe.py) and the measured time counts as an
  estimate would; a timed run that never reports (the loop raised or returned) counts
  the time until the site's next entry;
* entries under ``FLOOR`` each (a compiled entry costs microseconds of binding and
  marshalling: these never gain) run in CPython and count for nothing; the rewritten
  code skips the next 1, 2, 4 ... of them (at most ``MAX_GAP``) before estimating again;
* the others add up: the site is compiled at the entry that brings its sum to
  ``compile_after`` (a tenth of it once the back end is imported), running in CPython
  until then; between estimates of entries under ``CHEAP`` the rewritten code skips
  entries, each counted as the last estimate;
* a loop site inside a loop that was estimated worth compiling (and runs in CPython, its
  nest not compiling as a whole) is compiled at its first entry over ``FLOOR``: its entries
  are that loop's work.

Once a site decides to compile it never estimates again: keep-the-faster (``probe.py``)
and the back-off take over.  ``compile_after`` 0 compiles every loop at its first entry
(the tests do, as they test the compiled code); ``jit(strict=True)`` always does.
"""
from __future__ import annotations

from .. import config
from ..frontend.siteinfo import SiteInfo
from .backoff import MAX_GAP
from .collector import user_objects_set_aside
from .probe import clock, set_probing
from .process import current as current_process

FLOOR = 10e-6         # seconds of CPython time an entry needs to gain from compiling at all (a compiled
                      # entry costs 5-15 us of binding, marshalling and the device choice)
CHEAP = 1e-3          # entries estimated below this are not estimated one by one (an estimate: ~5 us)
MAX_CHEAP_GAP = 64    # entries skipped between two estimates of cheap entries, at most
LATER_SHARE = 0.1     # the threshold once the back end is imported (only the loop's own cost left)
UNTOLD_SHARE = 1 / 30   # of the threshold: a lower bound that compiles at once (work not told)
FORGOTTEN = 1.0         # seconds after which a timed run that never reported is closed
LITTLE = ("little work: about {} us an entry in CPython, too little to gain from compiling "
          "(MEGAGUARDS_COMPILE_AFTER=0 compiles it anyway)")
COLD = ("not compiled yet: its CPython time so far (estimated) is below what compiling costs "
        "(MEGAGUARDS_COMPILE_AFTER={} ms)")
DECIDED = None        # a site's ``tiering`` once it compiles (or cannot be estimated)
UNREAD = "unread"     # a site's ``tiering`` before its first entry


class Tiering:
    """The estimates (or timed runs) of one site until it decides to compile."""

    __slots__ = ("work", "spent", "gap", "inside_hot", "started", "hot")

    def __init__(self, work: tuple, inside_hot: bool = False) -> None:
        self.work = work        # frontend.work's formula for one entry
        self.spent = 0.0        # estimated CPython seconds of the entries counted so far
        self.gap = 1            # entries the next skip covers
        self.inside_hot = inside_hot   # inside a loop estimated worth compiling (that did not compile)
        self.started: float | None = None   # the clock when CPython's timed run of an entry began
        self.hot = False        # a timed run said the site pays: its next entry compiles

    def wants_cpython(self, site, values: tuple) -> bool:
        """Should this entry run in CPython?  False: compile (from now on, for good)."""
        options = config.current()
        if options.compile_after <= 0 or not options.enabled:   # off: the site's own path says so, and backs off
            return False
        if self.started is not None:   # the last timed run never reported: it ran until now at most
            self.timed(site)
        if self.hot:
            hot_loop(site)
            return False
        from .estimate import NOT_TOLD, estimate

        try:
            seconds, exact = estimate(self.work, values)
        except Exception:   # an estimate never breaks a run
            seconds, exact = NOT_TOLD
        limit = threshold()
        if not exact and self.spent + seconds < limit:
            if seconds >= limit * UNTOLD_SHARE:
                return False   # real work even at its lower bound
            if not (self.inside_hot and seconds >= FLOOR):
                self.start_timing(site)
                return True
        if self.book(site, seconds, limit):
            hot_loop(site)
            return False
        return True

    def book(self, site, seconds: float, limit: float) -> bool:
        """Count an entry of ``seconds`` (estimated or timed); True: the site pays, compile it."""
        if self.spent + seconds >= limit:
            return True
        if seconds < FLOOR:
            site.note(LITTLE.format(max(1, round(seconds * 1e6))))
            self.skip(site, self.gap - 1, MAX_GAP)
            return False
        if self.inside_hot:   # the work of the loop around it is this loop's entries
            return True
        self.spent += seconds
        site.note(COLD.format(config.current().compile_after))
        if seconds < CHEAP:
            skipped = min(self.gap - 1, int((limit - self.spent) / seconds) - 1)
            if skipped > 0:
                self.spent += skipped * seconds
                self.skip(site, skipped, MAX_CHEAP_GAP)
            else:
                self.gap = min(self.gap * 2, MAX_CHEAP_GAP)
        return False

    def start_timing(self, site) -> None:
        """A loop site's rewritten code reports the end of CPython's run (``timed_run_ended``);
        an expression site's ``__call__`` times its own evaluation."""
        if isinstance(site.info, SiteInfo):
            process = current_process()
            process.open_timings.append(site)
            set_probing(process)
        self.started = clock()

    def timed(self, site) -> None:
        """CPython's timed run of an entry ended (or was found never to report): count it."""
        seconds = clock() - self.started
        self.started = None
        process = current_process()
        if site in process.open_timings:
            process.open_timings.remove(site)
        set_probing(process)
        if self.book(site, seconds, threshold()):
            self.hot = True

    def skip(self, site, entries: int, most: int) -> None:
        """The rewritten code runs the next ``entries`` entries in CPython (booked later)."""
        if entries > 0:
            site.skip_class = None
            site.skipping = site.booked = entries
        self.gap = min(self.gap * 2, most)


def timed_run_ended(site) -> None:
    """``__megaguards_timed__``: CPython's run of ``site`` ended.  A timed run open for more
    than ``FORGOTTEN`` seconds (its loop raised, its site not entered since) is closed: the
    rewritten code stops reporting."""
    tiering = site.tiering
    if getattr(tiering, "started", None) is not None:
        tiering.timed(site)
    timings = current_process().open_timings
    if timings and clock() - timings[0].tiering.started > FORGOTTEN:
        timings[0].tiering.timed(timings[0])


def threshold() -> float:
    """Estimated CPython seconds that pay for compiling a loop now."""
    limit = config.current().compile_after / 1e3
    return limit * LATER_SHARE if current_process().back_end_loaded else limit


def tiering_for(site) -> Tiering | None:
    """A site's tiering at its first entry (None: compile, as it always is under strict)."""
    info = site.info
    if site.strict or not site.backs_off or config.current().compile_after <= 0 \
            or isinstance(info, SiteInfo) and info.rejected is not None:   # refused by the rewrite: said at once
        return DECIDED
    formula = site.info.work   # read by the rewrite (frontend/work.py); None: an info made otherwise
    return Tiering(formula, inside_hot(site)) if formula else DECIDED


# A loop estimated worth compiling whose nest cannot compile as a whole (a list display, a
# call in it) runs in CPython, entering the loop sites inside it: their entries are its work,
# so they compile at their first entry worth more than FLOOR rather than after adding up.

def hot_loop(site) -> None:
    """``site`` decided to compile on its estimate: the loop sites inside it are credited."""
    info = site.info
    if isinstance(info, SiteInfo):
        with user_objects_set_aside():   # reading the loop's tree (a record's: unpickled) allocates
            end = getattr(info.loop, "end_lineno", None)
        if end is not None and end > info.line:
            current_process().hot_loops.append((info.filename, info.line, end))


def inside_hot(site) -> bool:
    info = site.info
    return isinstance(info, SiteInfo) and any(
        filename == info.filename and first < info.line <= last for filename, first, last in current_process().hot_loops)


def cold(site, values: tuple, live_ins=None) -> bool:
    """Does this entry of ``site`` run in CPython, the site not having paid for compiling
    yet?  (Called while ``site.tiering`` is not DECIDED.)  An expression site passes its
    arguments as ``values`` and its thunk as ``live_ins``."""
    tiering = site.tiering
    if tiering is UNREAD:   # the first entry imports the estimates: the user's objects set aside
        with user_objects_set_aside():
            tiering = site.tiering = tiering_for(site)
            return tiering is not DECIDED and cold(site, values, live_ins)
    if live_ins is not None:
        try:
            values = values + tuple(live_ins())
        except NameError:   # the compiled path says why it falls back
            site.tiering = DECIDED
            return False
    if tiering.wants_cpython(site, values):
        return True
    site.tiering = DECIDED
    return False
