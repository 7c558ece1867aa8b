"""Loop sites: the runtime end of every rewritten loop.

``__megaguards_site__(site_id, live_in_values)`` returns the live-out tuple when
the compiled path ran, or None when the original loop must run.  Everything
that can go wrong here (a guard failing, a flag raised in the kernel, even a
bug in megaguards) ends in None: the user's program runs as under CPython.

Registering sites (a module's import) imports nothing heavy: the back end (the lowering,
the guards, the analyses, the code generators, NumPy) is imported at the process's first
entry of any site (``first_loop_entry``), so a script that reaches no loop never imports
it; the functions that use it import it locally, never on the per-entry path.
"""
from __future__ import annotations

import threading
from sys import getrecursionlimit, setrecursionlimit
import time

from ..log_setup import LAZY
from .. import config
from ..errors import CompilationError, GuardFailure, Unsupported, compilation_error, short_location
from ..frontend.siteinfo import (EXPRESSION_FUNCTION, NEXT_NAME, PROBING_NAME, SITE_FUNCTION, TIMED_FUNCTION,
                                 UNSET_NAME, ExpressionInfo, SiteInfo, skip_name)
from .backoff import NO_SKIPS, BackingOff
from .collector import user_objects_set_aside
from .executable import INTERRUPTED, UNSET, Raised, Ran, Rejected
from .probe import LoopSpeeds, clock, inside_probe
from .process import current as current_process
from .tiering import DECIDED, UNREAD, cold, timed_run_ended

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown
MAX_SPECIALIZATIONS = 16
OFF = "megaguards is off (device=off)"
SITE_FRAMES = 64   # recursion allowed to a loop site's own frames beyond the program's limit
ELEMENT_COUNTS = ("unboxed", "held", "reused", "boxed")   # the report's list_elements (Specialization.elements)


class SiteStats:
    """What the report says of a site: entries, runs each way, reasons, seconds."""

    __slots__ = ("entries", "compiled_runs", "fallback_runs", "reasons", "analysis", "compile")

    def __init__(self) -> None:
        self.entries = self.compiled_runs = self.fallback_runs = 0
        self.reasons: dict = {}     # the first reasons of fallbacks, in order (a dict as an ordered set)
        self.analysis = self.compile = 0.0

    def __repr__(self) -> str:
        return f"SiteStats({', '.join(f'{name}={getattr(self, name)!r}' for name in self.__slots__)})"


class Reporting(BackingOff):
    """The report's side of a site: fallbacks counted, their first reasons kept, the last
    one too (an expression site backs off for its loop site's reason)."""

    not_compiled = None  # what a fallback returns to the rewritten code
    last_reason: str | None = None

    def note(self, reason: str) -> None:
        if len(self.stats.reasons) < 20 and reason not in self.stats.reasons:
            self.stats.reasons[reason] = None
            log.debug("loop %s: %s", short_location(self.info), reason)

    def fallback(self, reason: str | None = None):
        self.stats.fallback_runs += 1
        if reason:
            self.last_reason = reason
            self.note(reason)
        return self.not_compiled


