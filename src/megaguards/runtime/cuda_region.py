"""A time-step loop around GPU bands (analysis/mapping.GpuRegion): the arrays go to the
device once and come back once (Leung's multi-pass loops, MegaGuards §3.4.4).

Two ways to step it.  Where no value comes back to the host during the loop (only bands
and swaps of arrays), every step's launches are planned before the first and queued at
once, one wait at the end.  Where the body also assigns scalars between the bands, or a
band reduces into a scalar (srad: the image's mean and variance, then two stencils that
read them), the host steps statement by statement: it computes each assignment with
Python's own operators (ir/interp.py: CPython's values by construction), gives the bands
the values they read in their launch's row, and waits for a band whose reductions or kept
scalars it needs (a float sum is folded in order there, as on the CPU).  A statement
Python would raise at sends the whole entry back to the CPU, whose run raises it; the
user's data is untouched until the region has succeeded.
"""
from __future__ import annotations

import math
import struct

import numpy

from ..analysis.functions import FUNCTIONS
from ..analysis.mapping import HOST_FUNCTIONS
from ..ir.interp import evaluate
from ..record import record
from .. import record as records
from .cuda import STEPS_PER_WAIT, GpuSpecialization, cupy_module, last_assigned, loop_finals, wait_for_gpu
from .data import (StageClock, Transfers, arrays_to_device, box_live_outs, packed_inputs, pinned_empty,
                   written_objects)
from .executable import FLOAT_STATUS, Declined, Outcome, Raised, Ran
from .kernel import Specialization

INT64 = range(-(2**63), 2**63)
RING_ROWS = 256   # a stepped region's launch rows in flight at most: the host waits for the GPU when its ring
                  # of page-locked rows wraps (a row from pageable memory made each launch wait for the last)


