"""Running a site's loop band on an NVIDIA GPU through CuPy (the ``[cuda]`` extra).

Per entry: the CPU kernel runs its hoisted checks only (mode 1) and reports the
loop ranges; the entry is checked as on the CPU (guards/assumptions.py's
``check_entry``); lists are unboxed into host buffers and copied to the device, NumPy
arrays copied, CuPy arrays used in place (copied only when the kernel could raise
a flag after writing them: runtime/data.py's ``DeviceCopies``); the kernel runs one
thread per band iteration; the flag is read back; only then are written arrays copied
back and committed.
"""
from __future__ import annotations

import functools
import math
import struct
import time
from pathlib import Path

import numpy

from ..record import record
from .. import record as records
from ..analysis.floatstatus import CATEGORIES
from ..analysis.mapping import full_overwrites
from ..codegen.targets.cuda import NVRTC_OPTIONS, CudaKernel
from ..errors import CompilerError
from ..guards import assumptions as guard
from ..ir.interp import evaluate
from .data import (DeviceCopies, StageClock, Transfers, arrays_to_device, box_live_outs, list_shape,
                   numpy_error_categories, ordered_fold, packed_inputs, pinned_empty)
from .executable import FLOAT_STATUS, Declined, Outcome, Raised, Ran
from .cachefile import sha256
from .kernel import Specialization
from .status import status

# A GPU has no IEEE flags: its kernels compute overflow and invalid results of NumPy float
# operations themselves (prelude's mg_np_*), not underflow, which NumPy ignores by default.
UNDERFLOW = CATEGORIES["under"]
NO_UNDERFLOW = "NumPy's error state acts on float underflow, which only the CPU notes"


def watched_on_gpu(cpu: Specialization) -> int | None:
    """The categories NumPy's error state acts on for this loop's NumPy float operations
    (0: none, or no such operation); None where the GPU cannot note them (underflow)."""
    watched = numpy_error_categories() if cpu.float_status else 0
    return None if watched & UNDERFLOW else watched


SPIN_SECONDS = 1e-3        # a wait polls the GPU this long without sleeping (short kernels)
LONGEST_NAP = 2e-3         # then naps doubling from 50 us up to this (Ctrl-C's latency)
STEPS_PER_WAIT = 32        # a region's steps launched between two waits for the one before


def wait_for_gpu(cupy, event=None) -> None:
    """Wait for the GPU's work queued so far (up to ``event``, if given) with Ctrl-C live.

    A synchronising call (``get``, ``synchronize``) waits inside the CUDA driver, where
    Python's SIGINT handler cannot run: a long kernel or region held Ctrl-C until it ended
    (issue 26).  Here Python polls an event, so KeyboardInterrupt is raised at once; the
    work already queued still ends on the device, on device copies: the user's data is
    untouched (written arrays are copied back only after the flag is read)."""
    if event is None:
        event = cupy.cuda.Event(disable_timing=True)
        event.record()
    started, nap = time.perf_counter(), 50e-6
    while not event.done:
        if time.perf_counter() - started > SPIN_SECONDS:
            time.sleep(nap)
            nap = min(2 * nap, LONGEST_NAP)


@functools.lru_cache(maxsize=None)
def cupy_module():
    """CuPy, if it is installed and sees a GPU; else None."""
    from . import warmup

    with status("starting CUDA, once per process"):   # on a terminal, past a second (status.py)
        warmup.wait()   # a warm-up thread importing CuPy finishes first
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                return cupy
        except Exception:  # no CuPy, no driver, no device: the CPU it is
            return None
    return None


def devices() -> list[str]:
    cupy = cupy_module()
    if cupy is None:
        return []
    names = []
    for index in range(cupy.cuda.runtime.getDeviceCount()):
        properties = cupy.cuda.runtime.getDeviceProperties(index)
        names.append(f"{properties['name'].decode()} (sm_{properties['major']}{properties['minor']}, "
                     f"{properties['totalGlobalMem'] / 2**30:.0f} GiB)")
    return names


