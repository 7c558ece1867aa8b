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
"""
from __future__ import annotations

import builtins
import dataclasses
import functools
import logging
import operator
import sys
import threading
import time
from dataclasses import dataclass

import numpy

from .. import config
from ..analysis.functions import FLOAT_SUM_COMPILES, FLOAT_SUM_REASON
from ..analysis.typeinfer import ArrayInfo, infer_types
from ..frontend.comprehension import ACCUMULATOR, OUTPUT, VALUE, ExpressionInfo, build_loop
from ..frontend.rewrite import SiteInfo
from ..frontend.scope import upward_exposed_reads
from ..ir import nodes as ir
from ..ir.types import NUMPY_DTYPE_SCALAR, Scalar, binary_result, scalar_of_class
from .data import UNSET
from ..errors import GuardFailure
from .backoff import Speed
from .pipeline import Rejected
from .site import REGISTRY, Reporting, Site, SiteStats

log = logging.getLogger("megaguards")
NOT_COMPILED = object()
clock = time.perf_counter  # what times the compiled path and CPython's (tests put a fake clock here)
_KNOWN_REDUCERS = {id(operator.add): ("op", "+"), id(operator.mul): ("op", "*"),
                   id(builtins.max): ("call", "max"), id(builtins.min): ("call", "min")}
_KNOWN_OBJECTS = {id(operator.add): operator.add, id(operator.mul): operator.mul,
                  id(builtins.max): builtins.max, id(builtins.min): builtins.min}


class NotHere(Exception):
    """This entry stays in CPython (the message is the reason)."""


@dataclass(frozen=True)
class WrongElement(Rejected):
    """The output (or accumulator) was set up for another element type than the loop's."""

    element: Scalar | None = None


def accumulator_type(start: Scalar, element: Scalar) -> Scalar | None:
    """The type of ``start + e0 + e1 ...`` when it is one type from the first step on."""
    result = binary_result("+", start, element)
    if result is None or binary_result("+", result, element) is not result:
        return None
    return result


def _strip(node):
    """The loop without the statements that use the element (stores and accumulation)."""
    def keep(statement) -> bool:
        return not ((isinstance(statement, ir.Store) and statement.array == OUTPUT)
                    or (isinstance(statement, ir.Assign) and statement.target == ACCUMULATOR))
    changes = {}
    for name in ("body", "orelse"):
        block = getattr(node, name, None)
        if isinstance(block, tuple):
            changes[name] = tuple(_strip(s) for s in block if keep(s))
    return dataclasses.replace(node, **changes) if changes else node


class LoopSite(Site):
    """The synthetic loop of one form; rejects signatures whose output or accumulator
    does not hold exactly the element's type.  Its expression site backs off, not it."""

    backs_off = False

    def __init__(self, site_id: int, info: SiteInfo, expression: ExpressionInfo, start: Scalar | None) -> None:
        super().__init__(site_id, info)
        self.expression = expression
        self.start = start  # sum: the start value's type

    def specialize(self, binding):
        try:
            element = self.probe(binding)
        except Exception:  # the real specialization says why, or the check after it decides
            element = None
        if element is not None and not self.fits(binding, element):
            result = self.specializations[binding.key] = WrongElement(f"elements are {element!r}", element)
            return result
        result = super().specialize(binding)
        if not isinstance(result, Rejected):
            types = result.typed.assigned_types.get(VALUE, frozenset())
            element = next(iter(types)) if len(types) == 1 else None
            if element is None or not self.fits(binding, element):
                result = self.specializations[binding.key] = WrongElement(f"elements are {element!r}", element)
        return result

    def probe(self, binding) -> Scalar | None:
        """The element's type, by type inference alone (before anything is compiled)."""
        functions, scalars, arrays = self.binder.describe(binding)
        infos = {use.name: ArrayInfo(arrays[use.name][0], use.rank, *arrays[use.name][1:])
                 for use in self.binder.array_uses}
        typed = infer_types(_strip(self.loop.body), scalars, infos, functions)
        types = typed.assigned_types.get(VALUE, frozenset())
        return next(iter(types)) if len(types) == 1 else None

    def fits(self, binding, element: Scalar) -> bool:
        kind = self.expression.kind
        if kind in ("list", "map"):
            position = next(k for k, use in enumerate(self.binder.array_uses) if use.name == OUTPUT)
            return output_element(binding.arrays[position]) is element
        if kind == "sum":
            position = self.binder.scalar_paths.index(ACCUMULATOR)
            wanted = accumulator_type(self.start, element)
            return wanted is not None and scalar_of_class(type(binding.scalars[position])) is wanted
        return True  # reduce: the accumulator's stability is the type inference's