@record(frozen=False)
class GpuRegionSpecialization:
    """A time-step loop whose body is GPU bands (and, stepped by the host, scalar statements)."""

    cpu: Specialization
    region: object                   # analysis.mapping.GpuRegion
    kernels: tuple                   # CudaKernel per band, in body order
    codec: object
    hoisted_loops: tuple
    transfers: Transfers = records.field(default_factory=Transfers)
    clock: StageClock = records.field(default_factory=StageClock)

    def __post_init__(self) -> None:
        # One GpuSpecialization per band: its kernel, its ranges and grid; the copies'
        # counts and times are shared, as the arrays travel once for the whole region.
        self.parts = [GpuSpecialization(self.cpu, kernel, self.codec, self.hoisted_loops, band.loops,
                                        transfers=self.transfers, clock=self.clock)
                      for kernel, band in zip(self.kernels, self.region.bands)]
        self.functions = [part.function for part in self.parts]
        # A region may give up after its first launches (a flag, a kept scalar no buffer holds, a
        # host statement Python raises at): a CuPy array it writes is never written in place.
        self.parts[0].copies.may_flag = bool(self.region.steps) or any(
            kernel.checks_in_loop or kernel.outputs for kernel in self.kernels)
        typed = self.cpu.typed
        self.host_functions = {path: FUNCTIONS[name].function for path, name in typed.functions.items()
                               if name in HOST_FUNCTIONS}

    @property
    def timings(self) -> dict:
        return self.clock.timings

    def run(self, binding) -> Outcome:
        return self.clock.entry(lambda: self.launch(binding))

    def launch(self, binding) -> Outcome:
        cupy = cupy_module()
        checked = self.parts[0].checked_inputs(binding)
        if type(checked) is Declined:
            return checked
        ints, floats = checked
        layout = self.cpu.layout
        bands = [part.band(ints) for part in self.parts]
        steps = bands[0][0][2]
        if steps == 0 or any(trips == 0 for band in bands for _, _, trips in band[1:]):
            return Declined("empty ranges")  # the CPU handles them and their last values
        kept, touched = written_objects(binding.arrays, self.cpu.written)
        device_arrays, commits = arrays_to_device(
            layout, self.cpu.typed, binding.arrays, ints,
            lambda name, value: self.parts[0].copies.to_device(cupy, self.cpu.typed.arrays[name], value,
                                                               id(value) in kept,
                                                               None if id(value) in touched else name))
        common, offsets = packed_inputs(device_arrays, layout, ints, floats)
        names = Holdings(layout, self.cpu.typed, device_arrays, ints, floats)
        run = self.stepped if self.region.steps else self.planned
        outcome = run(cupy, binding, bands, names, common, offsets)
        if type(outcome) is Ran:
            for commit in commits:
                commit()
        return outcome

    def planned(self, cupy, binding, bands: list, names, common, offsets) -> Outcome:
        """Every step's launches queued at once (no value comes back before the end)."""
        start, step, steps = bands[0][0]
        flag = cupy.zeros(1, dtype=cupy.int64)
        planned = self.plan_steps(bands, start, step, steps, binding)
        if planned is None:
            return Declined("a step's loop bounds could not be computed on the host")
        launches, per_steps, shapes, bands_by_step = planned
        last = [max((k for k, (total, _, _) in enumerate(band_shapes) if total), default=None)
                for band_shapes in shapes]
        kept = [self.kept_scalars(cupy, index, shapes[index], last[index]) for index in range(len(launches))]
        inputs = {}   # (band, which array each name holds) -> its inputs on the device
        queued = []   # an event per STEPS_PER_WAIT steps: at most two such batches wait on the device
        for k in range(steps):
            pace(cupy, queued, k)
            for index, (function, width) in enumerate(launches):
                names.swap(swap for before, swap in self.region.swaps if before == index)
                total, grid, block = shapes[index][k]
                if not total:   # this step's range is empty (a triangular nest's last rows)
                    continue
                packed = inputs.get((index, names.holds))
                if packed is None:
                    packed = inputs[index, names.holds] = cupy.asarray(
                        numpy.concatenate([names.common(common), per_steps[index]]))
                base = packed.data.ptr
                address = lambda index: numpy.uint64(base + 8 * int(index))  # noqa: E731
                marks, ivals, fvals = kept[index]["last" if k == last[index] else "scratch"]
                function(grid, block, (address(offsets[0]), address(offsets[1]), address(offsets[2]),
                                       address(offsets[3] + k * width), numpy.uint64(flag.data.ptr),
                                       marks, ivals, fvals, numpy.uint64(0), numpy.uint64(0), numpy.int64(total)))
            names.swap(swap for before, swap in self.region.swaps if before == len(launches))
        wait_for_gpu(cupy)
        code = int(flag.get().view(numpy.int32)[0])  # one synchronisation for the whole loop
        if code:
            return Raised(code)
        final, tags = {self.region.loop.var: start + (steps - 1) * step}, {}
        # The band that ran last (its last step, then body order) gives a name its final value.
        for index in sorted((i for i in range(len(launches)) if last[i] is not None), key=lambda i: (last[i], i)):
            kernel = self.kernels[index]
            loop_finals(kernel.band, bands_by_step[index][last[index]], final, first=1)
            if kernel.outputs and not self.kept_values(index, kept[index], shapes[index][last[index]][0], final, tags):
                return Declined("a scalar the loop keeps was not assigned in the last step that could")
        return Ran(self.outputs(binding, names, final, tags))

    def stepped(self, cupy, binding, bands: list, names, common, offsets) -> Outcome:
        """The host runs the body's statements in order at every step (module docstring)."""
        typed, region = self.cpu.typed, self.region
        scalars = dict(zip(self.cpu.scalar_paths, binding.scalars))
        arrays = dict(zip(self.cpu.layout.arrays, binding.arrays))
        start, step, steps = bands[0][0]
        launch = Launcher(cupy, common, offsets, max(3 * len(band.loops) + len(band.given) for band in region.bands))
        final, tags, queued = {}, {}, []
        for k in range(steps):
            pace(cupy, queued, k)
            value = scalars[region.loop.var] = start + k * step
            for kind, item in region.steps:
                if kind == "swap":   # len() on the host reads the array a name holds now (the fast
                    # path's hoisted checks keep swapped arrays of one shape: a guard if that is relaxed)
                    names.swap((item,))
                    arrays = {name: binding.arrays[names.holding(name)] for name in self.cpu.layout.arrays}
                elif kind == "host":
                    computed = host_value(item, scalars, arrays, self.host_functions, typed.variables[item.target])
                    if computed is None:
                        return Declined(f"line {item.line}: its statement between the kernels gives no int64 or "
                                        "raises (the CPU's run says what Python does)")
                    scalars[item.target] = computed
                else:
                    entries = [bands[item]] if not region.varying[item] else \
                        self.step_bands(item, bands[item], [value], scalars, arrays)
                    if entries is None:
                        return Declined("a step's loop bounds could not be computed on the host")
                    stopped = launch.band(self.parts[item], region.bands[item], [(value, 0, 1)] + entries[0][1:],
                                          names, scalars, typed.variables, final, tags)
                    if stopped is not None:
                        return stopped
        code = launch.flag_raised()
        if code:
            return Raised(code)
        final[region.loop.var] = start + (steps - 1) * step
        kept = {name: scalars[name] for name in region.host_assigned if name in scalars}   # of their own class
        return Ran(self.outputs(binding, names, final, tags, kept))

    def outputs(self, binding, names, final: dict, tags: dict, kept: dict | None = None) -> tuple:
        """The live-outs: the scalars' final values (``kept``: the host's, already of their
        class), each swapped array name's final array."""
        kept = kept or {}
        boxed = [name for name in self.cpu.live_outs if name not in kept]
        outputs = dict(zip(boxed, box_live_outs(tuple(boxed), final, tags, self.cpu.typed, self.cpu.layout.box_tags)))
        return tuple(binding.arrays[names.holding(name)] if name in self.cpu.layout.rebound
                     else kept[name] if name in kept else outputs[name] for name in self.cpu.live_outs)

    def kept_scalars(self, cupy, index: int, band_shapes: list, last: int | None) -> dict:
        """Band ``index``'s buffers for the scalars the loop keeps (a function's locals its
        threads assign: their values per iteration and the last iteration that assigned
        each): its last launch writes "last"; its other launches write "scratch", never read."""
        outputs = len(self.kernels[index].outputs)
        if not outputs or last is None:
            return {"last": (numpy.uint64(0),) * 3, "scratch": (numpy.uint64(0),) * 3}
        largest = max(total for total, _, _ in band_shapes)
        scratch = (cupy.empty(outputs, dtype=cupy.int64), cupy.empty(outputs * largest, dtype=cupy.int64),
                   cupy.empty(outputs * largest, dtype=cupy.float64))
        size = outputs * band_shapes[last][0]
        final = (cupy.asarray(numpy.full(outputs, -1, dtype=numpy.int64)), cupy.empty(size, dtype=cupy.int64),
                 cupy.empty(size, dtype=cupy.float64))
        return {"last": final, "scratch": scratch}

    def kept_values(self, index: int, kept: dict, total: int, final: dict, tags: dict) -> bool:
        """The kept scalars' values from band ``index``'s last launch into ``final``; False
        where one of them was not assigned there (a conditional assignment: an earlier launch
        may hold its value, which no buffer kept)."""
        marks, ivals, fvals = kept["last"]
        return not last_assigned(self.kernels[index].outputs, marks.get(), ivals, fvals, total, final, tags)

    def plan_steps(self, bands: list, start: int, step: int, steps: int, binding) -> tuple | None:
        """Per band: (its function, the width of a step's row), the steps' rows of band
        entries (the region's variable's value, then each band loop's start, step and trips),
        each step's (total threads, grid, block) and band entries; None where a step's
        bounds cannot be computed."""
        launches, per_steps, shapes, bands_by_step = [], [], [], []
        scalars = dict(zip(self.cpu.scalar_paths, binding.scalars))
        arrays = dict(zip(self.cpu.layout.arrays, binding.arrays))
        for index, (function, part, band) in enumerate(zip(self.functions, self.parts, bands)):
            step_bands = [band] * steps if not self.region.varying[index] else \
                self.step_bands(index, band, [start + k * step for k in range(steps)], scalars, arrays)
            if step_bands is None:
                return None
            per_step = numpy.array([[start + k * step, 0, 1] + [v for entry in b[1:] for v in entry]
                                    for k, b in enumerate(step_bands)], dtype=numpy.int64)
            per_steps.append(per_step.ravel())
            bands_by_step.append(step_bands)
            shapes.append([(math.prod(trips for _, _, trips in b[1:]),) + part.grid(b) for b in step_bands])
            launches.append((function, per_step.shape[1]))
        return launches, per_steps, shapes, bands_by_step

    def step_bands(self, index: int, band: list, values: list, scalars: dict, arrays: dict) -> list | None:
        """Band ``index``'s (start, step, trips) entries at each value of the region's loop
        variable, its first loop's bounds computed on the host (a triangular nest: each
        step's own range, within the whole range the hoisted checks proved), and the threads'
        own loops (``range(i)``) follow the step too; None if they cannot be computed (the
        CPU then runs the loop)."""
        loop = self.region.bands[index].loops[self.region.bands[index].fixed]
        scalars = dict(scalars)
        result = []
        try:
            for value in values:
                scalars[self.region.loop.var] = value
                steps = range(evaluate(loop.start, scalars, arrays), evaluate(loop.stop, scalars, arrays),
                              loop.step.value)
                result.append([band[0], (steps.start if steps else 0, steps.step, len(steps))] + list(band[2:]))
        except Exception:   # what Python would raise there, the CPU's run raises
            return None
        return result