def check_with_nvrtc(source: str, cache_dir: Path, arch: str = "sm_90") -> bool:
    """Compile CUDA source with NVRTC (no GPU needed); False if NVRTC is not installed.
    Raises CompilerError with NVRTC's log when the source does not compile."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        return False
    options = tuple(o.encode() for o in (f"--gpu-architecture={arch}", *NVRTC_OPTIONS))
    key = sha256(source.encode() + b"\0".join(options)).hexdigest()[:32]
    marker = Path(cache_dir) / "cuda" / f"{key}.ok"
    if marker.exists():
        return True
    _, program = nvrtc.nvrtcCreateProgram(source.encode(), b"mg_kernel.cu", 0, [], [])
    try:
        (result,) = nvrtc.nvrtcCompileProgram(program, len(options), list(options))
        if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetProgramLogSize(program)
            text = b" " * size
            nvrtc.nvrtcGetProgramLog(program, text)
            raise CompilerError(f"NVRTC failed:\n{text.decode(errors='replace')[-4000:]}")
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    return True


@functools.lru_cache(maxsize=None)
def _module_function(source: str):
    cupy = cupy_module()
    with status("compiling a loop for the GPU"):   # NVRTC, or CuPy's cache of its output
        return cupy.RawModule(code=source, options=NVRTC_OPTIONS).get_function("mg_kernel")


def compile_kernel(kernel: CudaKernel):
    """The kernel's function on the current GPU (NVRTC through CuPy, which caches on disk)."""
    return _module_function(kernel.source)