class Site(Reporting):
    """One rewritten loop.  ``strict`` (set by jit(strict=True)): a loop that cannot compile
    raises CompilationError, and nothing backs off."""

    fresh_outputs: tuple = ()   # live-ins every element of which the loop writes before reading any

    def __init__(self, site_id: int, info: SiteInfo) -> None:
        self.id = site_id
        self.keys = (site_id,)      # what rewritten code names it by (the Registry adds a rewrite's key)
        self.info = info
        self.stats = SiteStats()
        self.loop = None            # ir.Loop once lowered
        self.set_after = ()         # attribute paths the site sets after a run (called functions assign them)
        self.live_outs = ()         # what the kernel gives: the rewritten code's live-outs, then set_after
        self.binder = None          # guards.signature.Binder for it
        self.disabled: str | None = None
        self.disabled_at = (0, 0)   # (line, col) of what disabled the site, if known
        self.specializations: dict = {}
        self.lock = threading.Lock()
        self.init_backoff()
        self.last_device: str | None = None  # of a DeviceChoice's last run, logged when it changes
        self.speeds: LoopSpeeds | None = None   # once it compiled: keep the faster (runtime/probe.py)
        self.tiering = UNREAD       # until it pays to compile (runtime/tiering.py)

    def __call__(self, values):
        # An entry backing off never gets here: the rewritten code or dispatch() (below) skips it.
        entered = clock()   # a compiled entry, and CPython's timed run of one, are timed from here
        if self.booked != self.skipping:
            self.settle()
        self.stats.entries += 1
        if not config.current().enabled:
            self.switch_off(OFF)
            return self.fallback(OFF)
        if self.disabled:
            self.disable_for_good(self.disabled)
            return self.cannot_compile(self.disabled, self.disabled_at)
        if values is None:  # CPython raises the NameError: not ours to report
            return self.fallback("a name the loop reads is unbound before the loop")
        if self.tiering is not DECIDED and cold(self, values):
            self.stats.fallback_runs += 1
            return None
        speeds = self.speeds
        size = speeds.size(values) if speeds is not None else None
        if speeds is not None and speeds.wants_cpython(size, self):
            self.stats.fallback_runs += 1
            return None
        if inside_probe():   # CPython's run of an enclosing loop is being timed
            self.stats.fallback_runs += 1
            return None
        try:
            compiled_before, stats = self.stats.compiled_runs, self.stats
            prepared_before = stats.analysis + stats.compile
            result = self.enter(values)
            if stats.compiled_runs != compiled_before and self.backs_off and not self.strict \
                    and stats.analysis + stats.compile == prepared_before \
                    and current_process().observer is None:   # (calibrate.py measures compiled runs on purpose)
                self.timed_compiled(values, size, clock() - entered)   # (an entry that compiled says nothing)
            return result
        except CompilationError:
            raise
        except Exception as error:  # a megaguards bug must never break the user's program
            log.warning("internal error at %s:%d: %r", self.info.filename, self.info.line, error, exc_info=True)
            self.disabled = f"internal error in megaguards: {type(error).__name__}: {error}"
            return self.cannot_compile(self.disabled)

    def timed_compiled(self, values: tuple, size: tuple | None, seconds: float) -> None:
        """A compiled entry (of ``size``; None: not read yet) took ``seconds``: where CPython's
        run of its size was measured faster, back off (one size met: the cheapest way, by
        ``skipping``)."""
        speeds = self.speeds
        if speeds is None:
            from ..analysis.features import trip_count_names

            trips = trip_count_names(self.loop.body)
            arrays = {use.name for use in self.loop.arrays}
            live_ins = self.info.live_ins
            speeds = self.speeds = LoopSpeeds(tuple(p for p, name in enumerate(live_ins) if name in arrays),
                                              tuple(p for p, name in enumerate(live_ins) if name in trips))
        speed = speeds.compiled(speeds.size(values) if size is None else size, seconds,
                                lambda: self.estimated_cpython(values))
        self.skip_slower(speed)

    def skip_slower(self, speed) -> None:
        """A size class found slower compiled backs off by the rewritten code's skip (one test
        an entry, no size read, no timed run) where no class compared is faster compiled:
        entries of another size wait for the skip's end (a list that grows at every entry
        meets a new class at every doubling: each of its entries would otherwise pay the
        site's call)."""
        speeds = self.speeds
        if speed is not None and speed.countdown and (
                not speeds.mixed or all(known.slower for known in speeds.by_size.values()
                                        if known.cpython_runs >= known.probe_runs)):   # (compared)
            self.skip_class = None
            self.skipping = self.booked = speed.countdown
            speed.countdown = 0

    def estimated_cpython(self, values: tuple) -> float | None:
        """CPython's seconds for this entry by the site's work formula (frontend/work.py), where
        it tells them exactly; else None."""
        from .estimate import estimate

        formula = getattr(self.info, "work", None)
        try:
            seconds, exact = estimate(formula, values) if formula else (0.0, False)
        except Exception:   # an estimate never breaks a run
            return None
        return seconds if exact else None

    def slower_speeds(self) -> list:
        return self.speeds.slower_speeds() if self.speeds is not None else []

    def cannot_compile(self, reason: str, location: tuple = (0, 0)):
        """Fall back for a reason the loop cannot be compiled (not a runtime flag): under
        ``jit(strict=True)`` raise CompilationError instead, the reason noted for explain."""
        if not self.strict:
            return self.fallback(reason)
        self.stats.fallback_runs += 1
        self.note(reason)
        raise compilation_error(self.info, reason, *location)

    def enter(self, values):
        if self.loop is None:
            rejected = getattr(self.info, "rejected", None)
            if rejected is not None:   # refused at rewrite time, whatever the values: no lowering here
                self.disabled, self.disabled_at = rejected[0], rejected[1:]
                return self.cannot_compile(self.disabled, self.disabled_at)
            first_loop_entry()
            started = time.perf_counter()
            try:
                with user_objects_set_aside():
                    from ..frontend.lower import lower_loop
                    from ..guards.signature import Binder, resolve_callee

                    index = {name: k for k, name in enumerate(self.info.live_ins)}
                    self.loop = lower_loop(self.info.loop, lambda path: resolve_callee(path, values, index))
                    self.binder = Binder(self.loop, self.info.live_ins)
                    # Attributes only called functions assign (``self.seed = s`` of ``rnd.next()``):
                    # the kernel gives them too; the site sets them (the rewritten code knows
                    # only the loop's own names).
                    self.set_after = tuple(path for path in self.loop.assigned
                                           if "." in path and path not in self.info.live_outs)
                    self.live_outs = self.info.live_outs + self.set_after
                    if self.binder.reads_fields and config.current().enabled:
                        back_end()
                        from .backend import fields_in_c

                        fields_in_c(self.binder)
            except Unsupported as unsupported:
                self.disabled, self.disabled_at = unsupported.describe(), (unsupported.line, unsupported.col)
                return self.cannot_compile(self.disabled, self.disabled_at)
            finally:
                self.stats.analysis += time.perf_counter() - started
            log.debug("loop %s: lowered in %.1f ms", short_location(self.info),
                      1e3 * (time.perf_counter() - started))
        try:
            binding = self.binder.bind(values)
        except GuardFailure as failure:
            predictor = self.failing_class(failure, values)
            self.failed(("binding", predictor or str(failure)), "binding", f"guard: {failure}", predictor)
            return self.cannot_compile(f"guard: {failure}")
        specialization = self.specializations.get(binding.key)
        if specialization is None:
            with self.lock:
                specialization = self.specializations.get(binding.key)
                if specialization is None:
                    specialization = self.specialize(binding)
        if isinstance(specialization, Rejected):
            self.failed(binding.key, "rejected", specialization.reason)
            return self.cannot_compile(specialization.reason, specialization.location)
        lengths = self.binder.collected_lengths(binding) if self.binder.collected else None
        tables = [len(binding.appended[k]) for _, k in self.binder.row_tables] if self.binder.row_tables else None
        try:
            outcome = specialization.run(binding)
        except GuardFailure as failure:
            if failure.array_position is not None and failure.array_position not in self.binder.mixed:
                # A list mixes ints and floats: typed int-or-float, the entry is tried again at once.
                self.binder.mixed.add(failure.array_position)
                self.note(f"guard: {failure}")
                return self.enter(values)
            self.failed(binding.key, "guard", f"guard: {failure}")
            return self.cannot_compile(f"guard: {failure}")
        device = specialization.last_device
        if device is not None and device != self.last_device:
            self.last_device = device
            log.debug("loop %s: ran on %s", short_location(self.info), device)
        if outcome.failed_check:
            self.note(f"hoisted check failed ({outcome.failed_check}): ran the copy of the loop that checks inside")
        if type(outcome) is Ran:
            self.stats.compiled_runs += 1
            if self.failures:
                self.succeeded()
            outputs = outcome.values
            if lengths is not None:   # out.append(p): the indices appended become the objects
                self.binder.collect(values, binding, lengths)
            if self.set_after:
                outputs = self.binder.set_attributes(values, self.set_after, outputs, UNSET)
            if binding.fields or self.loop.object_aliases:   # lists of objects (frontend/fields.py)
                from ..guards.fields import store_fields

                store_fields(binding)
                outputs = self.binder.objects_after(values, self.info.live_outs, outputs, UNSET)
            if tables is not None:
                outputs = self.built_rows_after(outputs, binding, tables)
            return self.last_rows(outputs, binding) if self.loop.row_aliases or self.loop.column_aliases else outputs
        if type(outcome) is Raised:
            if outcome.flag != INTERRUPTED:   # Ctrl-C: Python raises its KeyboardInterrupt at once
                self.failed(binding.key, "flag", f"runtime flag: {outcome.reason}")
            return self.fallback(f"runtime flag: {outcome.reason}")
        return self.fallback(f"declined: {outcome.why}")

    def last_rows(self, values: tuple, binding) -> tuple:
        """The live-outs with each row the kernel read in place (``for row in table``, no
        ``break``) given CPython's value after the loop: the last row, if there was one (the
        last column's tuple for ``for col in zip(*rows)``)."""
        values = list(values)
        positions = {use.name: k for k, use in enumerate(self.loop.arrays)}
        for name, array in self.loop.row_aliases:
            if name in self.info.live_outs and array in positions:
                rows = binding.arrays[positions[array]]
                if len(rows):
                    values[self.info.live_outs.index(name)] = rows[-1]
        for name, array in self.loop.column_aliases:   # for col in zip(*rows): the last column's tuple
            if name in self.info.live_outs and array in positions:
                rows = binding.arrays[positions[array]]
                if len(rows) and len(rows[0]):
                    values[self.info.live_outs.index(name)] = tuple(row[len(rows[0]) - 1] for row in rows)
        return tuple(values)

    def built_rows_after(self, values: tuple, binding, lengths: list) -> tuple:
        """The live-outs with each row the loop built (``row = []`` ... ``table.append(row)``)
        given CPython's value after the loop: the last row appended to its table, if the run
        made one (``lengths``: the tables' lengths before it)."""
        values = list(values)
        for (row, position), before in zip(self.binder.row_tables, lengths):
            table = binding.appended[position]
            if row in self.info.live_outs and len(table) > before:
                values[self.info.live_outs.index(row)] = table[-1]
        return tuple(values)

    def failing_class(self, failure: GuardFailure, values: tuple) -> tuple | None:
        """(position, class) of the array live-in whose class failed binding (a dict where a
        list is indexed), the cheapest key that predicts the failure; None for the others."""
        from ..guards.assumptions import Assumption
        from ..guards.signature import is_array

        if failure.assumption is not Assumption.ARRAY_CLASS:
            return None
        for position, name in enumerate(self.info.live_ins):
            if any(use.name == name for use in self.binder.array_uses):
                if not is_array(values[position]):
                    return position, type(values[position])
        return None

    def specialize(self, binding):
        if len(self.specializations) >= MAX_SPECIALIZATIONS:
            return Rejected(f"more than {MAX_SPECIALIZATIONS} type signatures at this loop")
        process = current_process()
        try:
            with user_objects_set_aside():
                process.preparing = self.info
                back_end()
                from . import backend

                result = backend.specialize(self, binding)
        except Unsupported as unsupported:
            result = Rejected(unsupported.describe(), location=(unsupported.line, unsupported.col))
        except GuardFailure as failure:
            result = Rejected(f"guard: {failure}")
        finally:
            process.preparing = None
        self.specializations[binding.key] = result
        return result

    @property
    def compiled(self) -> list:
        return [s for s in self.specializations.values() if not isinstance(s, Rejected)]

    @property
    def backend_name(self) -> str | None:
        if not self.compiled:
            return None
        if any(s.gpu_runs for s in self.compiled):
            return "cuda"
        return "c-omp" if self.parallel_depth else "c-seq"

    def transfers(self) -> dict | None:
        """Host-device copies of GPU runs (counts and bytes), None if none ran on the GPU."""
        gpus = [s.gpu for s in self.compiled if s.gpu_runs]
        if not gpus:
            return None
        fields = ("to_device", "bytes_to_device", "from_device", "bytes_from_device", "kept", "bytes_kept")
        return {name: sum(getattr(g.transfers, name) for g in gpus) for name in fields}

    @property
    def parallel_depth(self) -> int:
        return max((s.parallel_depth for s in self.compiled), default=0)

    @property
    def checks_in_loop(self) -> int:
        # A DeviceChoice (device cpu or auto) reports its CPU specialization's checks.
        return max((s.checks_in_loop for s in self.compiled), default=0)

    def list_elements(self) -> dict | None:
        """List elements the compiled entries unboxed, those the lists held, those a snapshot
        spared and those boxed back: a loop that touches part of a list unboxes (and boxes
        back) only that part; a scratch list is not boxed back (frontend/scratch.py)."""
        counts = [s.elements for s in self.compiled if getattr(s, "elements", None) is not None]
        if not any(held for _, held, _, _ in counts):
            return None
        return {name: int(sum(c[k] for c in counts)) for k, name in enumerate(ELEMENT_COUNTS)}

    def seconds(self) -> dict:
        # A DeviceChoice's GPU specialization books its own entries, copies as "transfer".
        compiled = [s.timings for s in self.compiled] + [s.gpu.timings for s in self.compiled
                                                       if getattr(s, "gpu", None) is not None]
        return {"analysis": self.stats.analysis, "compile": self.stats.compile,
                **{stage: sum(t.get(stage, 0.0) for t in compiled) for stage in ("unbox", "transfer", "execute",
                                                                                 "writeback")}}


