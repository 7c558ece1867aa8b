"""A compiled specialization of one loop site, and running it on one entry.

``Specialization.run`` hands the bound live-ins to the C marshalling helper,
which unboxes them, calls the kernel and boxes list results back; NumPy arrays
the loop writes are copied first and committed only when no flag was raised.
It returns the live-out values (``UNSET`` for names the loop did not assign).
"""
from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass, field

import numpy

from ..analysis.typeinfer import TypedLoop
from ..codegen.layout import BOX_TAGS, GUARD_FAILED, PYTHON_ERROR, Layout, marshalling_plan
from ..errors import GuardFailure
from ..guards.signature import Binding
from ..ir.types import Scalar
from .executable import UNSET, Raised, Ran
from .marshal import list_shape


_BOX = {Scalar.PY_BOOL: bool, Scalar.PY_INT: int, Scalar.PY_FLOAT: float,
        Scalar.NP_BOOL: lambda v: numpy.bool_(bool(v)), Scalar.NP_INT32: numpy.int32,
        Scalar.NP_INT64: numpy.int64, Scalar.NP_FLOAT32: numpy.float32, Scalar.NP_FLOAT64: numpy.float64,
        Scalar.PY_COMPLEX: complex}
_BOX_BY_TAG = {tag: _BOX[scalar] for scalar, tag in BOX_TAGS.items()}


@dataclass(frozen=True)
class Explanation:
    """What ``megaguards explain`` shows for one specialization."""

    signature: str
    parallel: list
    source: str