@record(frozen=False)
class GpuSpecialization:
    """The GPU variant of a compiled loop; ``cpu`` is the same loop on the CPU."""

    cpu: Specialization
    kernel: CudaKernel
    codec: object                    # marshal helper library (unbox_into / box_from)
    hoisted_loops: tuple             # analysis.bounds.LoopRange of the CPU kernel's prologue
    band_loops: tuple                # the ir.For loops of the band, outermost first
    transfers: Transfers = records.field(default_factory=Transfers)
    clock: StageClock = records.field(default_factory=StageClock)

    def __post_init__(self) -> None:
        self.function = compile_kernel(self.kernel)
        self.band_positions = {name: k for k, name in enumerate(self.kernel.band)}
        self.overwritten = full_overwrites(self.cpu.typed, self.band_loops)
        self.copies = DeviceCopies(self.codec, self.clock, self.transfers, may_flag=self.kernel.checks_in_loop != 0)
        self.operands = numpy.empty(0)   # page-locked host memory for the operands of ordered folds

    def operands_of(self, device_part):
        """The operands of an ordered fold on the host, through reused page-locked memory
        (a pageable copy of 10^7 doubles took twice as long)."""
        size = device_part.size
        if self.operands.size < size:   # the CuPy in use (tests emulate it)
            self.operands = pinned_empty(cupy_module(), (size,), numpy.dtype(numpy.float64))
        return device_part.get(out=self.operands[:size])

    def prologue(self, binding):
        """The hoisted checks (CPU kernel, mode 1): (fast, loop ranges) for these live-ins."""
        ints, floats = self.cpu.prologue(binding)
        return bool(ints[self.cpu.layout.intervals_slot]), ints, floats

    @property
    def timings(self) -> dict:
        return self.clock.timings

    def run(self, binding) -> Outcome:
        """The live-outs, the flag the kernel raised, or declined: the CPU runs it (executable.py)."""
        return self.clock.entry(lambda: self.launch(binding))

    def launch(self, binding) -> Outcome:
        cupy = cupy_module()
        watched = watched_on_gpu(self.cpu)
        if watched is None:
            return Declined(NO_UNDERFLOW)
        fast, ints, floats = self.prologue(binding)
        if not fast:
            return Declined("a hoisted check failed")
        layout, typed = self.cpu.layout, self.cpu.typed
        ints[layout.mode_slot] = 0
        ints[layout.float_status_slot] = watched
        guard.check_entry(self.cpu.assumed, binding, gpu=True)   # as on the CPU
        written_objects = {id(v) for v, w in zip(binding.arrays, self.cpu.written) if w}
        band = self.band(ints)

        def place(name, value):
            if self.fully_overwritten(name, value, band, binding.arrays):
                return self.copies.allocate(cupy, typed.arrays[name], value)
            return self.copies.to_device(cupy, typed.arrays[name], value, id(value) in written_objects)

        device_arrays, commits = arrays_to_device(layout, typed, binding.arrays, ints, place)
        total = 1
        for _, _, trips in band:
            total *= trips
        if total == 0:
            return Declined("empty ranges")  # the CPU handles them and their last values
        outputs, reductions = self.kernel.outputs, self.kernel.reductions
        # Small inputs travel in one copy and small outputs in one copy back:
        # [array pointers | ints | floats (bits) | band]  and  [flag | marks | int partials | float partials].
        common, offsets = packed_inputs(device_arrays, layout, ints, floats)
        packed = numpy.concatenate([common, numpy.array([value for entry in band for value in entry],
                                                        dtype=numpy.int64)])
        n_out, n_red = len(outputs), len(reductions)
        results = numpy.concatenate([
            numpy.zeros(1, dtype=numpy.int64), numpy.full(n_out, -1, dtype=numpy.int64),
            numpy.array([self.identity(kind) for _, kind, _, _ in reductions], dtype=numpy.int64),
            numpy.array([-0.0 if is_float else 0.0 for _, _, is_float, _ in reductions]).view(numpy.int64)])
        for index, (_, kind, is_float, _) in enumerate(reductions):
            if is_float and kind != "+":   # a float max/min's earliest zero: none yet (all ones)
                results[1 + n_out + n_red + index] = -1
        device_in, device_out = cupy.asarray(packed), cupy.asarray(results)
        base_in, base_out = device_in.data.ptr, device_out.data.ptr
        # Live-out values per iteration, then the operands of the float sums folded in order
        # (with a 1 in the int slots where the iteration had one).
        slots = (n_out + len(self.kernel.folds)) * total
        marked = any(not always for _, _, always in self.kernel.folds)
        values = ((cupy.zeros if marked else cupy.empty)(slots, dtype=cupy.int64),
                  cupy.empty(slots, dtype=cupy.float64)) if slots else (None, None)
        address = lambda base, index: numpy.uint64(base + 8 * int(index))  # noqa: E731
        grid, block = self.grid(band)
        self.function(grid, block, (
            address(base_in, offsets[0]), address(base_in, offsets[1]), address(base_in, offsets[2]),
            address(base_in, offsets[3]), address(base_out, 0), address(base_out, 1),
            values[0] if slots else numpy.uint64(0), values[1] if slots else numpy.uint64(0),
            address(base_out, 1 + n_out), address(base_out, 1 + n_out + n_red), numpy.int64(total)))
        wait_for_gpu(cupy)
        back = device_out.get()
        flag = back[:1].view(numpy.int32)
        marks = back[1:1 + n_out]
        ired = back[1 + n_out:1 + n_out + n_red]
        fred = back[1 + n_out + n_red:].view(numpy.float64)
        code = int(flag[0])
        if code:
            return Raised(code)
        result = self.live_outs(binding, band, marks, values[0], values[1], ired, fred, total)
        if result is None:
            return Raised(FLOAT_STATUS)   # NumPy would act on a flag the host's fold raised
        for commit in commits:  # only now: nothing above may still send the loop to CPython
            commit()
        return Ran(result)

    def fully_overwritten(self, name: str, value, band, arrays) -> bool:
        """An array or list the loop only writes, every element once (§3.4.4): nothing to
        copy to the device.  Its dimensions must be exactly the band's ranges."""
        positions = self.overwritten.get(name)
        if positions is None or type(value) not in (numpy.ndarray, list) or sum(a is value for a in arrays) > 1:
            return False
        shape = list_shape(value, len(positions)) if type(value) is list else value.shape
        return all(band[p] == (0, 1, size) for p, size in zip(positions, shape))

    def band(self, ints) -> list[tuple[int, int, int]]:
        """(start, step, trips) of each band loop, from the ranges the prologue computed."""
        slot = self.cpu.layout.intervals_slot + 2
        number = {loop.loop: k for k, loop in enumerate(self.hoisted_loops)}
        result = []
        for loop in self.band_loops:
            k = number[loop.nid]
            low, high = ints[slot + 2 * k], ints[slot + 2 * k + 1]
            step = loop.step.value
            trips = 0 if low > high else (high - low) // abs(step) + 1
            result.append((low if step > 0 else high, step, trips))
        return result

    def grid(self, band):
        block = self.kernel.block
        order = self.kernel.grid_order
        grid = [1, 1, 1]
        for axis, position in enumerate(order):
            grid[axis] = (band[position][2] + block[axis] - 1) // block[axis]
        return tuple(grid), block

    @staticmethod
    def identity(kind: str) -> int:
        return {"+": 0, "max": -(2**63), "min": 2**63 - 1}[kind]

    def live_outs(self, binding, band, marks, ivals, fvals, ired, fred, total) -> tuple:
        typed = self.cpu.typed
        values = dict(zip(self.cpu.scalar_paths, binding.scalars))
        final: dict[str, object] = {}
        for position, (start, step, trips) in enumerate(band):
            final[self.kernel.band[position]] = start + (trips - 1) * step
        tags: dict[str, int] = {}
        last_assigned(self.kernel.outputs, marks, ivals, fvals, total, final, tags)
        integer_sums, float_sums = ired, fred
        for index, (name, kind, is_float, conditional) in enumerate(self.kernel.reductions):
            start = values.get(name)
            if is_float and kind != "+":
                extreme = float_extreme(int(integer_sums[index]), int(float_sums[index:index + 1].view(numpy.int64)[0]),
                                        kind)
                if extreme is None:
                    continue   # no iteration assigned it
                beats = extreme > start if kind == "max" else extreme < start
                if conditional and not beats:
                    continue   # "if e > s: s = e" never assigned s: it keeps its object
                final[name] = extreme if beats else start   # max(s, e) keeps s on ties and NaN, as Python's
            elif is_float:
                final[name] = float(start) + float(float_sums[index])
            elif kind == "+":
                if abs(float(float_sums[index])) >= 2.0**62:
                    raise guard.Assumption.GPU_SUM_INT64.failure()
                final[name] = int(start) + int(integer_sums[index])
            else:  # the identity leaves the start value: max(s, INT64_MIN) is s
                partial = int(integer_sums[index])
                beats = partial > start if kind == "max" else partial < start
                if conditional and not beats:
                    continue  # "if e > s: s = e" never assigned s: it keeps its object
                final[name] = (max if kind == "max" else min)(int(start), partial)
        for index, (name, form, always) in enumerate(self.kernel.folds, start=len(self.kernel.outputs)):
            part = slice(index * total, (index + 1) * total)
            present = None if always else ivals[part].get() != 0
            if present is None or present.any():   # else no step: the scalar keeps its object
                folded = ordered_fold(self.codec, values.get(name), self.operands_of(fvals[part]), present, form,
                                      typed.variables[name].is_numpy)
                if folded is None:
                    return None
                final[name] = folded
        return box_live_outs(self.cpu.live_outs, final, tags, typed, self.cpu.layout.box_tags)


