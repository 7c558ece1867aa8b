"""Choosing the device of a compiled loop at each entry, before running it.

Devices: ``seq`` (one core: the loop compiled without OpenMP), ``cpu`` (all cores, OpenMP; its
kernel is rendered and compiled when first chosen), ``cuda``.  With
``device=auto`` the choice is, in this order:

1. **measured**: the times this kernel took on each device at this size, in this process
   or an earlier one (``runtime/decisions.py``); at the ``RECHECK_EVERY``-th entry of one
   size, and at each doubling of that count after it, another device is tried once, in case
   the earlier measurement misleads, and every
   ``EXPLORE_EVERY``-th process meeting the size tries a device not measured at it yet;
2. **predicted**: the learned decision tree (``runtime/selector.py``) over the loop's
   features (``analysis/features.py``) and the calibrated cost model's predictions
   (``runtime/costmodel.py``); without a tree, the model's fastest device.

``MEGAGUARDS_SELECT`` changes the method: ``tree`` (default), ``model`` (the cost model
alone), ``explore`` (MegaGuards' adaptive selection: run every device once, keep the
fastest, no prediction and nothing kept across processes), or one device (``seq``,
``cpu``, ``cuda``: forced, for calibration and training).  ``device=gpu`` always
tries the GPU first.
"""
from __future__ import annotations

import json
import math
import time


from ..record import record
from .. import record as records
from .. import config
from ..analysis import features as feature_analysis
from . import costmodel, selector, warmup
from .decisions import DecisionStore, bucket
from ..errors import Unsupported
from ..ir.types import ndarray_class
from .executable import Declined, Outcome, Ran
from .kernel import Specialization
from .process import Process
from .process import current as current_process

# Entries of one size in a process before the first re-try of another device; later ones
# come at 128, 256, ...: a re-try also makes the next entry decide afresh (features, cost
# model, tree: 0.1-0.3 ms), which every 64th entry cost a 14 us loop entered 3000 times
# (euler3d, small) about a fifth of its time.
RECHECK_EVERY = 64
EXPLORE_EVERY = 8      # processes meeting one size between tries of a device never measured at it
# Where the tree overrules the cost model between one core and all cores and the entry then
# takes over SURPRISE times what the model predicted for it, the model's device runs the
# next entry of that size once, and the entry after that goes by both measurements
# (particlefilter, small: the tree's one core took 3.2 ms an entry, 16 cores 0.38 ms).
# Before that test, a predicted device whose first entry (after OpenMP's start-up) is
# slower than another host device measured at this size (the one-thread rentals below
# measure one core) gives way: the next entry decides from the measurements (pathfinder,
# medium: 99 entries predicted for 16 cores at 1.0 ms each, 0.75 ms on one thread).
SURPRISE = 2.0
# The first GPU use in a process starts CUDA (cuda_driver.py: the bindings and the device's
# context, 0.29-0.34 s on the H100 machine from first need to a cached kernel's result; a
# kernel not yet in the cache adds NVRTC's 0.2-0.3 s), a cost no per-entry time shows.  While CUDA is
# not up, an entry the choice sends to the GPU runs on the CPU instead and what that is
# expected to lose (CPU time minus GPU time) is added up: once the sum reaches this, CUDA
# starts in the background (warmup.py) while the CPU keeps running, and the GPU takes over
# when it is up.  A single entry waits for CUDA at once only if it is expected to lose more
# than the whole start-up (GPU_WAIT_SECONDS): otherwise the CPU runs it while CUDA starts.
# The sum so far is the process's (Process.gpu_rent_lost).
GPU_STARTUP_SECONDS = 0.3
GPU_WAIT_SECONDS = 0.6
# Likewise OpenMP's first parallel region in a process starts its thread team (2-3 ms on
# the H100 machine, 16 cores).  Until then a kernel the choice sends to all cores runs on
# one thread instead when the one-thread time spent so far plus this entry's expected
# one-thread time stays below this: a rent-or-buy rule, about twice the better at worst.
# Whether it started, and the one-thread time so far: Process.openmp_started, one_thread_seconds.
OPENMP_STARTUP_SECONDS = 0.003
# The same rule per loop for loading its all-cores kernel (reading the rendered source from
# the cache, loading the shared object: 0.3-0.7 ms a loop on the development machine): a
# loop whose entries take microseconds keeps to one thread unless it runs long enough to
# pay for it (particlefilter, small: five loops of 15-80 us an entry, five entries each).
PARALLEL_LOAD_SECONDS = 0.0005
LOGGED_ENTRIES = 50     # per size: entries written to MEGAGUARDS_FEATURES_LOG