def output_element(output) -> Scalar | None:
    if type(output) is numpy.ndarray:
        return NUMPY_DTYPE_SCALAR.get(output.dtype)
    while type(output) is list and output:
        output = output[0]
    return scalar_of_class(type(output))


def allocate(element: Scalar, shape: tuple[int, ...]):
    if element.is_numpy:
        return numpy.empty(shape, dtype=element.pyclass)
    zero = element.pyclass(0)

    def rows(depth: int):
        if depth == len(shape) - 1:
            return [zero] * shape[depth]
        return [rows(depth + 1) for _ in range(shape[depth])]
    return rows(0)


def as_lists(output):
    """A NumPy output as the nested lists of NumPy scalars that iterating it gives."""
    if type(output) is not numpy.ndarray:
        return output
    return list(output) if output.ndim == 1 else [as_lists(row) for row in output]


def empty_lists(shape: tuple[int, ...]):
    """The value of a nested comprehension with an empty level."""
    if shape[0] == 0 or len(shape) == 1:
        return []
    return [empty_lists(shape[1:]) for _ in range(shape[0])]


def _inner_scalar(node, values: dict):
    import ast

    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        value = values[node.id]
        if type(value) is not int:
            raise NotHere(f"'{node.id}' in an inner range() is a {type(value).__name__}, not an int")
        return value
    if isinstance(node, ast.UnaryOp):
        return -_inner_scalar(node.operand, values)
    if isinstance(node, ast.BinOp):
        left, right = _inner_scalar(node.left, values), _inner_scalar(node.right, values)
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            raise NotHere("division by zero in an inner range()")
        return {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
                ast.FloorDiv: operator.floordiv}[type(node.op)](left, right)
    sequence = values[node.args[0].id]  # len(name)
    if values.get("len") is not builtins.len or type(sequence) not in (list, numpy.ndarray):
        raise NotHere("len() in an inner range() is not the built-in on a list or array")
    return len(sequence)


def inner_iterable(node, values: dict):
    import ast

    if isinstance(node, ast.Name):
        return values[node.id]
    if values.get("range") is not builtins.range:
        raise NotHere("'range' is not the built-in")
    arguments = [_inner_scalar(a, values) for a in node.args]
    try:
        return range(*arguments)
    except ValueError:
        raise NotHere("range() step is zero") from None


