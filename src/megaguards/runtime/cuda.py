"""Running a site's loop band on an NVIDIA GPU (the ``[cuda]`` extra): through the CUDA
driver API (cuda_driver.py, CuPy's API without CuPy), or CuPy where the program uses it.

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
import sys
import time
from pathlib import Path

import numpy

from ..log_setup import LAZY
from ..record import record
from .. import record as records
from ..analysis.floatstatus import CATEGORIES
from ..analysis.mapping import full_overwrites
from ..codegen.targets.cuda import NVRTC_OPTIONS, CudaKernel
from ..errors import CompilerError
from ..guards import assumptions as guard
from .data import (DeviceCopies, StageClock, Transfers, arrays_to_device, written_objects, box_live_outs, list_shape,
                   numpy_error_categories, ordered_fold, packed_inputs, pinned_empty)
from .executable import FLOAT_STATUS, Declined, Outcome, Raised, Ran
from .cachefile import sha256
from .kernel import Specialization
from .status import status

log = LAZY   # the "megaguards" logger

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
    """What megaguards launches kernels through, with CuPy's API: CuPy itself where the
    program imported it (its arrays stay on its context), else the driver API
    (cuda_driver.py: no CuPy to import), else CuPy if installed; None without a GPU."""
    from . import cuda_driver, warmup

    with status("starting CUDA, once per process"):   # on a terminal, past a second (status.py)
        warmup.wait()   # a warm-up thread creating the context finishes first
        if "cupy" not in sys.modules:
            driver = cuda_driver.open_driver()
            if driver is not None:
                return driver
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() > 0:
                return cupy
        except Exception:  # no CuPy, no driver, no device: the CPU it is
            return None
    return None


def launch_shape(block: tuple, trips: list, processors: int) -> tuple[tuple, tuple]:
    """(grid, block) covering ``trips`` iterations per axis.  A band of few iterations in
    the kernel's blocks would leave most multiprocessors idle (lud's rows: 2048 threads, 8
    blocks of 256, on an H100's 132): its block is halved (z, then y, then x down to a
    warp) until there are blocks for every multiprocessor.  The kernels read blockDim."""
    block = list(block)

    def grid() -> list:
        counts = [(trip + block[axis] - 1) // block[axis] for axis, trip in enumerate(trips)]
        return counts + [1] * (3 - len(counts))

    while all(trips) and math.prod(grid()) < processors:
        axis = next((axis for axis in (2, 1) if block[axis] > 1), 0)
        if axis == 0 and block[0] <= WARP:
            break
        block[axis] //= 2
    return tuple(grid()), tuple(block)


WARP = 32   # threads a multiprocessor runs in lock step: a block's x never goes below it


@functools.lru_cache(maxsize=1)
def multiprocessors() -> int:
    """The GPU's multiprocessors (1 where they cannot be read: blocks are then kept whole)."""
    runtime = cupy_module().cuda.runtime
    try:
        index = runtime.getDevice() if hasattr(runtime, "getDevice") else 0
        return max(1, int(runtime.getDeviceProperties(index).get("multiProcessorCount", 1)))
    except Exception as error:  # noqa: BLE001 - a driver's odd answer costs only the split
        log.debug("the GPU's multiprocessor count is not readable: %s: %s", type(error).__name__, error)
        return 1


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
    with status("compiling a loop for the GPU"):   # NVRTC, or a cache of its output
        return cupy.RawModule(code=source, options=NVRTC_OPTIONS).get_function("mg_kernel")


