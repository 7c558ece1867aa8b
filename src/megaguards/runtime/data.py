"""One owner of the data a kernel reads and writes, besides the unboxing in marshal.c.

* Live-outs: the ``UNSET`` marker, boxing scalar results back into Python objects of the
  class the loop assigned (``output_plan``, ``box_outputs``; the GPU's ``box_live_outs``).
* Shadows: the copies NumPy arrays a loop writes get when the kernel could raise a flag
  halfway (``shadow_copies``), committed only after success (``commit_shadows``).
* Lists: ``list_shape`` along the first elements (marshal.c checks the rest).
* The GPU: copies between host and device and their accounting (``Transfers``,
  ``StageClock``, ``DeviceCopies``), one device array per object (``arrays_to_device``),
  and the kernel's small inputs packed into one block (``packed_inputs``).

The checks on the same data (may this array be written? may this list be unboxed?) are
the guard's: guards/assumptions.py.  The kernels' ABI is codegen/layout.py's.
"""
from __future__ import annotations

import ctypes
import math
import time
import weakref
from contextlib import contextmanager

from ..record import field, record
from ..analysis.floatstatus import watched_categories
from ..analysis.parallel import FOLD_FORMS
from ..codegen.layout import BOX_TAGS, boxed_back, list_kind
from ..guards.assumptions import Assumption, marshal_failure
from ..ir.types import LIST_ELEMENT_DTYPE, Scalar, numpy_module
from .executable import UNSET   # defined there, with nothing heavy: the sites install it as a built-in


class Boxes(dict):
    """Scalar -> what boxes a kernel's value as it (NumPy's classes looked up at first use:
    a program without NumPy values never imports NumPy)."""

    def __missing__(self, scalar: Scalar):
        if scalar is Scalar.NP_BOOL:
            bool_ = numpy_module().bool_
            box = self[scalar] = lambda value: bool_(bool(value))
        elif scalar is Scalar.PY_CHAR:   # a code point: its one-character str
            box = self[scalar] = chr
        else:
            box = self[scalar] = scalar.pyclass
        return box


class BoxesByTag(dict):
    """A kernel's class tag (codegen/layout.BOX_TAGS) -> its box."""

    def __missing__(self, tag: int):
        scalar = next(scalar for scalar, known in BOX_TAGS.items() if known == tag)
        box = self[tag] = BOX[scalar]
        return box


BOX = Boxes()
BOX_BY_TAG = BoxesByTag()


# -- live-outs ----------------------------------------------------------------------------

def int_or_float(value: float, class_: float):
    """An int-or-float value from its two float slots (prelude's mg_num): an int is exact."""
    return float(value) if class_ else int(value)


def boxer(typed, name: str):
    """The class a live-out is boxed as, when the loop assigns it one class only (else
    its kernel reports the class of the last value, by tag)."""
    scalar = typed.variables.get(name)
    if scalar is not None and scalar.is_int_or_float:
        return int_or_float
    types = typed.assigned_types.get(name, ())
    return BOX[next(iter(types))] if len(types) == 1 else None


REBOUND = object()   # the box of an array name a swap exchanges (``a, b = b, a``)


def output_plan(layout, typed, live_outs: tuple) -> tuple:
    """Per live-out: (ints slot of its "was assigned" flag, (bank, slot) of its value,
    ints slot of its class tag, its box), as ``box_outputs`` reads them at each entry; for
    an array name a swap exchanges: (None, the ints slot of the array it names, None, REBOUND)."""
    return tuple((None, layout.rebound[name], None, REBOUND) if name in layout.rebound else
                 (layout.assigned_flags.get(name), layout.scalars.get(name), layout.box_tags.get(name),
                  boxer(typed, name)) for name in live_outs)


def box_outputs(outputs: tuple, ints, floats, arrays: tuple = ()) -> list:
    """The live-outs' values from the kernel's banks (``UNSET``: not assigned); ``arrays``:
    the entry's arrays (layout order), which swapped names end up naming."""
    values = []
    for flag_slot, value_slot, tag_slot, box in outputs:
        if box is REBOUND:
            values.append(arrays[ints[value_slot]])
            continue
        if flag_slot is None or not ints[flag_slot]:
            values.append(UNSET)
            continue
        bank, slot = value_slot
        if tag_slot is not None:
            box = BOX_BY_TAG[ints[tag_slot]]
        if box is complex or box is int_or_float:  # two float slots
            values.append(box(floats[slot], floats[slot + 1]))
            continue
        values.append(box((floats if bank == "floats" else ints)[slot]))
    return values


