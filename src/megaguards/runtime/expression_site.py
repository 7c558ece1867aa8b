"""Expression sites: the runtime end of a rewritten comprehension, map, sum or reduce.

``__megaguards_expr__(site_id, thunk, fallback, *arguments)`` returns the expression's
value: computed by a compiled synthetic loop (``frontend/comprehension.build_loop``) when
that can give exactly CPython's result, else ``fallback(*arguments)``, which evaluates the
expression as written.  The synthetic loop runs as an ordinary loop site (one per *form*:
which kinds of iterables it walks, and how it combines), so lowering, inlining, guards,
parallel planning and code generation are the loops' own.

The element type of a new list must be exactly the type each element has under CPython.
Each loop site checks it: a cheap type inference before compiling (``probe``), and the
compiled loop's own types after; a mismatch is a ``WrongElement`` carrying the right type,
and the site retries once with an output of that type.  Python-typed elements go into a
fresh list (the marshalling boxes them exactly), NumPy-typed ones into a NumPy array whose
rows become lists of NumPy scalars, as iterating an array gives.

The light half is here: the site every rewritten module registers, its dispatch, reasons
and report.  The heavy half (``expression_forms.py``: the synthetic loops, NumPy outputs,
type probes) is imported at the first entry of an expression site.
"""
from __future__ import annotations

import builtins
import functools
import sys
import threading
import time

from ..log_setup import LAZY
from .. import config
from ..frontend.siteinfo import ExpressionInfo
from .backoff import Speed
from .site import ELEMENT_COUNTS, OFF, REGISTRY, Reporting, SiteStats, first_loop_entry
from .tiering import DECIDED, UNREAD, Tiering, cold

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown
NOT_COMPILED = object()
clock = time.perf_counter  # what times the compiled path and CPython's (tests put a fake clock here)


class NotHere(Exception):
    """This entry stays in CPython (the message is the reason)."""


# Python 3.12+ runs comprehensions inline in their function's frame (PEP 709).
INLINED_COMPREHENSIONS = sys.version_info >= (3, 12)