@record(frozen=False)
class DeviceChoice:
    cpu: Specialization
    gpu: object | None             # runtime.cuda GPU specialization, None without a GPU
    policy: str                    # "gpu" (GPU first) or "auto"
    template: feature_analysis.LoopTemplate
    hoisted_loops: tuple           # analysis.bounds.LoopRange of the CPU kernel's prologue
    key: str                       # the kernel's persistent identity (decisions file name)
    times: dict = records.field(default_factory=lambda: {"seq": [], "cpu": [], "cuda": []})   # explore's (and device=gpu's)
    entries: int = 0
    last_device: str = "cpu"
    gpu_runs: int = 0
    last: dict = records.field(default_factory=dict)   # features, predictions, choice of the last entry
    decided: dict = records.field(default_factory=dict)  # size key -> device chosen for it
    seen: dict = records.field(default_factory=dict)     # size key -> entries of that size
    renting: set = records.field(default_factory=set)    # size keys on one thread until all cores pay off
    rented: float = 0.0                          # seconds this loop ran on one thread while renting
    awaiting_gpu: dict = records.field(default_factory=dict)  # size key -> seconds lost per entry on the CPU
    surprised: dict = records.field(default_factory=dict)     # size key -> the device its next entry tries
    checked: set = records.field(default_factory=set)         # size keys whose first entry met SURPRISE's test
    entry_size: tuple = ()                             # the size key of the entry under way
    sequential: Specialization | None = None   # the one-core kernel, once cpu is the parallel one
    store: DecisionStore | None = None
    gpu_factory: object = None     # builds ``gpu`` when auto first picks the GPU (None: built)
    gpu_shape: tuple | None = None  # (loop ids of each band's threads, time-step loop id or None)
    parallel_factory: object = None  # builds the all-cores kernel when first chosen (None: built, or none)
    gpu_declined: str | None = None   # why the GPU last gave an entry to the CPU (explain says it)

    # What the site's report and explain read: the CPU specialization's facts.
    @property
    def checks_in_loop(self) -> int:
        return self.cpu.checks_in_loop

    @property
    def parallel_depth(self) -> int:
        return self.cpu.parallel_depth

    @property
    def team_runs(self) -> int:
        """Entries that ran a parallel loop with more than one thread (the all-cores kernel is
        ``cpu`` once built; the one-core kernel then ``sequential``)."""
        return self.cpu.team_runs

    @property
    def typed(self):
        return self.cpu.typed

    @property
    def explanation(self):
        return self.cpu.explanation

    @property
    def timings(self) -> dict:
        return self.cpu.timings

    @property
    def elements(self) -> tuple[float, float, float, float]:
        return self.cpu.elements

    def devices(self) -> tuple[str, ...]:
        available = ["cpu"]
        if (self.sequential is not None or self.parallel_factory is not None) and not config.current().threads:
            available.insert(0, "seq")
        if self.gpu is not None or self.gpu_factory is not None:
            available.append("cuda")
        return tuple(available)

    # -- features of one entry ----------------------------------------------------------

    def features(self, binding) -> feature_analysis.Features:
        cpu, layout = self.cpu, self.cpu.layout
        ints, _ = cpu.prologue(binding)   # every array's dims, every hoisted loop's range
        bytes_moved = list_elements = 0
        seen: set[int] = set()
        for value, name, rank, written in zip(binding.arrays, layout.arrays, cpu.ranks, cpu.written):
            if id(value) in seen:
                continue
            seen.add(id(value))
            first = layout.dims[name]
            elements = math.prod(ints[first:first + rank])
            box = layout.boxes.get(name)
            if box is not None and type(value) is list:   # only the part the loop touches moves
                elements = math.prod(max(0, ints[box + rank + d] - ints[box + d] + 1) for d in range(rank))
            trips = 2 if written else 1
            if type(value) is list:
                list_elements += elements * trips
                bytes_moved += 8 * elements * trips
            elif type(value) is ndarray_class():
                bytes_moved += value.nbytes * trips
        # The loops' ranges are computed whether or not the hoisted checks then pass.
        trips, slot = {}, layout.intervals_slot + 2
        for k, loop in enumerate(self.hoisted_loops):
            low, high = ints[slot + 2 * k], ints[slot + 2 * k + 1]
            trips[loop.loop] = 0 if low > high else (high - low) // (abs(loop.step) or 1) + 1   # a variable step: 1
        band_trips, launches = self.band(ints, trips)
        return feature_analysis.evaluate(self.template, trips, band_trips, launches, bytes_moved, list_elements)

    def band(self, ints, trips: dict) -> tuple[int, int]:
        """(threads of one launch, launches) of the GPU variant at this entry."""
        if self.gpu_shape is not None:
            bands, steps_loop = self.gpu_shape
            threads = max(math.prod(trips.get(loop, 0) for loop in band) for band in bands)
            return threads, (trips.get(steps_loop, 0) * len(bands) if steps_loop is not None else 1)
        if self.gpu is None:
            return 0, 0
        parts = getattr(self.gpu, "parts", None)
        if parts is None:
            return math.prod(t for _, _, t in self.gpu.band(ints)), 1
        bands = [part.band(ints) for part in parts]
        steps = bands[0][0][2]
        return max(math.prod(t for _, _, t in b[1:]) for b in bands), steps * len(parts)

    # -- the choice ---------------------------------------------------------------------

    def pick(self, binding, method: str) -> str:
        if method in ("seq", "cpu", "cuda"):  # forced (calibration, training): "cpu" when unavailable
            available = self.devices()
            device = method if method in available else "cpu"
            if current_process().observer is not None or config.current().features_log:
                found = self.features(binding)
                self.last = {"features": found, "predicted": costmodel.current().predict(found), "device": device,
                             "why": f"forced (MEGAGUARDS_SELECT={method})", "bucket": bucket(found.work)}
            return device
        if method == "explore":
            return self.explore(self.devices())
        size_key = self.entry_size = size_of(binding, self.cpu.sizing)
        count = self.seen[size_key] = self.seen.get(size_key, 0) + 1
        known = self.decided.get(size_key)
        # Most entries (euler3d small: 3000 of 14 us each) meet a size already decided with
        # nothing pending: they take the decision without the follow-up's tests.
        if known is not None and not (self.renting or self.surprised or self.awaiting_gpu or is_recheck(count)):
            return known
        available = self.devices()
        device, redecide = self.follow_up(size_key, count, known, available)
        if device is not None:
            return device
        return self.decide(binding, method, available, size_key, redecide)

    def follow_up(self, size_key: tuple, count: int, known: str | None,
                  available: tuple) -> tuple[str | None, bool]:
        """For the ``count``-th entry of a size, ``known`` the device its earlier entries
        settled on: that device, another, or None to decide afresh; and whether a start-up
        was just paid off (then the predicted device goes first)."""
        rent_paid = size_key in self.renting and self.rent_due(0.0) is None
        if rent_paid:
            self.renting.discard(size_key)   # all cores pay off now: decide this size again
            self.decided.pop(size_key, None)
            known = None
        redecide = rent_paid
        if size_key in self.surprised:   # try the model's device once; the next entry decides again
            self.decided.pop(size_key, None)
            return self.surprised.pop(size_key), redecide
        if size_key in self.awaiting_gpu:    # on the CPU until CUDA is up
            if self.gpu_up():
                del self.awaiting_gpu[size_key]
                self.decided.pop(size_key, None)
                known, redecide = None, True
            elif known is not None:
                rent_gpu(self.awaiting_gpu[size_key])
        if known is None or not is_recheck(count) or len(available) < 2:
            return known, redecide
        # Verify now and then: another device runs this entry, then the next entry decides
        # again from every measurement of this size.
        del self.decided[size_key]
        others = [d for d in available if d != known and (d != "cuda" or self.gpu_up())]
        turn = (count // RECHECK_EVERY).bit_length() - 1   # 0 at the first re-try, 1 at the second, ...
        return (others[turn % len(others)] if others else known), redecide

    def decide(self, binding, method: str, available: tuple, size_key: tuple, redecide: bool) -> str:
        """A size's device from the entry's features: measured times where there are, else
        the prediction, then the rentals of start-up costs."""
        found = self.features(binding)
        predicted = costmodel.current().predict(found)
        predicted = {d: t for d, t in predicted.items() if d in available}
        size = bucket(found.work)
        if self.store is None:
            self.store = DecisionStore(self.key)
        measured, medians = self.store.best(size)
        redecide = redecide or size_key in self.checked
        visits = self.store.visits.get(size, 0) if redecide else self.store.visit(size)  # once per process
        device, why = self.predict(method, found, predicted, available)
        surprise_test = True   # the choice is a prediction: its first entry may prove it wrong
        # What ran before at this size decides.  Every EXPLORE_EVERY-th process that meets
        # this size tries the device predicted fastest among those never measured at it.
        if measured in available and not (redecide and device not in medians):
            untried = {d: t for d, t in predicted.items() if d not in medians}
            if untried and visits % EXPLORE_EVERY == 0:
                device = min(untried, key=untried.get)
                why = f"not yet measured at this size (tried every {EXPLORE_EVERY}th process), cost model"
            else:
                device, why = measured, f"measured before at this size ({format_times(medians)})"
            surprise_test = False
        if device == "cuda" and not self.gpu_up():
            device, why, lost = self.rent_cpu(why, available, medians, predicted)
            surprise_test = False
            if device != "cuda":
                self.awaiting_gpu[size_key] = lost
        if device == "cpu" and "seq" in available:
            one_thread = medians.get("seq", predicted.get("seq"))   # this entry's expected time
            rent = self.rent_due(one_thread) if one_thread is not None else None
            if rent is not None:
                device, why = "seq", f"{why}, but on one thread {rent}"
                self.renting.add(size_key)
                surprise_test = False
        self.decided[size_key] = device
        if len(self.decided) > 64:
            self.decided.pop(next(iter(self.decided)))
            self.seen.pop(next(iter(self.seen)))
        self.last = {"features": found, "predicted": predicted, "device": device, "why": why, "bucket": size,
                     "size_key": size_key if surprise_test else None}
        return device

    def rent_due(self, one_thread: float) -> str | None:
        """Why an entry expected to take ``one_thread`` seconds on one thread runs there
        rather than on all cores, whose start-up is not paid yet; None once it is."""
        if self.parallel_factory is not None and self.rented + one_thread <= PARALLEL_LOAD_SECONDS:
            return (f"until it has spent {PARALLEL_LOAD_SECONDS * 1e3:g} ms there, about what loading "
                    f"its all-cores kernel costs")
        process = current_process()
        if not process.openmp_started and process.one_thread_seconds + one_thread <= OPENMP_STARTUP_SECONDS:
            return (f"while OpenMP's threads are not started (until {OPENMP_STARTUP_SECONDS * 1e3:g} ms "
                    f"are spent on one thread)")
        return None

    def gpu_up(self) -> bool:
        """Is choosing the GPU now free of CUDA's per-process start-up?"""
        return self.gpu is not None or gpu_started()

    @staticmethod
    def rent_cpu(why: str, available: tuple, medians: dict, predicted: dict) -> tuple[str, str, float]:
        """The GPU is chosen but CUDA is not up: the device for this entry, why, and the
        seconds the CPU is expected to lose on it (see GPU_STARTUP_SECONDS, GPU_WAIT_SECONDS)."""
        cpu_times = {d: medians.get(d, predicted.get(d)) for d in available if d != "cuda"}
        cpu_times = {d: t for d, t in cpu_times.items() if t is not None}
        if not cpu_times:
            return "cuda", why, 0.0
        device = min(cpu_times, key=cpu_times.get)
        lost = max(0.0, cpu_times[device] - medians.get("cuda", predicted.get("cuda", 0.0)))
        if lost >= GPU_WAIT_SECONDS:
            return "cuda", f"{why}; the CPU would lose more than CUDA's start-up in this process", 0.0
        rent_gpu(lost)
        waiting = "while CUDA starts in the background" if warmup.in_progress() else (
            f"until the CPU has lost CUDA's start-up time ({GPU_STARTUP_SECONDS} s; "
            f"{current_process().gpu_rent_lost * 1e3:.3g} ms so far)")
        return device, f"{why}, but on the CPU ({format_times(cpu_times)}) {waiting}", lost

    @staticmethod
    def predict(method: str, found, predicted: dict, available: tuple) -> tuple[str, str]:
        tree = selector.load() if method == "tree" else None
        device, how = selector.decide(tree, found, predicted, available)
        if how == "fork gate":
            return device, (f"decision tree ({tree.trained_on}) chose cpu, but the kernel forks "
                            f"{found.parallel_entries} parallel regions an entry and the cost model predicts one "
                            f"core faster ({format_times(predicted)})")
        if how == "gpu gate":
            return device, (f"decision tree ({tree.trained_on}) chose cuda, but the cost model predicts it less "
                            f"than {selector.CUDA_MARGIN:g}x faster than {device} ({format_times(predicted)})")
        if how == "gpu win":
            return device, (f"decision tree ({tree.trained_on}) chose a CPU device, but the cost model predicts the "
                            f"GPU at least {selector.GPU_CLEAR_WIN:g}x faster ({format_times(predicted)})")
        if how == "tree":
            return device, f"decision tree ({tree.trained_on})"
        if how == "model":
            return device, f"cost model ({costmodel.current().source} calibration)"
        return device, "no calibration and no tree: the widest device"

    def explore(self, available) -> str:
        for device in available:
            if not self.times[device]:
                return device
        if self.entries % RECHECK_EVERY < len(available) and self.entries > RECHECK_EVERY:
            return available[self.entries % RECHECK_EVERY]
        return min(available, key=lambda d: min(self.times[d][-3:]))

    # -- running ------------------------------------------------------------------------

    def run(self, binding) -> Outcome:
        self.entries += 1
        method = config.current().select
        device = "cuda" if self.policy == "gpu" else self.pick(binding, method)
        if device == "cuda" and self.gpu is None and self.gpu_factory is not None:
            self.gpu, self.gpu_factory = self.gpu_factory(), None   # not part of the entry's time
        elif device == "cpu":
            self.parallel_variant()   # likewise: its first entry measured 1.5-2.6 ms for a 50 us loop
        started = time.perf_counter()
        outcome = None
        if device == "cuda" and self.gpu is not None:
            outcome = self.gpu.run(binding)
            if type(outcome) is not Declined:
                self.last_device = "cuda"
                self.gpu_runs += 1
                if self.policy == "auto":
                    warmup.note_gpu_used()
            else:
                self.gpu_declined = outcome.why
                device, started = "cpu", time.perf_counter()   # the GPU declined: run on the CPU
                outcome = None
        elif device == "cuda":
            device = "cpu"   # no usable GPU after all
        if outcome is None:
            outcome = self.run_cpu(binding, one_thread=device == "seq")
            self.last_device = device
        seconds = time.perf_counter() - started
        process = current_process()
        starting_openmp = device == "cpu" and not process.openmp_started
        if device == "cpu":
            process.openmp_started = True
        elif device == "seq" and self.renting:
            process.one_thread_seconds += seconds
            self.rented += seconds
        if type(outcome) is Ran:
            self.remember(device, seconds, method, starting_openmp, process)
        return outcome

    def run_cpu(self, binding, one_thread: bool) -> Outcome:
        if not one_thread:
            return self.parallel_variant().run(binding)
        # Until the parallel kernel is built, cpu is the one-core kernel.
        return (self.cpu if self.sequential is None else self.sequential).run(binding)

    def parallel_variant(self) -> Specialization:
        """The all-cores specialization, built at the first entry sent there: until then
        ``cpu`` is the kernel compiled without OpenMP (backend.parallel_variant)."""
        factory = self.parallel_factory
        if factory is not None:
            self.parallel_factory = None
            try:
                self.sequential, self.cpu = self.cpu, factory()
            except Unsupported as error:   # a megaguards bug, logged: one core only
                self.cpu.explanation.parallel.append(f"the parallel kernel failed: {error}")
        return self.cpu

    def remember(self, device: str, seconds: float, method: str, starting_openmp: bool, process: Process) -> None:
        if method == "explore" or self.policy != "auto":   # explore's own measurements (its only memory)
            times = self.times[device]
            times.append(seconds)
            if len(times) > 8:
                del times[0]
            return
        if not self.last:
            return
        last = self.last
        if self.store is not None and method in ("tree", "model"):
            self.store.record(last["bucket"], device, seconds, start_up=starting_openmp)
            if starting_openmp:
                self.after_openmp_start(device)
            elif last.get("size_key") not in self.checked:   # (None: not a first entry's)
                self.check_first_entry(device, seconds)
        if process.observer is not None:
            process.observer(self, device, seconds)
        if config.current().features_log:
            log_observation(self, device, seconds, process)

    def after_openmp_start(self, device: str) -> None:
        """An entry that started OpenMP's thread team (0.75-11.7 ms on the H100 machine) does
        not count as all cores' time at its size in this process (``DecisionStore.record``):
        it would send the next decision back to one core (particlefilter, small: a
        surprise's try on 16 cores took 2.8 ms, 0.5 ms once started).  A try of all cores
        (surprise, re-check) is made again with the threads up."""
        if self.decided.get(self.entry_size) != device:
            self.surprised[self.entry_size] = device

    def check_first_entry(self, device: str, seconds: float) -> None:
        """After the first entry of a size that a prediction sent to ``device`` (not counting
        one that started OpenMP's threads): where another host device was measured faster at
        this size (the one-thread rental ran it), the next entry decides from the
        measurements; else schedule the cost model's device for the next entry where
        SURPRISE's test says so."""
        size_key = self.last["size_key"]
        if size_key is None or size_key in self.checked or device != self.last["device"]:
            return
        self.checked.add(size_key)
        if device not in ("seq", "cpu"):
            return
        medians = self.store.best(self.last["bucket"])[1]
        if any(medians.get(other, math.inf) < seconds for other in ("seq", "cpu") if other != device):
            self.decided.pop(size_key, None)
            return
        host = {d: t for d, t in self.last["predicted"].items() if d in ("seq", "cpu")}
        if len(host) == 2:
            model = min(host, key=host.get)
            if model != device and seconds > SURPRISE * host[device]:
                self.surprised[size_key] = model

    def describe(self) -> list[str]:
        """For ``megaguards explain``: the last choice, the features and predictions behind it."""
        declined = [f"  the GPU gave an entry to the CPU: {self.gpu_declined}"] if self.gpu_declined else []
        if not self.last:
            return [f"device: {self.last_device} ({'GPU first' if self.policy == 'gpu' else config.current().select})",
                    *declined]
        found = self.last["features"]
        shown = ", ".join(f"{name} {_short(value)}" for name, value in found.as_dict().items())
        return [f"device: {self.last['device']}, chosen by {self.last['why']}",
                f"  predicted: {format_times(self.last['predicted']) or 'no calibration'}",
                f"  features: {shown}", *declined]


def is_recheck(count: int) -> bool:
    """Does the ``count``-th entry of a size try another device (64, 128, 256, ...)?"""
    if count % RECHECK_EVERY:   # nearly every entry
        return False
    rounds = count // RECHECK_EVERY
    return rounds > 0 and rounds & (rounds - 1) == 0


def size_of(binding, sizing: tuple) -> tuple:
    """An entry's size: its arrays' lengths (lists) or shapes, and the int scalars at
    ``sizing`` (those that set its trip counts: Specialization.sizing)."""
    scalars = binding.scalars
    return (tuple([len(a) if type(a) is list else getattr(a, "shape", ()) for a in binding.arrays]),
            tuple([scalars[k] for k in sizing if type(scalars[k]) is int]) if sizing else ())


def rent_gpu(lost: float) -> None:
    """Add what an entry lost on the CPU for want of CUDA; start CUDA once it adds up."""
    process = current_process()
    process.gpu_rent_lost += lost
    if process.gpu_rent_lost >= GPU_STARTUP_SECONDS:
        warmup.start()


def gpu_started() -> bool:
    """Is CUDA up in this process (the warm-up thread done, the driver opened, or CuPy
    imported by the program)?"""
    import sys

    from . import cuda_driver

    if warmup.in_progress():
        return warmup.done()
    return "cupy" in sys.modules or cuda_driver.started()


def format_times(times: dict) -> str:
    return ", ".join(f"{device} {seconds * 1e3:.3g} ms" for device, seconds in sorted(times.items()))


def _short(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def log_observation(choice: DeviceChoice, device: str, seconds: float, process: Process) -> None:
    """One JSON line per entry into MEGAGUARDS_FEATURES_LOG (training data for the tree)."""
    path = config.current().features_log
    logged = process.features_logged
    counted = logged.get((choice.key, choice.last["bucket"]), 0)
    if counted >= LOGGED_ENTRIES:
        return
    logged[(choice.key, choice.last["bucket"])] = counted + 1
    found = choice.last["features"]
    record = {"kernel": choice.key, "bucket": choice.last["bucket"], "device": device, "seconds": seconds,
              "features": found.as_dict(), "vector": list(found.vector()),
              "predicted": choice.last["predicted"], "available": list(choice.devices())}
    with open(path, "a") as handle:
        handle.write(json.dumps(record) + "\n")