def float_extreme(key: int, earliest_zero: int, kind: str) -> float | None:
    """The double a float max/min kernel found (codegen/targets/cuda.py's ``mg_order_key``),
    or None where no thread set one; a zero takes the sign of the earliest zero, as folding
    in order does (``max(0.0, -0.0)`` is ``0.0``)."""
    if key == (-(2**63) if kind == "max" else 2**63 - 1):
        return None
    bits = key if key >= 0 else key ^ 0x7FFFFFFFFFFFFFFF
    value = struct.unpack("<d", struct.pack("<q", bits))[0]
    if value == 0.0 and earliest_zero != -1 and earliest_zero & 1:
        return -0.0
    return value


def last_assigned(outputs: tuple, marks, ivals, fvals, total: int, final: dict, tags: dict) -> list:
    """A band kernel's scalar outputs into ``final`` (and their class tags into ``tags``):
    each one's value at the last iteration that assigned it (``marks``, on the host: that
    iteration * 16 + its tag, -1 for none; values per output, ``total`` iterations each).
    Returns the outputs no iteration assigned."""
    unassigned = []
    for position, (name, is_float) in enumerate(outputs):
        mark = int(marks[position])
        if mark < 0:
            unassigned.append(name)
            continue
        iteration, tags[name] = divmod(mark, 16)
        final[name] = (fvals if is_float else ivals)[position * total + iteration].item()
    return unassigned


