"""A compiled specialization of one loop site, and running it on one entry.

``Specialization.run`` checks the entry against the specialization's assumptions
(guards/assumptions.py's ``check_entry``), hands the bound live-ins to the C
marshalling helper, which unboxes them, calls the kernel and boxes list results back;
NumPy arrays the loop writes are copied first and committed only when no flag was
raised (runtime/data.py owns the copies and the boxing of live-outs).  It returns the
live-out values (``UNSET`` for names the loop did not assign).
"""
from __future__ import annotations

import ctypes
import time
import weakref

from ..record import record
from .. import record as records
from ..analysis.features import sizing_positions
from ..analysis.typeinfer import TypedLoop
from ..codegen.layout import Layout, marshalling_plan
from ..guards import assumptions as guard
from ..guards.signature import Binding
from .data import box_outputs, commit_shadows, list_shape, numpy_error_categories, output_plan, shadow_copies
from .executable import Raised, Ran


@record
class Explanation:
    """What ``megaguards explain`` shows for one specialization."""

    signature: str
    parallel: list
    source: str


@record(frozen=False)
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
    enter: object               # marshal.c's mg_enter (mg_enter_function: a built-in)
    explanation: Explanation
    seconds: object = records.field(default_factory=lambda: (ctypes.c_double * 7)())   # marshal.c's mg_enter's
    object_name: str = ""            # the compiled object's (a hash of source, compiler, flags): names its decisions
    enter_prologue: ctypes._CFuncPtr = None   # marshal.c's mg_prologue (None: the banks filled from Python)
    groups: dict = None              # array name -> its alias group (pipeline.Signature.groups)
    snapshots_of: object = None      # the marshal helper (its mg_snapshot_bytes, mg_release); None: no snapshots
    float_status: bool = False       # the kernel notes NumPy float operations' IEEE flags (analysis/floatstatus.py)
    parallel_notes: tuple = ()       # the parallel plan's notes (ParallelPlan.notes): reported where it ran so

    def __post_init__(self) -> None:
        layout, typed = self.layout, self.typed
        plan = marshalling_plan(layout, typed, self.written, self.is_list, self.scalar_paths)
        self.plan = (ctypes.c_int64 * len(plan))(*plan)
        self.plan_address = ctypes.addressof(self.plan)
        self.kernel_address = ctypes.cast(self.kernel, ctypes.c_void_p).value
        self.ints_type = ctypes.c_int64 * max(1, layout.int_slots)
        self.floats_type = ctypes.c_double * max(1, layout.float_slots)
        self.no_shadow_objects = (None,) * len(layout.shadows)
        # What this specialization assumes beyond its key, checked at each entry (guards/).
        self.assumed = guard.entry_assumptions(((name, typed.arrays[name]) for name in layout.arrays),
                                               self.written, self.is_list, self.groups, self.preconditions)
        self.ranks = list(self.assumed.ranks)
        self.numpy_written = self.assumed.numpy_written
        self.numpy_positions = tuple(k for k, listed in enumerate(self.is_list) if not listed)
        self.entry_checks = self.assumed.checked_at_entry
        self.outputs = output_plan(layout, typed, self.live_outs)
        self.precondition_slot, self.in_place_slot = layout.precondition_slot, layout.in_place_slot
        self.snapshots = self.new_snapshots()
        self.sizing = sizing_positions(typed.body, self.scalar_paths)   # the scalars of a size key (select.py)

    def twin(self, kernel: ctypes._CFuncPtr, **changes) -> Specialization:
        """This specialization with another kernel of the same loop and layout (auto's
        all-cores one): the marshalling plan and banks are shared, not built again."""
        twin = object.__new__(Specialization)
        twin.__dict__.update(self.__dict__, **changes, kernel=kernel,
                             kernel_address=ctypes.cast(kernel, ctypes.c_void_p).value)
        if "preconditions" in changes:   # its own hoisted checks
            twin.assumed = records.replace(self.assumed, preconditions=tuple(changes["preconditions"]))
        twin.snapshots = twin.new_snapshots()   # each kernel releases its own
        return twin

    def new_snapshots(self):
        """marshal.c's snapshots of the read-only lists, one per array (unboxings reused while a
        list holds the same objects), released with this kernel; None without lists."""
        if self.snapshots_of is None or not any(self.is_list):
            return None
        count = len(self.layout.arrays) + len(self.layout.shadows)
        snapshots = (ctypes.c_char * (count * self.snapshots_of.mg_snapshot_bytes()))()
        # Not at exit: the process's end frees it all at once.
        weakref.finalize(self, self.snapshots_of.mg_release, snapshots, count).atexit = False
        return snapshots

    @property
    def timings(self) -> dict:
        return {"unbox": self.seconds[0], "execute": self.seconds[1], "writeback": self.seconds[2]}

    @property
    def elements(self) -> tuple[float, float, float, float]:
        """(list elements unboxed, elements those lists held, elements a snapshot spared
        unboxing, elements boxed back) over this kernel's entries."""
        return self.seconds[3], self.seconds[4], self.seconds[5], self.seconds[6]

    last_device = None   # the executable protocol's: one kernel, one device
    gpu_runs = 0
    team_runs = 0        # entries a parallel loop of the kernel ran with more than one thread

    def run(self, binding: Binding) -> Ran | Raised:
        """The live-outs, or the flag the kernel raised (executable.py)."""
        arrays = binding.arrays
        if self.entry_checks or binding.on_device:
            guard.check_entry(self.assumed, binding)
        # No NumPy array written: every shadow is None.
        if self.numpy_written:
            shadows = shadow_copies(arrays, self.numpy_positions, self.numpy_written)
            kernel_arrays = arrays + tuple(shadow for _, shadow in shadows) + binding.appended
        else:
            shadows, kernel_arrays = (), arrays + self.no_shadow_objects + binding.appended
        ints, floats = self.ints_type(), self.floats_type()
        ints[self.precondition_slot] = -1
        if self.float_status:
            ints[self.layout.float_status_slot] = numpy_error_categories()
        flag = self.enter(kernel_arrays, binding.scalars, self.plan_address, self.kernel_address, ints, floats,
                          self.seconds, self.snapshots)
        failed = ints[self.precondition_slot]
        failed_check = self.preconditions[failed] if failed >= 0 else None
        if flag:
            if flag < 0:   # marshal.c's answer: an assumption it checks does not hold
                raise guard.marshal_failure(flag)
            return Raised(flag, failed_check)
        if self.parallel_depth and ints[self.layout.team_slot] > 1:
            self.team_runs += 1
        started = time.perf_counter()
        if shadows and not ints[self.in_place_slot]:
            commit_shadows(shadows)
        outputs = box_outputs(self.outputs, ints, floats, arrays)
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
            flag = self.enter_prologue(binding.arrays + self.no_shadow_objects + binding.appended, binding.scalars,
                                       self.plan_address,
                                       self.kernel_address, ints, floats)
            if flag < 0:
                raise guard.Assumption.PROLOGUE_READABLE.failure()
            return ints, floats
        for name, value in zip(layout.arrays, binding.arrays):
            shape = list_shape(value, self.typed.arrays[name].rank) if type(value) is list else value.shape
            for d, size in enumerate(shape):
                ints[layout.dims[name] + d] = size
        for path, value in zip(self.scalar_paths, binding.scalars):
            bank, slot = layout.scalars[path]
            (floats if bank == "floats" else ints)[slot] = float(value) if bank == "floats" else int(value)
        # (the growing buffers' places too: the kernel reads each pointer before its mode-1 return)
        pointers = (ctypes.c_void_p * max(1, len(layout.arrays) + len(layout.shadows) + len(layout.growing)))()
        self.kernel(pointers, ints, floats)
        return ints, floats
