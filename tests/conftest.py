"""Shared fixtures: an isolated kernel cache per test session, and helpers to run
code through megaguards and read the per-loop report."""
from __future__ import annotations

import contextlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from megaguards import config
from megaguards.runtime import costmodel, process, select
from megaguards.runtime.site import REGISTRY


@pytest.fixture(scope="session", autouse=True)
def kernel_cache(tmp_path_factory):
    """Compiled kernels go to a per-session folder, shared by tests and subprocesses.

    Tests compile every loop at its first entry and run parallel loops even when tiny (no
    work thresholds: tests/test_tiering.py tests the default one), so the compiled and the
    OpenMP code are exercised, with the default exact float reductions (tests of MEGAGUARDS_REASSOCIATE
    turn it on explicitly).  ``auto`` keeps the CPU's
    parallel kernel on all cores (no device prediction, no background calibration):
    tests of the device choice set ``select`` themselves (tests/test_selection.py)."""
    folder = tmp_path_factory.mktemp("kernel-cache")
    os.environ.update(MEGAGUARDS_CACHE_DIR=str(folder), MEGAGUARDS_PARALLEL_WORK="0",
                      MEGAGUARDS_SELECT="cpu", MEGAGUARDS_AUTO_CALIBRATE="0", MEGAGUARDS_COMPILE_AFTER="0")
    config.configure(cache_dir=folder, parallel_work=0, select="cpu", auto_calibrate=False, compile_after=0)
    return folder


@contextlib.contextmanager
def device_set(device: str):
    """megaguards' device (``config.configure(device=...)``) for the ``with`` block."""
    previous = config.current().device
    config.configure(device=device)
    try:
        yield
    finally:
        config.configure(device=previous)


@pytest.fixture
def cpu_device():
    """The CPU's parallel loops, also where a GPU is present (``pytest.mark.usefixtures``)."""
    with device_set("cpu"):
        yield


def run_megaguards(*arguments, cwd=None, env=None, timeout=120) -> subprocess.CompletedProcess:
    """``python -m megaguards <arguments>`` in a subprocess."""
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "megaguards", *map(str, arguments)], cwd=cwd,
                          env=environment, capture_output=True, text=True, timeout=timeout)


def run_python(script, *arguments, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *map(str, arguments)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def site_for(function):
    """The report entries of the loop sites inside a function compiled by megaguards.jit."""
    return list(site_records(function).values())


def site_records(function) -> dict:
    """The report entries of the loop sites inside ``function``, by site identity."""
    from megaguards.runtime.site import REGISTRY
    from megaguards.diagnostics.report import loop_record

    code = getattr(function, "__wrapped__", function).__code__
    last = code.co_firstlineno + len(__import__("inspect").getsourcelines(code)[0])
    return {id(site): loop_record(site) for site in REGISTRY.sites if site.stats.entries
            and site.info.filename == code.co_filename and code.co_firstlineno <= site.info.line < last}


def sites_of(function) -> list:
    """The report entries of the loop sites of this very jitted function (not of other
    jits of the same source), outermost loop first."""
    from megaguards.diagnostics.report import loop_record

    site_ids = function.__megaguards_sites__
    return sorted((loop_record(site) for site in REGISTRY.sites if site.id in site_ids),
                  key=lambda record: record["line"])


ROOT = Path(__file__).resolve().parent.parent


def outcome(function, arguments):
    """(return value or exception (type, message), arguments afterwards), as comparable data."""
    import copy

    arguments = copy.deepcopy(arguments)
    try:
        result = ("returned", function(*arguments))
    except Exception as error:  # the exception itself is what we compare
        result = ("raised", type(error).__name__, str(error))
    return _comparable(result), _comparable(arguments)


def _comparable(value):
    import numpy

    if isinstance(value, numpy.ndarray):
        return ("ndarray", str(value.dtype), value.shape, value.tobytes())
    if isinstance(value, float):
        return ("float", value.hex()) if value == value else ("float", "nan", math.copysign(1.0, value))
    if type(value) is complex:  # NaN parts compare unequal: compare the parts' forms
        return ("complex", _comparable(value.real), _comparable(value.imag))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_comparable(v) for v in value))
    if isinstance(value, numpy.generic):
        return (type(value).__name__, _comparable(value.item()))
    return (type(value).__name__, value)


