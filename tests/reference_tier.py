"""The differential tier of three executors on the same entries of a loop site:
CPython running the loop's own source, the IR's reference interpreter
(``megaguards.ir.interp``) and the compiled specialization the site chose (one core,
all cores, or the GPU where the device is one).

``entries(function, *arguments)`` runs a ``megaguards.jit`` copy of ``function`` and
records, at every entry of every loop site, a snapshot of the live-in values taken
before the site ran.  ``compare(entry)`` then runs the three executors on fresh copies
of that snapshot and returns what each gave; ``check(entry)`` asserts they agree:

* the interpreter gives CPython's live-outs, arrays and exception (type and message),
  or declines where the IR sends the loop back to CPython;
* the compiled run gives CPython's live-outs and arrays, or raises a flag (it then
  declines: CPython runs the loop, as at a real entry).
"""
from __future__ import annotations

import ast
import contextlib
import re
import types
import warnings
from dataclasses import dataclass

import numpy

import megaguards
from megaguards.errors import GuardFailure
from megaguards.ir.interp import Declined, interpret
from megaguards.runtime.executable import Ran
from megaguards.runtime.data import UNSET
from megaguards.runtime.site import Site

from conftest import _comparable

DECLINED = ("declined",)


@dataclass
class Entry:
    site: Site
    snapshot: tuple     # the live-in values, in site.info.live_ins order, before the site ran


def fresh(value, memo=None):
    """A copy of the data a loop can write (lists, NumPy arrays); everything else shared."""
    memo = {} if memo is None else memo
    if id(value) in memo:
        return memo[id(value)]
    if type(value) is list:
        memo[id(value)] = result = []
        result.extend(fresh(item, memo) for item in value)
        return result
    if type(value) is numpy.ndarray:
        memo[id(value)] = result = value.copy()
        return result
    if type(value) is tuple:  # the live-ins themselves, or a tuple the loop reads
        return tuple(fresh(item, memo) for item in value)
    return value


def copyable(value) -> bool:
    """Values whose every writable part ``fresh`` copies: numbers, lists, NumPy arrays,
    functions, classes and modules (a loop never writes those)."""
    if isinstance(value, (list, tuple)):
        return all(map(copyable, value))
    return isinstance(value, (int, float, complex, bool, numpy.ndarray, numpy.generic, types.FunctionType,
                              types.BuiltinFunctionType, types.ModuleType, type, type(None)))


def entries(function, *arguments) -> list[Entry]:
    """Run a jitted copy of ``function`` on copies of ``arguments``; every site entry seen."""
    seen: list[Entry] = []
    original = Site.enter

    def recording(site, values):
        if copyable(values):
            seen.append(Entry(site, fresh(values)))
        return original(site, values)
    fast = megaguards.jit(function)
    Site.enter = recording
    try:
        try:
            fast(*fresh(arguments))
        except Exception:  # the user's exception: the entries before it still count
            pass
    finally:
        Site.enter = original
    return seen


def run_cpython(entry: Entry) -> tuple:
    """The loop's own source, executed with the live-ins as its namespace."""
    names = dict(zip(entry.site.info.live_ins, fresh(entry.snapshot)))
    arrays = [names[use.name.split(".")[0]] for use in entry.site.loop.arrays]
    code = compile(ast.Module(body=[entry.site.info.loop], type_ignores=[]), entry.site.info.filename, "exec")
    try:
        with quiet():
            exec(code, names)
    except Exception as error:
        return raised(error)
    return ("returned", outcome(entry, names, arrays))


def outcome(entry: Entry, values: dict, arrays) -> tuple:
    """The comparable state after a run: the scalars the loop assigns that are read after it
    (its live-outs), and the arrays."""
    assigned = set(entry.site.loop.assigned)
    names = [name for name in entry.site.info.live_outs if name in assigned]
    return (_comparable(tuple((name, values[name] if name in values else "unset") for name in names)),
            _comparable(tuple(arrays)))