def box_live_outs(names: tuple, final: dict, tags: dict, typed, box_tags: dict) -> tuple:
    """The GPU's live-outs: ``final`` values by name, boxed as the loop's class (``tags``:
    the class tag of a name assigned several)."""
    outputs = []
    for name in names:
        if name not in final:
            outputs.append(UNSET)
            continue
        types = typed.assigned_types.get(name, ())
        if name in box_tags and name in tags:
            outputs.append(BOX_BY_TAG[tags[name]](final[name]))
        elif len(types) == 1:
            outputs.append(BOX[next(iter(types))](final[name]))
        else:
            raise Assumption.LIVE_OUT_CLASS.failure(name=name)
    return tuple(outputs)


# -- shadows of written NumPy arrays ------------------------------------------------------

def shadow_copies(arrays: tuple, numpy_positions: tuple, numpy_written: tuple) -> list:
    """(array, shadow or None) per NumPy array name (``numpy_positions``, in layout order):
    the kernel writes in place when it cannot raise a flag, else into the shadow (one per
    written object, whatever its names), committed by ``commit_shadows`` after success.
    guards.assumptions.check_entry has checked the written ones first."""
    numpy = numpy_module()
    shadows: dict[int, numpy.ndarray] = {}
    for k in numpy_written:
        value = arrays[k]
        if type(value) is numpy.ndarray and id(value) not in shadows:
            shadows[id(value)] = numpy.empty(value.shape, dtype=value.dtype)
    return [(arrays[k], shadows.get(id(arrays[k]))) for k in numpy_positions]


def commit_shadows(pairs: list) -> None:
    """Each shadow into its array, once per object."""
    numpy = numpy_module()
    committed: set[int] = set()
    for original, shadow in pairs:
        if shadow is not None and id(shadow) not in committed:
            committed.add(id(shadow))
            numpy.copyto(original, shadow)


def list_shape(value: list, rank: int) -> tuple[int, ...]:
    """Shape of a nested list along its first elements (the unboxing checks the rest)."""
    shape = []
    for _ in range(rank):
        shape.append(len(value))
        value = value[0] if value else []
    return tuple(shape)


# -- the GPU ------------------------------------------------------------------------------

@record(frozen=False)
class Transfers:
    to_device: int = 0
    bytes_to_device: int = 0
    from_device: int = 0
    bytes_from_device: int = 0
    kept: int = 0                 # copies to the device a read-only list's kept copy spared
    bytes_kept: int = 0


class StageClock:
    """Seconds of a GPU specialization's entries per stage, as the report shows them.
    Copies between host and device are booked as ``transfer``, list unboxing as ``unbox``,
    boxing results back as ``writeback``; whatever else an entry spends (hoisted checks,
    launch, waiting for the kernel) is ``execute``, so the stages add up to the entry."""

    def __init__(self) -> None:
        self.timings = {"unbox": 0.0, "transfer": 0.0, "execute": 0.0, "writeback": 0.0}

    @contextmanager
    def book(self, stage: str):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[stage] += time.perf_counter() - started

    def entry(self, work):
        booked, started = sum(self.timings.values()), time.perf_counter()
        try:
            return work()
        finally:
            self.timings["execute"] += time.perf_counter() - started - (sum(self.timings.values()) - booked)