def assert_same_as_cpython(function, *arguments, compiled=True):
    """Run ``function`` plainly and through megaguards.jit; results, exceptions and the
    arguments' final state must be identical; ``compiled`` says whether the compiled
    path must have run (True), must not have (False), or either (None); a string says
    that a site fell back, without running compiled, for a reason containing it (the
    loop's body may still hold other sites that compiled, run by CPython)."""
    import megaguards

    fast = megaguards.jit(function)
    before = site_records(fast)
    expected = outcome(function, arguments)
    actual = outcome(fast, arguments)
    assert actual == expected
    after = site_records(fast)
    sites = list(after.values())

    def more(key, field):
        return after[key][field] - before.get(key, {}).get(field, 0)
    compiled_now = sum(more(key, "compiled_runs") for key in after)
    if compiled is True:
        assert compiled_now > 0, [s["reasons"] for s in sites]
    elif compiled is False:
        assert compiled_now == 0
    elif isinstance(compiled, str):
        fell_back = [key for key in after if more(key, "fallback_runs") > 0
                     and any(compiled in reason for reason in after[key]["reasons"])]
        assert fell_back, (compiled, [s["reasons"] for s in sites])
        assert all(more(key, "compiled_runs") == 0 for key in fell_back), [after[k] for k in fell_back]
    return fast


# -- device choice under auto (test_selection.py, test_selection_startup.py, test_features.py, test_surprise.py) --

@pytest.fixture
def fresh_process():
    """The runtime's per-process state (runtime/process.py) as in a process just started;
    the test's own process is back afterwards."""
    with process.fresh() as state:
        yield state


@pytest.fixture
def auto(tmp_path, monkeypatch, fresh_process):
    """device=auto with the prediction on, in a private cache (no decisions carried over)
    and a fresh process, OpenMP's threads taken as started and all-cores kernels as free to
    load (the one-thread rentals have tests of their own)."""
    fresh_process.openmp_started = True
    monkeypatch.setattr(select, "PARALLEL_LOAD_SECONDS", 0.0)
    saved = config.current()
    config.configure(device="auto", select="model", cache_dir=tmp_path, parallel_work=0)
    costmodel._load.cache_clear()
    yield tmp_path
    config.configure(device=saved.device, select=saved.select, cache_dir=saved.cache_dir,
                     parallel_work=saved.parallel_work)
    costmodel._load.cache_clear()


def scale_rows(a, b, n, m):
    """A parallel nest over NumPy arrays: the selection tests' loop."""
    for i in range(n):
        for j in range(m):
            b[i, j] = a[i, j] * 2.0 + 1.0


def write_calibration(folder, seq_work: float, cpu_work: float, fork: float = 0.0) -> None:
    """A calibration of one core and of all cores (4 threads) in ``folder``'s cache."""
    (folder / costmodel.CALIBRATION_FILE).write_text(json.dumps({
        "date": "2026-11-22", "hardware": {"cpu": "test", "threads": 4},
        "constants": {"seq": {"work": seq_work, "list_elements": 0.0, "entry": 0.0},
                      "cpu": {"work_per_thread": cpu_work, "parallel_entries": fork, "list_elements": 0.0,
                              "entry": 0.0}}}))
    costmodel._load.cache_clear()


def choices_of(function) -> list:
    """The DeviceChoices of the loop sites of this very jitted function."""
    site_ids = function.__megaguards_sites__
    return [s for site in REGISTRY.sites if site.id in site_ids
            for s in site.compiled if isinstance(s, select.DeviceChoice)]


class TreeSaying:
    """A stand-in for the learned tree that always chooses ``device``."""

    trained_on = "a test tree"

    def __init__(self, device: str) -> None:
        self.device = device

    def choose(self, values):
        return self.device


def entry_features(parallel_entries: int = 1):
    """The features of an entry of 10^6 work: 10 parallel trips, forked ``parallel_entries`` times."""
    from megaguards.analysis.features import KINDS, Features

    return Features(1e6, dict.fromkeys(KINDS, 1.0), 10, parallel_entries, 0, 0, 1.0, 0, 0, 0.0)


# -- the GPU path without a GPU (test_cuda_emulation.py, test_interpreter.py) ------------

@pytest.fixture
def emulator(monkeypatch):
    """device=gpu with CuPy faked by tests/cuda_emulator.py: kernels run as C++ on the CPU."""
    import cuda_emulator

    missing = cuda_emulator.toolchain_missing()
    if missing:
        pytest.skip(f"CUDA emulation needs g++ with OpenMP: {missing}")
    emulated = cuda_emulator.install(monkeypatch)
    previous = config.current().device
    config.configure(device="gpu")
    yield emulated
    config.configure(device=previous)
    cuda_emulator.uninstall()
    assert not emulated.errors   # raised inside a loop site, megaguards would have hidden them


@pytest.fixture
def cuda_device(request):
    """device=gpu on the real GPU where there is one, else on the emulator."""
    from megaguards.runtime import cuda

    if cuda.cupy_module() is None:
        yield request.getfixturevalue("emulator")
        return
    previous = config.current().device
    config.configure(device="gpu")
    yield None
    config.configure(device=previous)


@pytest.fixture
def no_speed_probes(monkeypatch):
    """Loop sites never compare their compiled entries with CPython's (runtime/probe.py): a
    test entering a small loop many times sees every entry compiled."""
    from megaguards.runtime import probe

    monkeypatch.setattr(probe, "PROBE_AFTER", 1 << 40)