class ExpressionSite(Reporting):
    """One rewritten expression.  Backs off as loop sites do (runtime/backoff.py), keyed by
    its form where known; and keeps the faster: per size class (the bit length of the
    outermost iterable's length) its compiled path is timed against CPython's run of it
    (the fallback, timed here at the class's fourth entry), and a class slower compiled
    goes back to CPython."""

    not_compiled = NOT_COMPILED

    def __init__(self, site_id: int, info: ExpressionInfo) -> None:
        self.id = site_id
        self.info = info
        self.stats = SiteStats()
        self.forms: dict = {}       # form -> LoopSite
        self.guesses: dict = {}     # form -> the element type that worked last
        self.disabled: str | None = None
        self.lock = threading.Lock()
        self.init_backoff()
        self.speeds: dict = {}      # size class -> backoff.Speed
        self.outermost: int | None = None   # the argument index of the outermost iterable, once entered
        self.tiering = UNREAD       # until it pays to compile (runtime/tiering.py)
        # zip(*rows)'s zip, evaluated just before the table: its argument positions, read at the
        # first entry (the levels hold ast nodes: a cached rewrite loads them only when compiling)
        self.zips: tuple | None = None

    def __call__(self, thunk, fallback, *arguments):
        if self.skipping:  # backing off: CPython evaluates the expression (booked later)
            self.skipping -= 1
            speed = None
        else:
            if self.booked:
                self.settle()
            speed = None
            if self.tiering is not DECIDED and cold(self, arguments, thunk):   # not worth compiling yet
                self.stats.entries += 1
                self.stats.fallback_runs += 1
            else:
                size = self.size_class(arguments)
                speed = self.speeds.get(size)
                if speed is not None and speed.wants_cpython():
                    self.stats.entries += 1
                    self.stats.fallback_runs += 1
                    if speed.countdown and all(other.slower for other in self.speeds.values()):
                        # Every size seen is slower compiled: the rest of this back-off is the
                        # rewritten code's skip (one test per entry), not a size class per entry.
                        self.skip_class = None
                        self.skipping = self.booked = speed.countdown
                        speed.countdown = 0
                    started = clock()
                else:
                    started = clock()
                    result = self.compiled_result(thunk, arguments)
                    if result is not NOT_COMPILED:
                        if speed is None:
                            speed = self.speeds[size] = Speed()
                        speed.compiled(clock() - started)
                        return result
                    speed = None
        try:
            result = fallback(*arguments)
        except NameError as error:
            self.end_timing()
            if not INLINED_COMPREHENSIONS:
                raise
            # Since 3.12 (PEP 709) a comprehension runs in its function's frame: reading an
            # unbound local there is an UnboundLocalError, where the lambda holding the
            # expression as written sees an unbound *free* variable (a NameError).
            name = getattr(error, "name", None)
            user_frame = sys._getframe(2)  # 1 is dispatch()
            if type(error) is NameError and name in user_frame.f_code.co_cellvars \
                    and runs_inlined(self.info.expression):
                raise UnboundLocalError(f"cannot access local variable '{name}' where it is not "
                                        "associated with a value") from None
            raise
        except BaseException:
            self.end_timing()
            raise
        self.end_timing()
        if speed is not None:
            speed.cpython(clock() - started)
        return result

    def end_timing(self) -> None:
        """Book CPython's evaluation of an entry whose work the estimate could not tell."""
        tiering = self.tiering
        if type(tiering) is Tiering and tiering.started is not None:
            tiering.timed(self)

    def size_class(self, arguments) -> int:
        """The bit length of the outermost iterable's length (-1: not a list, range or array);
        read without running user code.  (A rewritten module's info is read only here, at
        the first entry: registering the site reads none of it.)"""
        outermost = self.outermost
        if outermost is None:
            outermost = self.outermost = self.info.levels[0].sources[0].argument
        value = arguments[outermost]
        cls = type(value)
        if cls is list:
            return len(value).bit_length()
        if cls is range:
            try:
                return len(value).bit_length()
            except OverflowError:
                return -1
        # NumPy not imported (or still being imported, by CUDA's warm-up thread): no value is an array.
        ndarray = getattr(sys.modules.get("numpy"), "ndarray", None)
        if ndarray is not None and cls is ndarray and value.ndim:
            return value.shape[0].bit_length()
        return -1

    def compiled_result(self, thunk, arguments):
        self.stats.entries += 1
        if not config.current().enabled:
            self.switch_off(OFF)
            return self.fallback(OFF)
        if self.disabled:
            self.disable_for_good(self.disabled)
            return self.fallback(self.disabled)
        try:
            names = thunk()
        except NameError:
            return self.fallback("a name the expression reads is unbound")
        try:
            return self.enter(dict(zip(self.info.live_ins, names)), arguments)
        except NotHere as reason:
            self.failed(("not here", str(reason)), "expression", str(reason))
            return self.fallback(str(reason))
        except Exception as error:  # a megaguards bug must never break the user's program
            log.warning("internal error at %s:%d: %r", self.info.filename, self.info.line, error, exc_info=True)
            self.disabled = f"internal error in megaguards: {type(error).__name__}: {error}"
            return self.fallback(self.disabled)

    def check_builtins(self, arguments) -> None:
        kind = self.info.kind
        expected = {"map": ((builtins.list, "list"), (builtins.map, "map")), "sum": ((builtins.sum, "sum"),),
                    "min": ((builtins.min, "min"),), "max": ((builtins.max, "max"),),
                    "any": ((builtins.any, "any"),), "all": ((builtins.all, "all"),),
                    "reduce": ((functools.reduce, "functools.reduce"),)}.get(kind, ())
        for value, (wanted, name) in zip(arguments, expected):
            if value is not wanted:
                raise NotHere(f"'{name}' is rebound to something else")
        if self.zips is None:
            self.zips = tuple(source.argument - 1 for level in self.info.levels for source in level.sources
                              if source.columns)
        for position in self.zips:
            if arguments[position] is not builtins.zip:
                raise NotHere("'zip' is rebound to something else")

    def enter(self, values: dict, arguments: tuple):
        if not self.forms:   # its first entries (no synthetic loop yet): the back end, once per process
            first_loop_entry()
        from .expression_forms import enter   # the heavy half, imported at the first entry

        return enter(self, values, arguments)

    def done(self, value):
        self.stats.compiled_runs += 1
        if self.failures:
            self.succeeded()
        return value

    # what the report and ``explain`` read ------------------------------------------------
    def slower_speeds(self) -> list[tuple[str, Speed]]:
        return [(elements(size), speed) for size, speed in sorted(self.speeds.items()) if speed.slower]

    @property
    def specializations(self) -> dict:
        if not self.forms:
            return {}
        from .expression_forms import WrongElement

        return {(form, key): s for form, site in self.forms.items() for key, s in site.specializations.items()
                if not isinstance(s, WrongElement)}

    @property
    def compiled(self) -> list:
        return [s for site in self.forms.values() for s in site.compiled]

    @property
    def backend_name(self) -> str | None:
        names = [site.backend_name for site in self.forms.values() if site.backend_name]
        return "cuda" if "cuda" in names else "c-omp" if "c-omp" in names else names[0] if names else None

    def transfers(self) -> dict | None:
        found = [t for t in (site.transfers() for site in self.forms.values()) if t]
        return {name: sum(t[name] for t in found) for name in found[0]} if found else None

    def list_elements(self) -> dict | None:
        found = [e for e in (site.list_elements() for site in self.forms.values()) if e]
        return {name: sum(e[name] for e in found) for name in ELEMENT_COUNTS} if found else None

    @property
    def parallel_depth(self) -> int:
        return max((site.parallel_depth for site in self.forms.values()), default=0)

    @property
    def checks_in_loop(self) -> int:
        return max((site.checks_in_loop for site in self.forms.values()), default=0)

    def seconds(self) -> dict:
        total = {"analysis": 0.0, "compile": 0.0, "unbox": 0.0, "transfer": 0.0, "execute": 0.0, "writeback": 0.0}
        for site in self.forms.values():
            for stage, seconds in site.seconds().items():
                total[stage] += seconds
        return total


def runs_inlined(expression) -> bool:
    """Does CPython 3.12+ run this expression's comprehension in its function's frame (PEP
    709: list, set and dict comprehensions; a generator expression keeps its own)?"""
    import ast

    inner = expression.args[0] if isinstance(expression, ast.Call) and expression.args else expression
    return isinstance(inner, (ast.ListComp, ast.SetComp, ast.DictComp))


def elements(size_class: int) -> str:
    """The lengths of the outermost iterable in a size class (ExpressionSite.size_class)."""
    low = 0 if size_class == 0 else 1 << (size_class - 1)
    return f"{low}..{max(2 * low - 1, 0)} elements"


def dispatch(site_key, thunk, fallback, *arguments, _sites=REGISTRY.table):
    """``__megaguards_expr__``: a site backing off answers here (before 3.12; since then
    ExpressionSite.__call__ does, where an unbound name is told apart).  ``site_key``: the
    site's id, or its key in a module's rewrite."""
    site = _sites[site_key]
    if site.skipping and not INLINED_COMPREHENSIONS:
        site.skipping -= 1  # booked later (BackingOff.settle)
        return fallback(*arguments)
    return site(thunk, fallback, *arguments)