def compile_kernel(kernel: CudaKernel):
    """The kernel's function on the current GPU (NVRTC's cubin, cached on disk)."""
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

    def checked_inputs(self, binding) -> tuple | Declined:
        """The kernel's (ints, floats) for this entry once its hoisted checks passed and the
        entry was checked as on the CPU; Declined where the GPU cannot run it."""
        watched = watched_on_gpu(self.cpu)
        if watched is None:
            return Declined(NO_UNDERFLOW)
        fast, ints, floats = self.prologue(binding)
        if not fast:
            return Declined("a hoisted check failed")
        layout = self.cpu.layout
        ints[layout.mode_slot] = 0
        ints[layout.float_status_slot] = watched
        guard.check_entry(self.cpu.assumed, binding, gpu=True)   # as on the CPU
        return ints, floats

    def launch(self, binding) -> Outcome:
        cupy = cupy_module()
        checked = self.checked_inputs(binding)
        if type(checked) is Declined:
            return checked
        ints, floats = checked
        layout, typed = self.cpu.layout, self.cpu.typed
        kept, touched = written_objects(binding.arrays, self.cpu.written)
        band = self.band(ints)

        def place(name, value):
            if self.fully_overwritten(name, value, band, binding.arrays):
                device, commit = self.copies.allocate(cupy, typed.arrays[name], value)
                return device, commit if id(value) in kept else None
            return self.copies.to_device(cupy, typed.arrays[name], value, id(value) in kept,
                                         None if id(value) in touched else name)   # read-only: kept there

        device_arrays, commits = arrays_to_device(layout, typed, binding.arrays, ints, place)
        total = 1
        for _, _, trips in band:
            total *= trips
        if total == 0:
            return Declined("empty ranges")  # the CPU handles them and their last values
        # Small inputs travel in one copy and small outputs in one copy back:
        # [array pointers | ints | floats (bits) | band]  and  [flag | marks | int partials | float partials].
        common, offsets = packed_inputs(device_arrays, layout, ints, floats)
        packed = numpy.concatenate([common, numpy.array([value for entry in band for value in entry],
                                                        dtype=numpy.int64)])
        device_in = cupy.asarray(packed)
        inputs = tuple(numpy.uint64(device_in.data.ptr + 8 * int(offset)) for offset in offsets)
        code, found = self.execute(cupy, inputs, band, total, dict(zip(self.cpu.scalar_paths, binding.scalars)))
        if code:
            return Raised(code)
        if found is None:
            return Raised(FLOAT_STATUS)   # NumPy would act on a flag the host's fold raised
        result = box_live_outs(self.cpu.live_outs, *found, typed, layout.box_tags)
        for commit in commits:  # only now: nothing above may still send the loop to CPython
            commit()
        return Ran(result)

    def execute(self, cupy, inputs: tuple, band: list, total: int, starts: dict) -> tuple:
        """Launch on inputs already on the device (the addresses of the arrays' pointers, the
        ints, the floats and the band's entries) and wait: (the flag raised, or 0; then the
        values and class tags of the scalars the threads assign, by name, or None where the
        host's ordered fold raised NumPy's flag).  ``starts``: the reductions' values before."""
        outputs, reductions = self.kernel.outputs, self.kernel.reductions
        n_out, n_red = len(outputs), len(reductions)
        results = numpy.concatenate([
            numpy.zeros(1, dtype=numpy.int64), numpy.full(n_out, -1, dtype=numpy.int64),
            numpy.array([self.identity(kind) for _, kind, _, _ in reductions], dtype=numpy.int64),
            numpy.array([-0.0 if is_float else 0.0 for _, _, is_float, _ in reductions]).view(numpy.int64)])
        for index, (_, kind, is_float, _) in enumerate(reductions):
            if is_float and kind != "+":   # a float max/min's earliest zero: none yet (all ones)
                results[1 + n_out + n_red + index] = -1
        device_out = cupy.asarray(results)
        base_out = device_out.data.ptr
        # Live-out values per iteration, then the operands of the float sums folded in order
        # (with a 1 in the int slots where the iteration had one).
        slots = (n_out + len(self.kernel.folds)) * total
        marked = any(not always for _, _, always in self.kernel.folds)
        values = ((cupy.zeros if marked else cupy.empty)(slots, dtype=cupy.int64),
                  cupy.empty(slots, dtype=cupy.float64)) if slots else (None, None)
        address = lambda base, index: numpy.uint64(base + 8 * int(index))  # noqa: E731
        grid, block = self.grid(band)
        self.function(grid, block, (
            *inputs, address(base_out, 0), address(base_out, 1),
            values[0] if slots else numpy.uint64(0), values[1] if slots else numpy.uint64(0),
            address(base_out, 1 + n_out), address(base_out, 1 + n_out + n_red), numpy.int64(total)))
        wait_for_gpu(cupy)
        back = device_out.get()
        code = int(back[:1].view(numpy.int32)[0])
        if code:
            return code, None
        marks = back[1:1 + n_out]
        ired = back[1 + n_out:1 + n_out + n_red]
        fred = back[1 + n_out + n_red:].view(numpy.float64)
        return 0, self.finals(starts, band, marks, values[0], values[1], ired, fred, total)

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
        return launch_shape(self.kernel.block, [band[position][2] for position in self.kernel.grid_order],
                            multiprocessors())

    @staticmethod
    def identity(kind: str) -> int:
        return {"+": 0, "max": -(2**63), "min": 2**63 - 1}[kind]

    def finals(self, values: dict, band, marks, ivals, fvals, ired, fred, total) -> tuple | None:
        """(final values, class tags) of the band loops' variables, the scalars the threads
        keep and the reductions (from ``values``, their values before); None where the ordered
        fold raised NumPy's flag."""
        typed = self.cpu.typed
        final: dict[str, object] = {}
        loop_finals(self.kernel.band, band, final)
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
        return final, tags


def loop_finals(variables: tuple, entries, final: dict, first: int = 0) -> None:
    """Each band loop's variable after its range (``entries``: (start, step, trips) per loop,
    none empty), from position ``first`` on, into ``final``."""
    for position in range(first, len(entries)):
        start, step, trips = entries[position]
        final[variables[position]] = start + (trips - 1) * step


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