class Registry:
    """Every site created in this process, by id (its place in ``sites``).  Rewritten code
    names a site by its id, or by the key a module's rewrite gave it (``rewrites.py``: the
    same code is loaded by processes that number their sites differently)."""

    def __init__(self) -> None:
        self.sites: list[Site] = []
        self.table: dict = {}   # what rewritten code passes (an id, or a key) -> the site
        self.lock = threading.Lock()

    def register(self, info: SiteInfo, key: str | None = None) -> int:
        return self.register_all((info,), None if key is None else (key,))[0]

    def register_all(self, infos, keys=None) -> list[int]:
        """Create a site per info, in order (each also under its key, if given); their ids."""
        if any(isinstance(info, ExpressionInfo) for info in infos):
            from .expression_site import ExpressionSite
        import builtins

        ids = []
        skips = vars(builtins)   # each site's skip iterator, under its skip name (backoff.py)
        with self.lock:
            sites, table = self.sites, self.table
            for index, info in enumerate(infos):
                site = (ExpressionSite if isinstance(info, ExpressionInfo) else Site)(len(sites), info)
                sites.append(site)
                site_keys = (site.id,) if keys is None else (site.id, keys[index])
                site.keys = site_keys   # what rewritten code names it by (__megaguards_probing__)
                site.skip_names = tuple(skip_name(key) for key in site_keys)
                site.skip_table = skips
                for key, name in zip(site_keys, site.skip_names):
                    table[key] = site
                    skips[name] = NO_SKIPS
                ids.append(site.id)
        return ids

    def known(self, key: str) -> bool:
        return key in self.table

    def options_changed(self, before: config.Config, after: config.Config) -> None:
        """Sites switched off while megaguards was off try again once a device is on."""
        if after.enabled and not before.enabled:
            with self.lock:
                sites = list(self.sites)
            for site in sites:
                site.switched_on()