def pace(cupy, queued: list, step: int) -> None:
    """Every STEPS_PER_WAIT steps, wait for the batch before the last: the host never gets
    more than two batches ahead of the device (and Ctrl-C stays live: wait_for_gpu)."""
    if step and step % STEPS_PER_WAIT == 0:
        queued.append(cupy.cuda.Event(disable_timing=True))
        queued[-1].record()
        if len(queued) > 1:
            wait_for_gpu(cupy, queued.pop(0))


def host_value(statement, scalars: dict, arrays: dict, functions: dict, scalar):
    """A region's host statement's value, as Python computes it; None where Python raises
    (or NumPy would warn), or gives a value the kernels cannot take (another class than the
    statement's type, an int past int64)."""
    try:
        with numpy.errstate(all="raise"):   # a NumPy scalar's warning: the CPU's run says it
            value = evaluate(statement.value, scalars, arrays, functions)
    except Exception:   # noqa: BLE001 - the CPU's run of the loop raises it where Python does
        return None
    expected = (statement.value.type or scalar).pyclass
    if type(value) is not expected or (type(value) is int and value not in INT64):
        return None
    return value


class Launcher:
    """The launches of a stepped region: the inputs block of each arrangement of the arrays
    on the device once, a row per launch (the band's entries, then its given scalars)."""

    def __init__(self, cupy, common, offsets, width: int) -> None:
        self.cupy, self.common, self.offsets = cupy, common, offsets
        self.flag_on_device = cupy.zeros(1, dtype=cupy.int64)   # the first flag of a launch without a wait
        self.flag = numpy.uint64(self.flag_on_device.data.ptr)
        self.blocks = {}    # which array each name holds -> the inputs block on the device
        # The launches' rows (``width``: the widest band's) through a ring of page-locked rows.
        self.ring = (pinned_empty(cupy, (RING_ROWS, width), numpy.dtype(numpy.int64)),
                     cupy.empty((RING_ROWS, width), dtype=cupy.int64))
        self.launched = 0

    def row(self, values: list) -> numpy.uint64:
        """The device address of a launch's row holding ``values``, copied without a wait."""
        slot = self.launched % RING_ROWS
        if slot == 0 and self.launched:
            wait_for_gpu(self.cupy)   # every launch that read the ring's rows has run
        host, device = self.ring
        host[slot, :len(values)] = values
        device[slot].set(host[slot], stream=self.cupy.cuda.get_current_stream())
        self.launched += 1
        return numpy.uint64(device[slot].data.ptr)

    def band(self, part: GpuSpecialization, band, entries: list, names, scalars: dict, variables: dict,
             final: dict, tags: dict) -> Outcome | None:
        """Launch ``part`` for one step (``entries``: the step's value, then the band loops');
        the values it assigns go to ``scalars`` (reductions) and ``final``; an Outcome where
        the region stops."""
        total = math.prod(trips for _, _, trips in entries[1:])
        if not total:   # this step's range is empty (a triangular nest's last rows)
            return None
        given = []
        for name in band.given:
            value = scalars.get(name)
            if value is None:   # unbound: Python raises, in the CPU's run
                return Declined(f"{name!r} has no value when a kernel reads it")
            given.append(struct.unpack("<q", struct.pack("<d", float(value)))[0] if variables[name].is_float
                         else int(value))
        row = self.row([v for entry in entries for v in entry] + given)
        block = self.blocks.get(names.holds)
        if block is None:
            block = self.blocks[names.holds] = self.cupy.asarray(names.common(self.common))
        base = block.data.ptr
        inputs = tuple(numpy.uint64(base + 8 * int(offset)) for offset in self.offsets[:3]) + (row,)
        kernel = part.kernel
        if not (kernel.reductions or kernel.folds or kernel.outputs):   # nothing to wait for
            grid, block_shape = part.grid(entries)
            part.function(grid, block_shape, (*inputs, self.flag, numpy.uint64(0), numpy.uint64(0), numpy.uint64(0),
                                              numpy.uint64(0), numpy.uint64(0), numpy.int64(total)))
            loop_finals(kernel.band, entries, final, first=1)
            return None
        code, found = part.execute(self.cupy, inputs, entries, total, scalars)
        if code:
            return Raised(code)
        if found is None:
            return Raised(FLOAT_STATUS)   # NumPy would act on a flag the host's fold raised
        values, found_tags = found
        reduced = {name for name, _, _, _ in kernel.reductions} | {name for name, _, _ in kernel.folds}
        for name, value in values.items():
            if name in reduced:   # of the class the loop's additions give it (a NumPy sum: numpy.float64)
                scalars[name] = variables[name].pyclass(value)
            else:
                final[name] = value
        tags.update(found_tags)
        return None

    def flag_raised(self) -> int:
        """After the last launch: the flag a launch without a wait raised (0: none)."""
        wait_for_gpu(self.cupy)
        return int(self.flag_on_device.get().view(numpy.int32)[0])


