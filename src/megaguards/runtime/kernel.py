"""A compiled specialization of one loop site, and running it on one entry.

``Specialization.run`` unboxes the bound live-ins into the kernel's arguments,
calls the kernel, and, only if no flag was raised, commits array writes and
returns the live-out values (``UNSET`` for names the loop did not assign).
"""
from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass, field

import numpy

from ..analysis.typeinfer import TypedLoop
from ..codegen.layout import Layout
from ..ir.types import Scalar
from .marshal import GuardFailure, ListCodec, address, contiguous_strides, element_strides

FLAG_REASONS = {1: "index out of range", 2: "integer overflow beyond int64 (or the NumPy type's range)",
                3: "division or modulo by zero", 4: "a value CPython rejects (math domain, NaN to int, "
                "range step 0, inexact int/float conversion)", 5: "a result whose Python type differs "
                "(e.g. int ** negative int)"}


class Unset:
    """Marker for a live-out the compiled loop did not assign."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<megaguards unset>"


UNSET = Unset()
_BOX = {Scalar.PY_BOOL: lambda v: bool(v), Scalar.PY_INT: int, Scalar.PY_FLOAT: float,
        Scalar.NP_BOOL: lambda v: numpy.bool_(bool(v)), Scalar.NP_INT32: numpy.int32,
        Scalar.NP_INT64: numpy.int64, Scalar.NP_FLOAT32: numpy.float32, Scalar.NP_FLOAT64: numpy.float64}


@dataclass
class Timings:
    unbox: float = 0.0
    execute: float = 0.0
    writeback: float = 0.0


@dataclass
class Specialization:
    typed: TypedLoop
    layout: Layout
    function: ctypes._CFuncPtr
    checks_in_loop: int
    written: frozenset
    live_outs: tuple[str, ...]
    codec: ListCodec
    timings: Timings = field(default_factory=Timings)

    def run(self, bound: dict, probes: dict) -> tuple | int:
        """Live-out tuple on success; the kernel's flag (an int > 0) otherwise."""
        start = time.perf_counter()
        layout, typed = self.layout, self.typed
        ints = (ctypes.c_int64 * max(1, layout.int_slots))()
        floats = (ctypes.c_double * max(1, layout.float_slots))()
        pointers = (ctypes.c_void_p * max(1, len(layout.arrays)))()
        buffers: dict[int, tuple] = {}
        commits = []
        self.check_aliasing(bound, probes)
        for k, name in enumerate(layout.arrays):
            value = bound[name]
            element, shape = probes[name]
            known = buffers.get(id(value))
            if known is None:
                if type(value) is list:
                    work = self.codec.unbox(value, element, shape)
                    strides = contiguous_strides(shape)
                    if name in self.written:
                        commits.append(lambda v=value, e=element, s=shape, w=work: self.codec.box(v, e, s, w))
                elif name in self.written:
                    work = value.copy(order="C")
                    strides = element_strides(work)
                    commits.append(lambda v=value, w=work: numpy.copyto(v, w))
                else:
                    work, strides = value, element_strides(value)
                known = buffers[id(value)] = (address(work), strides, work)
            pointers[k] = known[0]
            base, rank = layout.dims[name], len(shape)
            for d in range(rank):
                ints[base + d] = shape[d]
                ints[base + rank + d] = known[1][d]
        for name in typed.live_ins:
            bank, slot = layout.scalars[name]
            (floats if bank == "floats" else ints)[slot] = bound[name]
        middle = time.perf_counter()
        flag = self.function(pointers, ints, floats)
        end = time.perf_counter()
        self.timings.unbox += middle - start
        self.timings.execute += end - middle
        if flag:
            return flag
        for commit in commits:
            commit()
        outputs = []
        for name in self.live_outs:
            slot = layout.assigned_flags.get(name)
            if slot is None or not ints[slot]:
                outputs.append(UNSET)
                continue
            bank, value_slot = layout.scalars[name]
            raw = (floats if bank == "floats" else ints)[value_slot]
            outputs.append(_BOX[typed.assigned_types[name]](raw))
        self.timings.writeback += time.perf_counter() - end
        return tuple(outputs)

    def check_aliasing(self, bound: dict, probes: dict) -> None:
        """Written data must not be reachable through another name the kernel reads
        separately (same object twice is fine: it shares one buffer)."""
        if not self.written:
            return
        arrays = {id(bound[name]): bound[name] for name in self.layout.arrays}
        views = [v for v in arrays.values() if type(v) is numpy.ndarray]
        written_views = [bound[n] for n in self.written if type(bound[n]) is numpy.ndarray]
        for written in written_views:
            for other in views:
                if other is not written and numpy.may_share_memory(written, other):
                    raise GuardFailure("overlapping NumPy views, one of them written")
        if not any(type(bound[n]) is list for n in self.written):
            return
        seen: set[int] = set()
        total = 0
        for name in self.layout.arrays:
            value = bound[name]
            if type(value) is list and id(value) not in seen:
                for identity in _sublist_ids(value, len(probes[name][1])):
                    seen.add(identity)
                    total += 1
        if len(seen) != total:
            raise GuardFailure("a list row appears twice (e.g. [[0] * n] * m), and the loop writes lists")


def _sublist_ids(value: list, rank: int):
    yield id(value)
    if rank > 1:
        for row in value:
            yield from _sublist_ids(row, rank - 1)