# Not in process.Process: site ids are written into rewritten code and ``dispatch`` is a
# built-in, so the registry outlives any stand-in process a test installs.
REGISTRY = Registry()
config.when_changed(REGISTRY.options_changed)


def dispatch(site_key, values, *, _sites=REGISTRY.table):
    """``__megaguards_site__``: the entries a site skips while backing off never call it
    (runtime/backoff.py), except those skipped by a live-in's class (after binding failed on
    it), answered here.  ``site_key``: the
    site's id, or its key in a module's rewrite (``Registry``)."""
    site = _sites[site_key]
    cls = site.skip_class   # skips by class (the others were drawn by the rewritten code)
    if cls is not None and site.skipping and values is not None and type(values[site.skip_position]) is cls:
        site.skipped_by_class()
        return None
    # The site's frames (binding, the device choice, the kernel's call: about a dozen) do not
    # count against the program's recursion: no code of the program runs in them (its loop
    # runs after this returns None), and a loop entered at the program's deepest must not
    # raise a RecursionError CPython would not.
    limit = getrecursionlimit()
    setrecursionlimit(limit + SITE_FRAMES)
    try:
        return site(values)
    except KeyboardInterrupt as interrupt:   # Ctrl-C stopped the compiled loop: raised at its line
        raise interrupt.with_traceback(None) from None
    finally:
        setrecursionlimit(limit)


