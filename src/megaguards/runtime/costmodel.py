"""The calibrated cost model (Leung et al.'s form, extended), one linear model per device:

    t_seq = a·work + u·list_elements + e
    t_cpu = b·work·⌈trips/threads⌉/trips + fork·parallel_entries + u'·list_elements + e'
    t_gpu = c·work·(2 - coalesced) + d·work/band_threads + copy·bytes + launch·launches
            + u''·list_elements + e''

``work`` and the other terms are ``analysis.features.Features`` evaluated at the entry;
``trips`` is the parallel loop's trip count (a loop of 8 iterations keeps 8 of 16 cores
busy) and ``work/band_threads`` the work of one GPU thread, which bounds the GPU's time
when the band has too few threads to fill it (Leung's model has only the first term).
The constants are fitted by non-negative least squares from the microbenchmarks that
``megaguards calibrate`` runs (``calibrate.py``) and stored with the hardware
they were measured on in ``<cache dir>/calibration.json``.  Until a machine is
calibrated, the constants measured on the H100 machine ship as the default
(``data/calibration_default.json``).
"""
from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from functools import cached_property, lru_cache
from operator import mul
from pathlib import Path

from ..log_setup import LAZY
from ..record import record
from .. import config
from .cachefile import make_folder, write_json
from .process import current as current_process

log = LAZY   # the "megaguards" logger, logging imported when a record could be shown

DEVICES = ("seq", "cpu", "cuda")
TERMS = {
    "seq": ("work", "list_elements", "entry"),
    "cpu": ("work_per_thread", "parallel_entries", "list_elements", "entry"),
    "cuda": ("strided_work", "thread_work", "bytes", "launches", "list_elements", "entry"),
}
DEFAULT = Path(__file__).resolve().parent.parent / "data" / "calibration_default.json"
CALIBRATION_FILE = "calibration.json"

def threads() -> int:
    return config.current().threads or usable_cores()


@lru_cache(maxsize=1)
def usable_cores() -> int:
    """The cores this process may run on, read once (OpenMP sizes its team once too): the
    system call cost 15-20 us at every loop's first entry."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def terms(features, device: str, thread_count: int) -> list[float]:
    values = term_values(features, thread_count)
    return [values[name] for name in TERMS[device]]


def term_values(features, thread_count: int) -> dict:
    """Every device's terms for these features (``predict`` builds them once for all devices)."""
    trips = features.parallel_trips if features.parallel_trips >= 1 else thread_count
    busiest_thread = math.ceil(trips / max(1, thread_count)) / trips   # share of the work, static schedule
    return {"work": float(features.work), "work_per_thread": features.work * busiest_thread,
            "parallel_entries": float(features.parallel_entries), "list_elements": float(features.list_elements),
            "entry": 1.0, "strided_work": features.work * (2.0 - features.coalesced),
            "thread_work": features.work / max(1, features.band_trips),
            "bytes": float(features.bytes), "launches": float(max(1, features.launches))}


@record
class Calibration:
    constants: dict             # device -> {term: seconds per unit}
    hardware: dict
    date: str
    source: str                 # "measured" or "default"

    def predict(self, features, thread_count: int | None = None) -> dict:
        """Predicted seconds per device (only devices this calibration has constants for)."""
        values = term_values(features, thread_count or threads())
        return {device: sum(map(mul, constants, map(values.__getitem__, TERMS[device])))
                for device, constants in self.vectors}

    @cached_property
    def vectors(self) -> tuple:
        """(device, its constants in TERMS order) for the devices calibrated: ``predict`` runs
        at every first entry of a size under auto."""
        return tuple((device, tuple(self.constants[device].get(name, 0.0) for name in TERMS[device]))
                     for device in DEVICES if device in self.constants)


def hardware() -> dict:
    """What the constants depend on: the CPU, its usable cores, the GPU (if CuPy sees one)."""
    import platform

    from . import cuda

    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), model)
    except OSError:
        pass
    return {"cpu": model, "threads": threads(), "gpus": cuda.devices() if cuda.cupy_module() else []}


def fit(samples: list[tuple], device: str) -> tuple[dict, float]:
    """Non-negative least squares of the device's terms against measured seconds.

    ``samples``: (features, seconds, thread_count).  Relative errors matter (a 1 ms
    loop and a 1 s loop are equally important to choose well), so each row is weighted
    by 1/seconds.  Returns the constants and the median relative error of the fit."""
    import numpy   # calibration only: a program's run never fits

    rows = numpy.array([terms(f, device, t) for f, _, t in samples], dtype=float)
    seconds = numpy.array([s for _, s, _ in samples], dtype=float)
    weights = 1.0 / numpy.maximum(seconds, 1e-7)
    try:
        from scipy.optimize import nnls
    except ImportError:  # SciPy is optional: the same answer by enumeration
        nnls = nonnegative_least_squares
    solution, _ = nnls(rows * weights[:, None], seconds * weights)
    predicted = rows @ solution
    error = float(numpy.median(numpy.abs(predicted - seconds) / numpy.maximum(seconds, 1e-9)))
    return dict(zip(TERMS[device], map(float, solution))), error