class Holdings:
    """Which array each name of a region holds as its steps swap them (``a, b = b, a``,
    analysis/mapping.GpuRegion.swaps): the kernels read a name's pointer, dims and strides
    from the inputs block, so each arrangement has its own block (a double buffer: two)."""

    def __init__(self, layout, typed, device_arrays: list, ints, floats) -> None:
        self.layout, self.typed = layout, typed
        self.device_arrays, self.ints, self.floats = device_arrays, ints, floats
        self.position = {name: k for k, name in enumerate(layout.arrays)}
        self.holds = tuple(range(len(layout.arrays)))   # name k holds array holds[k] (layout order)

    def swap(self, swaps) -> None:
        for node in swaps:
            holds = list(self.holds)
            for target, source in zip(node.targets, node.sources):
                holds[self.position[target]] = self.holds[self.position[source]]
            self.holds = tuple(holds)

    def holding(self, name: str) -> int:
        return self.holds[self.position[name]]

    def common(self, identity_block):
        """The inputs block [pointers | ints | floats] for the current arrangement."""
        if self.holds == tuple(range(len(self.holds))):
            return identity_block
        layout, ints = self.layout, self.ints
        moved = (type(ints))(*ints)
        for k, name in enumerate(layout.arrays):
            source, width = layout.arrays[self.holds[k]], 2 * self.typed.arrays[name].rank
            moved[layout.dims[name]:layout.dims[name] + width] = ints[layout.dims[source]:layout.dims[source] + width]
        arrays = [self.device_arrays[self.holds[k]] for k in range(len(self.holds))]
        return packed_inputs(arrays, layout, moved, self.floats)[0]