def bound(entry: Entry):
    """(binding, scalars by path, arrays by name, functions by path) of a fresh copy."""
    binder = entry.site.binder
    binding = binder.bind(fresh(entry.snapshot))
    scalars = dict(zip(binder.scalar_paths, binding.scalars))
    arrays = {use.name: value for use, value in zip(entry.site.loop.arrays, binding.arrays)}
    arrays.update(zip(entry.site.loop.appended, binding.appended))   # the lists the loop appends to, by name
    functions = dict(zip(binder.function_paths, binding.functions))
    return binding, scalars, arrays, functions


@contextlib.contextmanager
def quiet():
    """Without NumPy's overflow warnings, which CPython and the interpreter both give (the
    tier compares values and exceptions, not warnings)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def raised(error: Exception) -> tuple:
    """An exception, comparably.  The IR does not say whether a NumPy subscript was written
    ``B[i][j]`` or ``B[i, j]``: the same IndexError names axis 0 or 1, the rest is the same."""
    return ("raised", type(error).__name__, re.sub(r" for axis \d+ ", " ", str(error)))


def run_interpreter(entry: Entry) -> tuple:
    binding, scalars, arrays, functions = bound(entry)
    try:
        with quiet():
            assigned = interpret(entry.site.loop, scalars, arrays, functions)
    except Declined:
        return DECLINED
    except Exception as error:
        return raised(error)
    return ("returned", outcome(entry, {**scalars, **assigned}, binding.arrays))


def run_compiled(entry: Entry) -> tuple | None:
    """The site's specialization for this signature on a fresh copy; None if there is none."""
    try:
        binding = entry.site.binder.bind(fresh(entry.snapshot))
    except GuardFailure:
        return None
    specialization = entry.site.specializations.get(binding.key)
    if specialization is None or not hasattr(specialization, "run"):
        return None
    try:
        result = specialization.run(binding)
    except GuardFailure:
        return None
    if type(result) is not Ran:
        return DECLINED
    live_outs = dict(zip(entry.site.info.live_outs, result.values))
    values = {**dict(zip(entry.site.binder.scalar_paths, binding.scalars)),
              **{name: value for name, value in live_outs.items() if value is not UNSET}}
    return ("returned", outcome(entry, values, binding.arrays))


def check(entry: Entry) -> tuple[bool, bool]:
    """Assert the three executors agree on ``entry``; (interpreter ran, compiled ran).
    An entry the site could not lower or bind (its guard failed) has nothing to compare."""
    if entry.site.loop is None:
        return False, False
    try:
        entry.site.binder.bind(fresh(entry.snapshot))
    except GuardFailure:
        return False, False
    expected = run_cpython(entry)
    interpreted = run_interpreter(entry)
    where = f"{entry.site.info.filename}:{entry.site.info.line}"
    assert interpreted in (expected, DECLINED), (where, "interpreter", interpreted, expected)
    if interpreted == DECLINED:
        assert expected[0] == "raised" or _has_empty_reduction(entry), (where, "declined", expected)
    compiled = run_compiled(entry)
    if compiled not in (None, DECLINED):
        assert without_scratch(entry, compiled) == without_scratch(entry, expected), (
            where, "compiled", compiled, expected)
    return interpreted != DECLINED, compiled not in (None, DECLINED)


def without_scratch(entry: Entry, result: tuple) -> tuple:
    """``result`` without the function's own work lists, which nothing reads once the loop
    ends: the compiled kernel does not box them back (frontend/scratch.py)."""
    scratch = set(entry.site.info.scratch)
    if not scratch or result[0] != "returned":
        return result
    uses = [use.name for use in entry.site.loop.arrays]
    scalars, (kind, arrays) = result[1]
    kept = tuple(array for k, array in enumerate(arrays) if k >= len(uses) or uses[k] not in scratch)
    return ("returned", (scalars, (kind, kept)))


def _has_empty_reduction(entry: Entry) -> bool:
    from megaguards.ir import nodes as ir

    return any(isinstance(node, ir.EmptyReduction) and node.raises for node in ir.walk(entry.site.loop.body))