def nonnegative_least_squares(matrix, target) -> tuple:
    """(x >= 0 minimizing |matrix @ x - target|, that residual), as ``scipy.optimize.nnls``.
    The optimum is the least-squares solution on its nonzero columns, which can be chosen
    independent: so it is the best nonnegative one among the least-squares solutions on every
    subset of the columns (a device has at most 6 terms: 63 subsets).  Least squares with
    negative constants cut to zero is not it: the others stay fitted around the cut ones."""
    import itertools

    import numpy

    columns = matrix.shape[1]
    best, best_residual = numpy.zeros(columns), float(numpy.linalg.norm(target))
    for size in range(1, columns + 1):
        for chosen in map(list, itertools.combinations(range(columns), size)):
            solution = numpy.linalg.lstsq(matrix[:, chosen], target, rcond=None)[0]
            residual = float(numpy.linalg.norm(matrix[:, chosen] @ solution - target))
            if (solution >= 0).all() and residual < best_residual:
                best, best_residual = numpy.zeros(columns), residual
                best[chosen] = solution
    return best, best_residual


def _read(path: Path, source: str) -> Calibration | None:
    try:
        data = json.loads(path.read_text())
        constants = {device: {name: float(value) for name, value in data["constants"][device].items()}
                     for device in DEVICES if device in data["constants"]}
        return Calibration(constants, data.get("hardware", {}), data.get("date", "?"), source)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


@lru_cache(maxsize=4)
def _load(cache_dir: str) -> Calibration:
    measured = _read(Path(cache_dir) / CALIBRATION_FILE, "measured")
    if measured is not None:
        return measured
    return _read(DEFAULT, "default") or Calibration({}, {}, "-", "none")


def current() -> Calibration:
    return _load(str(config.current().cache_dir))


def save(calibration: Calibration, fit_errors: dict, samples: int) -> Path:
    target = Path(config.current().cache_dir) / CALIBRATION_FILE
    write_json(target, {"date": calibration.date, "hardware": calibration.hardware,
                        "constants": calibration.constants, "fit_median_relative_error": fit_errors,
                        "samples": samples}, indent=1)
    _load.cache_clear()
    return target


LOCK = "calibration.lock"   # in the cache folder: flock'ed by the calibration running (released when it ends)


def _calibration_lock(folder: Path) -> int | None:
    """A descriptor holding the calibration lock of ``folder`` (None: held elsewhere, or no
    ``flock`` on this system: then no background calibration).  An flock, not filelock (whose
    lock stays with its process): the detached calibration inherits this descriptor and holds
    the lock while it runs."""
    try:
        import fcntl
    except ImportError:
        return None

    try:
        make_folder(folder)
        descriptor = os.open(os.path.join(folder, LOCK), os.O_CREAT | os.O_RDWR | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def calibration_running(folder: Path) -> bool:
    """Does a calibration hold ``folder``'s lock now (the background one a first run started)?"""
    if not os.path.exists(os.path.join(folder, LOCK)):
        return False
    descriptor = _calibration_lock(folder)
    if descriptor is None:   # held elsewhere (without flock no calibration runs in the background)
        return importlib.util.find_spec("fcntl") is not None
    os.close(descriptor)     # it was free: closing releases it
    return False


def calibrate_in_background() -> bool:
    """Once per machine: calibrate in a detached, low-priority process while the user's
    program runs (its results serve the next runs).  False when not started.  Tried once
    per process: every loop's first entry asks."""
    options, process = config.current(), current_process()
    if process.calibration_tried or not options.auto_calibrate or current().source == "measured":
        return False
    process.calibration_tried = True
    descriptor = _calibration_lock(options.cache_dir)
    if descriptor is None:   # another calibration runs, or the folder cannot take the lock
        return False
    # The child holds the lock (an flock: the kernel releases it when the child ends, killed
    # or not) and runs in the private cache folder: ``-m`` puts its working folder first on
    # sys.path, and the user's folder may hold a numpy.py.
    import subprocess

    command = [sys.executable, "-m", "megaguards", "calibrate", "--quiet"]
    try:
        child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=lambda: os.nice(19),
                                 cwd=str(options.cache_dir), pass_fds=(descriptor,),
                                 env={**os.environ, "MEGAGUARDS_AUTO_CALIBRATE": "0", "MEGAGUARDS_DEVICE": "auto"})
        # Detached, never waited for: dropping a running Popen would make the user's program
        # show "ResourceWarning: subprocess N is still running" (python -W default).
        child.returncode = 0
    except OSError as error:
        log.info("could not start the background calibration: %s", error)
        return False
    finally:
        os.close(descriptor)
    log.info("no calibration for this machine yet: `megaguards calibrate` started in the background")
    import atexit

    atexit.register(announce_calibration)   # after the program's own output, on a terminal
    return True


def announce_calibration(stream=None) -> None:
    """At the end of the run that started the background calibration: one line saying so,
    on a terminal only (a program's captured stderr stays CPython's)."""
    from .status import interactive

    stream = sys.stderr if stream is None else stream
    if not interactive(stream):
        return
    try:
        stream.write("megaguards: this machine's first run under auto started `megaguards calibrate` in the "
                     "background (once, about 20 s at low priority) to measure its devices; `megaguards info` "
                     "says when it is done; MEGAGUARDS_AUTO_CALIBRATE=0 turns it off\n")
    except (OSError, ValueError):   # closed or replaced by the program
        pass