def source_kind(value) -> tuple[str, int]:
    """("range1" | "range" | "seq", length) of one iterable."""
    if type(value) is range:
        try:
            return ("range1" if value.step == 1 else "range"), len(value)
        except OverflowError:
            raise NotHere("a range longer than sys.maxsize") from None
    if type(value) is list or (type(value) is numpy.ndarray and value.ndim == 1):
        return "seq", len(value)
    raise NotHere(f"iterating over a {type(value).__name__} (only ranges, lists and 1-D NumPy arrays)")


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
        self.outermost = info.levels[0].sources[0].argument

    def __call__(self, thunk, fallback, *arguments):
        if self.skipping:  # backing off: CPython evaluates the expression (booked later)
            self.skipping -= 1
            speed = None
        else:
            if self.booked:
                self.settle()
            size = self.size_class(arguments)
            speed = self.speeds.get(size)
            if speed is not None and speed.wants_cpython():
                self.stats.entries += 1
                self.stats.fallback_runs += 1
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
            if not INLINED_COMPREHENSIONS:
                raise
            # Since 3.12 (PEP 709) a comprehension runs in its function's frame: reading an
            # unbound local there is an UnboundLocalError, where the lambda holding the
            # expression as written sees an unbound *free* variable (a NameError).
            name = getattr(error, "name", None)
            user_frame = sys._getframe(2)  # 1 is dispatch()
            if type(error) is NameError and name in user_frame.f_code.co_cellvars:
                raise UnboundLocalError(f"cannot access local variable '{name}' where it is not "
                                        "associated with a value") from None
            raise
        if speed is not None:
            speed.cpython(clock() - started)
        return result

    def size_class(self, arguments) -> int:
        """The bit length of the outermost iterable's length (-1: not a list, range or array);
        read without running user code."""
        value = arguments[self.outermost]
        cls = type(value)
        if cls is list:
            return len(value).bit_length()
        if cls is range:
            try:
                return len(value).bit_length()
            except OverflowError:
                return -1
        if cls is numpy.ndarray and value.ndim:
            return value.shape[0].bit_length()
        return -1

    def compiled_result(self, thunk, arguments):
        self.stats.entries += 1
        if not config.current().enabled:
            return self.fallback("megaguards is off (device=off)")
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
                    "reduce": ((functools.reduce, "functools.reduce"),)}.get(kind, ())
        for value, (wanted, name) in zip(arguments, expected):
            if value is not wanted:
                raise NotHere(f"'{name}' is rebound to something else")

    def enter(self, values: dict, arguments: tuple):
        info = self.info
        self.check_builtins(arguments)
        environment = dict(values)
        environment.setdefault("range", builtins.range)
        kinds, lengths = [], []
        for number, level in enumerate(info.levels):
            level_kinds, level_lengths = [], []
            for k, source in enumerate(level.sources):
                value = arguments[source.argument] if source.argument is not None else inner_iterable(
                    source.expression, values)
                kind, length = source_kind(value)
                level_kinds.append(kind)
                level_lengths.append(length)
                if kind == "seq":
                    environment[f"mg_q{number}_{k}"] = value
                else:
                    environment[f"mg_s{number}_{k}"] = value.start
                    environment[f"mg_d{number}_{k}"] = value.step
            kinds.append(tuple(level_kinds))
            lengths.append(min(level_lengths))
            environment[f"mg_n{number}"] = lengths[-1]
        reducer, start_type, first = self.reducer(arguments, environment), None, None
        if info.kind in ("list", "map"):
            if 0 in lengths:
                return self.done(empty_lists(tuple(lengths)))
        elif info.kind == "sum":
            start = arguments[info.start] if info.start is not None else 0
            if 0 in lengths:
                return self.done(start)
            start_type = scalar_of_class(type(start))
            if start_type is None:
                raise NotHere(f"sum() starting from a {type(start).__name__}")
            first = start
        else:  # reduce
            if info.start is not None:
                first = arguments[info.start]
                environment["mg_b0"] = 0
            elif lengths[0] == 0:
                raise NotHere("reduce() of an empty iterable (Python raises TypeError)")
            else:
                source = arguments[info.levels[0].sources[0].argument]
                first = source[0]
                environment["mg_b0"] = 1
            if lengths[0] == environment["mg_b0"]:
                return self.done(first)
            environment[ACCUMULATOR] = first
        form = (tuple(kinds), reducer, start_type)
        site = self.site_for(form, start_type)
        # A first guess of floats would stop a 3.12+ sum at once (FLOAT_SUM_REASON), before
        # the site tells the elements' type: guess ints there.
        first_guess = Scalar.PY_INT if info.kind == "sum" and not FLOAT_SUM_COMPILES else Scalar.PY_FLOAT
        element = self.guesses.get(form, first_guess)
        for _ in range(2):
            if info.kind in ("list", "map"):
                environment[OUTPUT] = allocate(element, tuple(lengths))
            elif info.kind == "sum":
                environment[ACCUMULATOR] = self.sum_start(first, start_type, element)
            live_ins = tuple(environment[name] for name in site.info.live_ins)
            outcome = site(live_ins)
            if outcome is not None:
                self.guesses[form] = element
                return self.done(self.result(outcome, environment, first))
            better = self.learned(site, live_ins)
            if better is None or better is element:
                break
            element = better
        for reason in site.stats.reasons:
            if not reason.startswith("elements are"):
                self.note(reason)
        self.failed(form, "expression", site.last_reason or "the loop site fell back")
        return self.fallback()

    def reducer(self, arguments, environment) -> tuple:
        info = self.info
        if info.kind == "sum":
            return ("op", "+")
        if info.kind != "reduce":
            if info.callee is not None:
                environment["mg_f"] = arguments[info.callee]
            return ()
        if info.reducer:
            return info.reducer
        function = arguments[info.callee]
        known = _KNOWN_REDUCERS.get(id(function))
        if known is not None and _KNOWN_OBJECTS[id(function)] is function:
            if known[0] == "call":
                environment[known[1]] = function
            return known
        environment["mg_f"] = function
        return ("function",)

    @staticmethod
    def sum_start(start, start_type: Scalar, element: Scalar):
        """The accumulator's first value: ``start`` itself, or the int 0 as the type that
        ``0 + e0`` has (the same value: 0 converts exactly, and ``0 + e`` is ``T(0) + e``)."""
        wanted = accumulator_type(start_type, element)
        if wanted is None:
            raise NotHere(f"sum() of {element!r} elements from a {start_type!r} changes type")
        if wanted is Scalar.PY_FLOAT and not FLOAT_SUM_COMPILES:
            raise NotHere(FLOAT_SUM_REASON)
        if wanted is start_type:
            return start
        if type(start) is not int or start != 0:
            raise NotHere(f"sum() of {element!r} elements from the {start_type!r} {start!r}")
        return wanted.pyclass(0)

    @staticmethod
    def learned(site: LoopSite, live_ins: tuple) -> Scalar | None:
        if site.binder is None:
            return None
        try:
            key = site.binder.bind(live_ins).key
        except GuardFailure:
            return None
        rejected = site.specializations.get(key)
        return rejected.element if isinstance(rejected, WrongElement) else None

    def result(self, outcome, environment: dict, first):
        if self.info.kind in ("list", "map"):
            return as_lists(environment[OUTPUT])
        value = outcome[0]
        return first if value is UNSET else value

    def done(self, value):
        self.stats.compiled_runs += 1
        if self.failures:
            self.succeeded()
        return value

    def site_for(self, form, start_type) -> LoopSite:
        site = self.forms.get(form)
        if site is None:
            with self.lock:
                site = self.forms.get(form)
                if site is None:
                    loop = build_loop(self.info, form[0], form[1])
                    live_outs = (ACCUMULATOR,) if self.info.kind in ("sum", "reduce") else ()
                    info = SiteInfo(self.info.filename, self.info.line, self.info.function, loop,
                                    tuple(upward_exposed_reads(loop)), live_outs)
                    site = self.forms[form] = LoopSite(self.id, info, self.info, start_type)
        return site

    # what the report and ``explain`` read ------------------------------------------------
    def backoff_records(self) -> list[dict]:
        return super().backoff_records() + [
            {"cause": "slower", "reason": speed.describe(size), "failures": speed.slower, "retry_at": None}
            for size, speed in sorted(self.speeds.items()) if speed.slower]

    def backoff_reasons(self) -> list[str]:
        return super().backoff_reasons() + [f"backing off (slower): {speed.describe(size)}"
                                            for size, speed in sorted(self.speeds.items()) if speed.slower]

    @property
    def specializations(self) -> dict:
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


def dispatch(site_id: int, thunk, fallback, *arguments, _sites=REGISTRY.sites):
    """``__megaguards_expr__``: a site backing off answers here (before 3.12; since then
    ExpressionSite.__call__ does, where an unbound name is told apart)."""
    site = _sites[site_id]
    if site.skipping and not INLINED_COMPREHENSIONS:
        site.skipping -= 1  # booked later (BackingOff.settle)
        return fallback(*arguments)
    return site(thunk, fallback, *arguments)