@record(frozen=False)
class DeviceCopies:
    """One GPU kernel's copies of arrays to the device and back (each a ``(device array,
    commit or None)``; a commit runs only after the kernel raised no flag)."""

    codec: object                 # marshal helper library (mg_unbox_into / mg_box_from)
    clock: StageClock
    transfers: Transfers
    may_flag: bool = True         # the kernel can raise a flag after writing (checks in the loop)
    staged: set = field(default_factory=set)   # (shape, dtype) of the lists moved before
    resident: dict = field(default_factory=dict)    # name -> the device copy of a read-only list kept
    snapshots: dict = field(default_factory=dict)   # name -> marshal.c's snapshot of that list's objects
    sighted: dict = field(default_factory=dict)     # name -> id() of the list it held at the entry before

    def allocate(self, cupy, info, value):
        """An array the kernel overwrites whole: allocated on the device, not copied (a list
        is not unboxed: only its shape is checked, so that boxing back cannot stop halfway)."""
        if type(value) is not list:
            device = cupy.empty(value.shape, dtype=value.dtype)
            return device, lambda: self.copy_back(device, value)
        with self.clock.book("unbox"):
            shape = list_shape(value, info.rank)
            checked = self.codec.mg_list_shape(value, info.rank, (ctypes.c_int64 * len(shape))(*shape))
        if checked:
            raise marshal_failure(checked)
        device = cupy.empty(shape, dtype=list_dtype(info))
        return device, self.box_back(cupy, device, info, value)

    def box_back(self, cupy, device, info, value):
        """The commit of a list the kernel wrote: its device copy boxed back into it."""
        def commit():
            with self.clock.book("transfer"):
                back = device.get(out=self.staging(cupy, device.shape, device.dtype))
            self.count_out(back.nbytes)
            with self.clock.book("writeback"):
                boxed = self.codec.mg_box_from(value, info.rank, list_kind(info.element), back)
            if boxed:
                raise MemoryError("boxing GPU results back into a list")
        return commit

    def to_device(self, cupy, info, value, written: bool, name: str | None = None):
        """``value`` (an array of ``info``: typeinfer's ArrayInfo) on the device; a list the
        kernel only reads, under its ``name``, kept there for the next entry."""
        numpy = numpy_module()
        if type(value) is list:
            shape = list_shape(value, info.rank)
            kept = name is not None and not written
            if kept and self.still_holds(name, value, info, shape):
                self.transfers.kept += 1
                self.transfers.bytes_kept += self.resident[name].nbytes
                return self.resident[name], None
            with self.clock.book("unbox"):
                host = self.staging(cupy, shape, list_dtype(info))
                unboxed = self.codec.mg_unbox_into(value, info.rank, list_kind(info.element), host, not written)
            if unboxed:
                raise marshal_failure(unboxed)
            with self.clock.book("transfer"):
                device = cupy.asarray(host)
            self.count_in(host.nbytes)
            if kept:
                self.resident[name] = device
            return device, self.box_back(cupy, device, info, value) if written else None
        if type(value) is numpy.ndarray:
            with self.clock.book("transfer"):
                device = cupy.asarray(value)
            self.count_in(value.nbytes)

            return device, (lambda: self.copy_back(device, value)) if written else None
        # A CuPy array: in place when the kernel cannot flag, else a copy committed after success.
        if not written or not self.may_flag:
            return value, None
        device = value.copy()
        return device, lambda: value.__setitem__(Ellipsis, device)

    def still_holds(self, name: str, value: list, info, shape: tuple) -> bool:
        """Is the device copy kept under ``name`` still ``value``'s?  Yes while the list holds
        the very element objects it was made from (ints and floats are immutable; the snapshot
        keeps them alive, so no other object can take their addresses): a comparison of item
        pointers in marshal.c instead of unboxing and copying the list.  Otherwise the copy is
        dropped, and the snapshot records the list's objects now if the entry before had this
        very list (by id: a mistake only costs a snapshot): a kernel given new lists at each
        entry (a benchmark's fresh inputs, a pipeline's stages) takes no reference to their
        elements, which would cost a write to each object and keep them alive past their use."""
        repeated = self.sighted.get(name) == id(value)
        self.sighted[name] = id(value)
        if not repeated and name not in self.resident and name not in self.snapshots:
            return False
        snapshot = self.snapshots.get(name)
        if snapshot is None:
            snapshot = self.snapshots[name] = (ctypes.c_char * self.codec.mg_snapshot_bytes())()
            weakref.finalize(self, self.codec.mg_release, snapshot, 1).atexit = False
        with self.clock.book("unbox"):
            held = self.codec.mg_still_holds(value, info.rank, list_kind(info.element),
                                             (ctypes.c_int64 * max(1, len(shape)))(*shape), snapshot, 1,
                                             int(repeated))
        if held and name in self.resident:
            return True
        self.resident.pop(name, None)
        return False

    def copy_back(self, device, value) -> None:
        """Device results into the user's NumPy array (straight into it when contiguous)."""
        numpy = numpy_module()
        self.count_out(value.nbytes)
        with self.clock.book("transfer"):
            if value.flags.c_contiguous and device.flags.c_contiguous:
                device.get(out=value)
            else:
                numpy.copyto(value, device.get())

    def staging(self, cupy, shape: tuple, dtype):
        """The host buffer a list is unboxed into for the device, or its results come back
        into: page-locked from the second time this kernel moves one of this shape (pinning
        80 MB takes longer than one pageable copy; then each copy is about 10x faster)."""
        key = (shape, dtype.str)
        if key not in self.staged:
            self.staged.add(key)
            return numpy_module().empty(shape, dtype=dtype)
        return pinned_empty(cupy, shape, dtype)

    def count_in(self, size: int) -> None:
        self.transfers.to_device += 1
        self.transfers.bytes_to_device += size

    def count_out(self, size: int) -> None:
        self.transfers.from_device += 1
        self.transfers.bytes_from_device += size


