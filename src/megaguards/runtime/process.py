"""What the runtime remembers for the rest of this process, in one object.

Facts about the process itself, not about one loop: whether OpenMP's thread team is up,
what the CPU has lost while CUDA was not, the CUDA warm-up thread, measured times not yet
written, what was logged or warned once.  ``PROCESS`` is created at import; the modules
read it through ``current()`` (once or twice per entry of a device choice, about 10 ns
more each than the module dicts it replaces) and none keeps a copy, so a test that needs
another process installs a new one with ``fresh()`` instead of patching module privates.

Left where they are, being caches rather than state (a fresh process would only redo
the work): the ``functools.lru_cache``s (compiler, calibration, tree, CuPy), the loaded
shared objects (``compiler.py``: the dynamic loader keeps one copy per process anyway).
Also left: the site registry (``site.py``), whose ids are written into rewritten code
and whose ``dispatch`` is a built-in, so it must outlive any stand-in process; and the
options (``config.py``), which have their own ``configure()``.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator


# Every field with its default: a value, or a callable making a fresh one (a set, a dict).
_FIELDS = {
    # -- OpenMP (select.py): its first parallel region starts the thread team; until then a
    # kernel chosen for all cores runs on one thread while that stays cheaper (rent or buy).
    "openmp_started": False,
    "one_thread_seconds": 0.0,    # spent on one thread while renting, toward OPENMP_STARTUP_SECONDS

    # -- CUDA's start-up (select.py, warmup.py)
    "gpu_rent_lost": 0.0,         # seconds entries lost on the CPU for want of CUDA, toward GPU_STARTUP_SECONDS
    "warmup_thread": None,        # threading.Thread: imports CuPy, creates the context; None: not started
    "script_mark": None,          # Path, under auto at `megaguards run`: the script's "used the GPU" mark
    "gpu_used": False,            # under auto: the GPU ran an entry (the mark is written once)

    # -- calibration (calibrate.py, costmodel.py)
    "observer": None,             # called with (choice, device, seconds) after each entry
    "calibration_tried": False,   # costmodel.calibrate_in_background ran (every loop's first entry asks)

    # -- measured decisions (decisions.py)
    "unsaved_stores": set,        # DecisionStores with times to write at exit
    "listed_folders": dict,       # decisions folder -> the file names in it

    # -- a C compiler that hung or did not run (backend.unusable): no loop tries it again
    "compiler_unusable": False,

    # -- the cache folder checked for this process (cachefile.usable_cache): the one in use
    "cache_checked": None,

    # -- keep the faster (probe.py): CPython's runs of loop sites being timed, and until when
    # the loop sites entered meanwhile are inside one (and run in CPython too)
    "open_probes": list,   # the sites
    "probe_nested_until": 0.0,
    # -- tiering.py: the Tierings whose entry CPython runs timed (work not told), oldest first
    "open_timings": list,

    # -- the first entry of a loop site (site.first_loop_entry); the first specialization
    # (site.back_end): the back end imported, the device choice's data read
    "loop_entered": False,
    "back_end_loaded": False,

    # -- tiering.py: (file, first line, last line) of the loops estimated worth compiling
    "hot_loops": list,

    # -- the rewrite cache (rewrites.py): modules loaded from it, rewritten, written; entries ignored
    "rewrites": lambda: {"hits": 0, "misses": 0, "stored": 0, "damaged": 0},

    # -- log_setup.configure_logging_later: the level of the command line's handler, until logging is imported
    "log_pending": None,

    # -- multiprocessing's children (workers.py): the settings they start with, the folder
    # their loop records go to (None: no report), a forked child's records at the fork
    "workers": None,
    # a multiprocessing child's SIGTERM watch: (read end, write end, lock, folder)
    "sigterm_watch": None,

    # -- said once
    "features_logged": dict,      # (kernel key, bucket) -> lines in MEGAGUARDS_FEATURES_LOG
    "warned": set,                # MegaguardsWarning messages (or keys: settings) already shown
    "preparing": None,            # the SiteInfo of the loop being specialized: its warnings name it
    "reports_at_exit": False,     # the loop reports the settings ask for are written at exit (report.py)
}


class Process:
    """The fields of ``_FIELDS``, as keywords.  Slots: a misspelt field raises instead of
    adding one.  Not a dataclass: importing ``dataclasses`` costs about 8 ms that a script
    entering no loop must not pay."""

    __slots__ = tuple(_FIELDS)

    def __init__(self, **fields) -> None:
        unknown = sorted(fields.keys() - _FIELDS.keys())
        if unknown:
            raise TypeError(f"Process() got unexpected field(s): {', '.join(unknown)}")
        for name, default in _FIELDS.items():
            setattr(self, name, fields[name] if name in fields else default() if callable(default) else default)

    def __repr__(self) -> str:
        return f"Process({', '.join(f'{name}={getattr(self, name)!r}' for name in _FIELDS)})"


PROCESS = Process()


def current() -> Process:
    return PROCESS


@contextlib.contextmanager
def fresh(process: Process | None = None) -> Iterator[Process]:
    """Run the block as another process would (tests): ``process`` (a new one by default)
    is current inside and the previous one again after.  What the block's process left
    unsaved is dropped, as by a process killed; ``decisions.save_all()`` ends it as an exit."""
    global PROCESS
    previous, PROCESS = PROCESS, Process() if process is None else process
    try:
        yield PROCESS
    finally:
        PROCESS = previous