@dataclass
class Specialization:
    typed: TypedLoop
    layout: Layout
    kernel: ctypes._CFuncPtr
    checks_in_loop: int
    preconditions: tuple        # descriptions of the hoisted checks, by number
    parallel_depth: int
    written: tuple              # for each array (layout order): does the loop write it
    is_list: tuple              # for each array: a list (True) or a NumPy array
    scalar_paths: tuple         # Binder.scalar_paths: order of Binding.scalars
    live_outs: tuple[str, ...]
    enter: ctypes._CFuncPtr     # marshal.c's mg_enter
    explanation: Explanation
    seconds: object = field(default_factory=lambda: (ctypes.c_double * 3)())
    object_name: str = ""            # the compiled object's (a hash of source, compiler, flags): names its decisions
    enter_prologue: ctypes._CFuncPtr = None   # marshal.c's mg_prologue (None: the banks filled from Python)

    def __post_init__(self) -> None:
        layout, typed = self.layout, self.typed
        plan = marshalling_plan(layout, typed, self.written, self.is_list, self.scalar_paths)
        self.plan = (ctypes.c_int64 * len(plan))(*plan)
        self.plan_address = ctypes.addressof(self.plan)
        self.kernel_address = ctypes.cast(self.kernel, ctypes.c_void_p).value
        self.ints_type = ctypes.c_int64 * max(1, layout.int_slots)
        self.floats_type = ctypes.c_double * max(1, layout.float_slots)
        self.no_shadow_objects = (None,) * len(layout.shadows)
        self.ranks = [typed.arrays[n].rank for n in layout.arrays]
        self.numpy_written = tuple(k for k, (w, is_list) in enumerate(zip(self.written, self.is_list))
                                   if w and not is_list)
        self.check_lists = any(w and is_list for w, is_list in zip(self.written, self.is_list)) and (
            sum(self.is_list) > 1 or any(typed.arrays[n].rank > 1 for n in layout.arrays))
        self.outputs = tuple((layout.assigned_flags.get(name), layout.scalars.get(name),
                              layout.box_tags.get(name), self.boxer(name)) for name in self.live_outs)

    def twin(self, kernel: ctypes._CFuncPtr, **changes) -> Specialization:
        """This specialization with another kernel of the same loop and layout (auto's
        all-cores one): the marshalling plan and banks are shared, not built again."""
        twin = object.__new__(Specialization)
        twin.__dict__.update(self.__dict__, **changes, kernel=kernel,
                             kernel_address=ctypes.cast(kernel, ctypes.c_void_p).value)
        return twin

    def boxer(self, name: str):
        types = self.typed.assigned_types.get(name, ())
        return _BOX[next(iter(types))] if len(types) == 1 else None

    @property
    def timings(self) -> dict:
        return {"unbox": self.seconds[0], "execute": self.seconds[1], "writeback": self.seconds[2]}

    last_device = None   # the executable protocol's: one kernel, one device
    gpu_runs = 0

    def run(self, binding: Binding) -> Ran | Raised:
        """The live-outs, or the flag the kernel raised (executable.py)."""
        arrays = binding.arrays
        if binding.on_device:
            raise GuardFailure("CuPy arrays need the GPU, and this loop cannot run there")
        # No NumPy array written: every shadow is None (and nothing to check per entry).
        if self.numpy_written:
            shadows = self.shadows_for(arrays)
            kernel_arrays = arrays + tuple(shadow for _, shadow in shadows)
        else:
            shadows, kernel_arrays = (), arrays + self.no_shadow_objects
        if self.check_lists:
            check_list_rows(arrays, self.is_list, self.ranks)
        ints, floats = self.ints_type(), self.floats_type()
        ints[self.layout.precondition_slot] = -1
        flag = self.enter(kernel_arrays, binding.scalars, self.plan_address, self.kernel_address, ints, floats,
                          self.seconds)
        failed = ints[self.layout.precondition_slot]
        failed_check = self.preconditions[failed] if failed >= 0 else None
        if flag:
            if flag == GUARD_FAILED:
                raise GuardFailure("a list that is not rectangular or not homogeneous, or an int beyond int64")
            if flag == PYTHON_ERROR:
                raise GuardFailure("unboxing raised (out of memory, or a value that does not convert)")
            return Raised(flag, failed_check)
        started = time.perf_counter()
        if not ints[self.layout.in_place_slot]:
            committed: set[int] = set()
            for original, shadow in shadows:
                if shadow is not None and id(shadow) not in committed:
                    committed.add(id(shadow))
                    numpy.copyto(original, shadow)
        outputs = []
        for flag_slot, value_slot, tag_slot, box in self.outputs:
            if flag_slot is None or not ints[flag_slot]:
                outputs.append(UNSET)
                continue
            bank, slot = value_slot
            if tag_slot is not None:
                box = _BOX_BY_TAG[ints[tag_slot]]
            if box is complex:  # two float slots
                outputs.append(complex(floats[slot], floats[slot + 1]))
                continue
            outputs.append(box((floats if bank == "floats" else ints)[slot]))
        self.seconds[2] += time.perf_counter() - started
        return Ran(tuple(outputs), failed_check)

    def prologue(self, binding: Binding) -> tuple:
        """Run the kernel's prologue only (mode 1) on these live-ins: (ints, floats).  The
        banks hold the arrays' dims (``layout.dims``), the scalars, whether the hoisted checks
        passed (``ints[layout.intervals_slot]``) and every hoisted loop's range, computed
        whether or not the checks pass.  GuardFailure where a live-in cannot be read."""
        layout = self.layout
        ints, floats = self.ints_type(), self.floats_type()
        ints[layout.mode_slot] = 1
        if self.enter_prologue is not None and not binding.on_device:   # the C helper cannot read CuPy arrays
            flag = self.enter_prologue(binding.arrays + self.no_shadow_objects, binding.scalars, self.plan_address,
                                       self.kernel_address, ints, floats)
            if flag < 0:
                raise GuardFailure("a live-in the kernel's prologue cannot read (as the run would find)")
            return ints, floats
        for name, value in zip(layout.arrays, binding.arrays):
            shape = list_shape(value, self.typed.arrays[name].rank) if type(value) is list else value.shape
            for d, size in enumerate(shape):
                ints[layout.dims[name] + d] = size
        for path, value in zip(self.scalar_paths, binding.scalars):
            bank, slot = layout.scalars[path]
            (floats if bank == "floats" else ints)[slot] = float(value) if bank == "floats" else int(value)
        pointers = (ctypes.c_void_p * max(1, len(layout.arrays) + len(layout.shadows)))()
        self.kernel(pointers, ints, floats)
        return ints, floats

    def shadows_for(self, arrays: tuple) -> list:
        """(array, shadow or None) per NumPy array name: the kernel writes in place when it
        cannot raise a flag, else into the shadow (one per written object), committed here
        after success.  Another view overlapping a written array would see stale data."""
        written = {id(arrays[k]): arrays[k] for k in self.numpy_written if type(arrays[k]) is numpy.ndarray}
        for original in written.values():
            if not original.flags.writeable:
                raise GuardFailure("a read-only NumPy array is written (Python raises ValueError)")
            if self_overlapping(original):
                raise GuardFailure("a written NumPy view whose elements overlap (as_strided)")
        for original in written.values():
            for other in arrays:
                if (type(other) is numpy.ndarray and other is not original
                        and numpy.may_share_memory(original, other)):
                    raise GuardFailure("overlapping NumPy views, one of them written")
        shadows: dict[int, numpy.ndarray] = {}
        pairs = []
        for value, is_list in zip(arrays, self.is_list):
            if is_list:
                continue
            shadow = None
            if id(value) in written:
                shadow = shadows.get(id(value))
                if shadow is None:
                    shadow = shadows[id(value)] = numpy.empty(value.shape, dtype=value.dtype)
            pairs.append((value, shadow))
        return pairs


def self_overlapping(array: numpy.ndarray) -> bool:
    """Can two different indices of this view reach one element (stride 0, windows)?"""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return False
    required = array.itemsize
    for stride, size in sorted((abs(s), n) for s, n in zip(array.strides, array.shape) if n > 1):
        if stride < required:
            return True
        required = stride * size
    return False


def check_list_rows(arrays, is_list, ranks) -> None:
    """A row reachable twice (``[[0] * n] * m``, or a row passed beside its matrix)
    would be written through one name and read stale through the other."""
    seen: set[int] = set()
    total = 0
    done: set[int] = set()
    for value, listed, rank in zip(arrays, is_list, ranks):
        if listed and id(value) not in done:
            done.add(id(value))
            for identity in _sublist_ids(value, rank):
                seen.add(identity)
                total += 1
    if len(seen) != total:
        raise GuardFailure("a list row appears twice (e.g. [[0] * n] * m), and the loop writes lists")


def _sublist_ids(value: list, rank: int):
    yield id(value)
    if rank > 1:
        for row in value:
            yield from _sublist_ids(row, rank - 1)