@record(frozen=False)
class GpuRegionSpecialization:
    """A time-step loop whose body is GPU bands: the host runs the steps, the arrays go
    to the device once and come back once (Leung's multi-pass loops, MegaGuards §3.4.4)."""

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

    @property
    def timings(self) -> dict:
        return self.clock.timings

    def run(self, binding) -> Outcome:
        return self.clock.entry(lambda: self.launch(binding))

    def launch(self, binding) -> Outcome:
        cupy = cupy_module()
        watched = watched_on_gpu(self.cpu)
        if watched is None:
            return Declined(NO_UNDERFLOW)
        fast, ints, floats = self.parts[0].prologue(binding)
        if not fast:
            return Declined("a hoisted check failed")
        layout = self.cpu.layout
        ints[layout.mode_slot] = 0
        ints[layout.float_status_slot] = watched
        guard.check_entry(self.cpu.assumed, binding, gpu=True)   # as on the CPU
        bands = [part.band(ints) for part in self.parts]
        steps = bands[0][0][2]
        if steps == 0 or any(trips == 0 for band in bands for _, _, trips in band[1:]):
            return Declined("empty ranges")  # the CPU handles them and their last values
        written_objects = {id(v) for v, w in zip(binding.arrays, self.cpu.written) if w}
        device_arrays, commits = arrays_to_device(
            layout, self.cpu.typed, binding.arrays, ints,
            lambda name, value: self.parts[0].copies.to_device(cupy, self.cpu.typed.arrays[name], value,
                                                               id(value) in written_objects))
        common, offsets = packed_inputs(device_arrays, layout, ints, floats)
        start, step, _ = bands[0][0]
        flag = cupy.zeros(1, dtype=cupy.int64)
        planned = self.plan_steps(bands, start, step, steps, binding)
        if planned is None:
            return Declined("a step's loop bounds could not be computed on the host")
        launches, per_steps, shapes, bands_by_step = planned
        names = Holdings(layout, self.cpu.typed, device_arrays, ints, floats)
        last = [max((k for k, (total, _, _) in enumerate(band_shapes) if total), default=None)
                for band_shapes in shapes]
        kept = [self.kept_scalars(cupy, index, shapes[index], last[index]) for index in range(len(launches))]
        inputs = {}   # (band, which array each name holds) -> its inputs on the device
        queued = []   # an event per STEPS_PER_WAIT steps: at most two such batches wait on the device
        for k in range(steps):
            if k and k % STEPS_PER_WAIT == 0:
                queued.append(cupy.cuda.Event(disable_timing=True))
                queued[-1].record()
                if len(queued) > 1:
                    wait_for_gpu(cupy, queued.pop(0))
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
            kernel, band = self.kernels[index], bands_by_step[index][last[index]]
            for position, (first, stride, trips) in enumerate(band[1:], start=1):
                final[kernel.band[position]] = first + (trips - 1) * stride
            if kernel.outputs and not self.kept_values(index, kept[index], shapes[index][last[index]][0], final, tags):
                return Declined("a scalar the loop keeps was not assigned in the last step that could")
        outputs = box_live_outs(self.cpu.live_outs, final, tags, self.cpu.typed, layout.box_tags)
        outputs = tuple(binding.arrays[names.holding(name)] if name in layout.rebound else value
                        for name, value in zip(self.cpu.live_outs, outputs))
        for commit in commits:
            commit()
        return Ran(outputs)

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
        for index, (function, part, band) in enumerate(zip(self.functions, self.parts, bands)):
            step_bands = [band] * steps if not self.region.varying[index] else \
                self.step_bands(index, band, [start + k * step for k in range(steps)], binding)
            if step_bands is None:
                return None
            per_step = numpy.array([[start + k * step, 0, 1] + [v for entry in b[1:] for v in entry]
                                    for k, b in enumerate(step_bands)], dtype=numpy.int64)
            per_steps.append(per_step.ravel())
            bands_by_step.append(step_bands)
            shapes.append([(math.prod(trips for _, _, trips in b[1:]),) + part.grid(b) for b in step_bands])
            launches.append((function, per_step.shape[1]))
        return launches, per_steps, shapes, bands_by_step

    def step_bands(self, index: int, band: list, values: list, binding) -> list | None:
        """Band ``index``'s (start, step, trips) entries at each value of the region's loop
        variable, its first loop's bounds computed on the host (a triangular nest: each
        step's own range, within the whole range the hoisted checks proved); None if they
        cannot be computed (the CPU then runs the loop)."""
        loop = self.region.bands[index].loops[self.region.bands[index].fixed]
        scalars = dict(zip(self.cpu.scalar_paths, binding.scalars))
        arrays = dict(zip(self.cpu.layout.arrays, binding.arrays))
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