def timed(site_key, _sites=REGISTRY.table) -> None:
    """``__megaguards_timed__``: CPython's run of a loop site ended (runtime/probe.py,
    runtime/tiering.py)."""
    site = _sites[site_key]
    if site.speeds is not None:
        site.skip_slower(site.speeds.timed())
    if site.tiering is not DECIDED or current_process().open_timings:
        timed_run_ended(site)


def install_site_names() -> None:
    """Make the names rewritten code refers to resolvable from every module, as
    built-ins: the user's namespaces (``globals()``, ``dir()``) stay as under CPython."""
    import builtins

    from . import expression_site

    setattr(builtins, SITE_FUNCTION, dispatch)
    setattr(builtins, PROBING_NAME, frozenset())
    setattr(builtins, NEXT_NAME, next)
    setattr(builtins, TIMED_FUNCTION, timed)
    setattr(builtins, UNSET_NAME, UNSET)
    setattr(builtins, EXPRESSION_FUNCTION, expression_site.dispatch)


def first_loop_entry() -> None:
    """Once per process, at the first entry of any loop or expression site, before lowering
    it: let the CUDA warm-up thread finish its imports (two threads importing overlapping
    modules can meet each other's half-initialized ones; the script's set-up before its
    first loop still overlaps it).  Lowering and binding import only the front end and the
    guards: a program whose loops cannot compile never imports the back end (``back_end``)."""
    process = current_process()
    if process.loop_entered:
        return
    process.loop_entered = True
    from . import warmup

    warmup.wait()


def back_end() -> None:
    """Once per process, at the first specialization (a loop lowered and bound): import the
    back end (the analyses, the code generators; NumPy only if a live-in holds NumPy values)
    and, under ``auto``, read what the device choice needs (the calibration, the decision
    tree, the cores, the stored decisions), so that the loop's own specialization decides
    without reading files."""
    process = current_process()
    if process.back_end_loaded:
        return
    process.back_end_loaded = True
    from . import backend  # noqa: F401 (imported for what it imports)
    from . import warmup
    from .cachefile import usable_cache

    usable_cache()   # a folder others may write into holds no kernel this process loads

    if config.current().device == "auto":
        try:
            warmup.load_selection_data()
        except Exception as error:  # read again where it is needed, and reported there
            log.debug("reading the device choice's data failed: %s: %s", type(error).__name__, error)