def pinned_empty(cupy, shape: tuple, dtype):
    """A host buffer of page-locked memory from CuPy's pinned pool (a freed block is kept for
    the next): copies from and to it run at the bus's speed (80 MB on the H100 machine: 1.6 ms
    each way, against 14 ms to the device and 24 ms back from pageable memory).  NumPy's
    memory where CuPy gives none."""
    numpy = numpy_module()
    count = math.prod(shape)
    try:
        memory = cupy.cuda.alloc_pinned_memory(max(1, count * dtype.itemsize))
    except (AttributeError, RuntimeError, MemoryError):   # an emulated CuPy (tests), no pinned memory
        return numpy.empty(shape, dtype=dtype)
    return numpy.frombuffer(memory, dtype, count).reshape(shape)


def list_dtype(info):
    """The NumPy dtype a list of ``info``'s element class is unboxed into."""
    numpy = numpy_module()
    return numpy.dtype(LIST_ELEMENT_DTYPE[info.element])


def written_objects(arrays: tuple, written: tuple) -> tuple[set, set]:
    """(ids of the arrays whose writes go back into them, ids of the arrays written at all,
    the function's own work lists too): what a GPU entry commits, and what it may keep on
    the device for the next entry (neither: read only)."""
    boxed = {id(value) for value, code in zip(arrays, written) if boxed_back(code)}
    return boxed, {id(value) for value, code in zip(arrays, written) if code}


def arrays_to_device(layout, typed, arrays: tuple, ints, place) -> tuple[list, list]:
    """Each array on the device (``place(name, value) -> (device array, commit or None)``),
    once per object however many names it has, and each name's strides (in elements) into
    the ints bank: the device copy of a strided view is contiguous, so the host's strides
    the prologue wrote are wrong there, under every name."""
    device_arrays, commits, copies = [], [], {}
    for name, value in zip(layout.arrays, arrays):
        if id(value) not in copies:
            device, commit = place(name, value)
            copies[id(value)] = device
            if commit is not None:
                commits.append(commit)
        device = copies[id(value)]
        device_arrays.append(device)
        for d, stride in enumerate(device.strides):
            ints[layout.dims[name] + typed.arrays[name].rank + d] = stride // device.itemsize
    return device_arrays, commits


def packed_inputs(device_arrays: list, layout, ints, floats) -> tuple:
    """The kernel's inputs as one int64 block, [array pointers | ints | floats (bits)], and
    where each part starts (a fourth offset: where a band appended after them starts)."""
    numpy = numpy_module()
    pointers = [array.data.ptr for array in device_arrays] + [0] * len(layout.shadows)
    ints_host, floats_host = numpy.ctypeslib.as_array(ints), numpy.ctypeslib.as_array(floats)
    packed = numpy.concatenate([numpy.array(pointers or [0], dtype=numpy.uint64).view(numpy.int64),
                                ints_host, floats_host.view(numpy.int64)])
    return packed, numpy.cumsum([0, max(1, len(pointers)), len(ints_host), len(floats_host)])


def numpy_error_categories() -> int:
    """The IEEE flags NumPy's error state acts on now (numpy.seterr, numpy.errstate), as
    analysis/floatstatus.py's bits: a kernel that raised one of them runs in CPython."""
    numpy = numpy_module()
    return watched_categories(numpy.geterr())


def ordered_fold(codec, start, operands, present, form: str, numpy_typed: bool) -> float | None:
    """``start`` folded with ``operands`` (where ``present``, a bool array, or all of them)
    in iteration order, with the sequential loop's rounding at each step (marshal.c's
    mg_fold); None where a NumPy-typed sum raised a flag NumPy's error state acts on
    (CPython then runs the loop, and NumPy warns or raises)."""
    numpy = numpy_module()
    operands = numpy.ascontiguousarray(operands, dtype=numpy.float64)
    mask = None if present is None else numpy.ascontiguousarray(present, dtype=numpy.bool_)
    raised = ctypes.c_int(0)
    total = codec.mg_fold(operands.ctypes.data, None if mask is None else mask.ctypes.data, len(operands),
                          float(start), FOLD_FORMS.index(form), ctypes.byref(raised))
    if numpy_typed and raised.value & numpy_error_categories():
        return None
    return total
