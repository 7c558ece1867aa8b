"""What auto's device choice pays at a process's start (runtime/select.py): OpenMP's thread
team, loading a loop's all-cores kernel, CUDA's start-up in the background, and a failing
all-cores kernel."""
from __future__ import annotations

import json

import numpy
import pytest

import megaguards
from conftest import choices_of, scale_rows, write_calibration
from megaguards import config
from megaguards.runtime import costmodel, process, select


def test_all_cores_wait_until_one_thread_has_cost_openmp_start_up(auto, fresh_process, monkeypatch):
    """Rent or buy: a process whose OpenMP threads are not started runs the kernels chosen
    for all cores on one thread until OPENMP_STARTUP_SECONDS were spent that way."""
    fresh_process.openmp_started = False
    monkeypatch.setattr(select, "OPENMP_STARTUP_SECONDS", 0.05)
    monkeypatch.setattr(select, "RECHECK_EVERY", 10**9)   # no re-try of all cores meanwhile
    write_calibration(auto, seq_work=1e-9, cpu_work=1e-12)   # all cores predicted far faster; both tiny
    function = megaguards.jit(scale_rows)
    a = numpy.ones((16, 16))
    b = numpy.zeros((16, 16))
    function(a, b, 16, 16)
    [choice] = choices_of(function)
    assert choice.last_device == "seq" and "OpenMP's threads are not started" in choice.last["why"]
    assert numpy.array_equal(b, 2 * a + 1)
    entries = 1
    while fresh_process.one_thread_seconds < 0.05:
        function(a, b, 16, 16)
        entries += 1
        assert choice.last_device == "seq"
        assert entries < 10**6
    function(a, b, 16, 16)   # the rent is paid: this size is decided again, for all cores
    assert choice.last_device == "cpu" and fresh_process.openmp_started
    function(a, b, 16, 16)
    assert choice.last_device == "cpu"


def test_an_entry_expected_to_take_longer_than_openmp_start_up_goes_to_all_cores(auto, fresh_process):
    fresh_process.openmp_started = False
    write_calibration(auto, seq_work=1.0, cpu_work=1e-9)   # one thread predicted to take seconds
    function = megaguards.jit(scale_rows)
    function(numpy.ones((16, 16)), numpy.zeros((16, 16)), 16, 16)
    [choice] = choices_of(function)
    assert choice.last_device == "cpu" and fresh_process.openmp_started


def test_started_openmp_goes_to_all_cores_at_once(auto, fresh_process):
    fresh_process.openmp_started = True
    write_calibration(auto, seq_work=1.0, cpu_work=1e-9)
    function = megaguards.jit(scale_rows)
    function(numpy.ones((16, 16)), numpy.zeros((16, 16)), 16, 16)
    [choice] = choices_of(function)
    assert choice.last_device == "cpu"


def test_a_loop_keeps_to_one_thread_until_it_has_paid_for_loading_its_all_cores_kernel(auto, monkeypatch):
    """Rent or buy per loop: with OpenMP's threads up, a loop chosen for all cores still runs
    on one thread, its all-cores kernel not loaded, until it has spent PARALLEL_LOAD_SECONDS
    there."""
    monkeypatch.setattr(select, "PARALLEL_LOAD_SECONDS", 0.02)
    monkeypatch.setattr(select, "RECHECK_EVERY", 10**9)
    write_calibration(auto, seq_work=1e-9, cpu_work=1e-12)   # all cores predicted far faster; both tiny
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((16, 16)), numpy.zeros((16, 16))
    function(a, b, 16, 16)
    [choice] = choices_of(function)
    entries = 1
    while choice.rented < 0.02:
        assert choice.last_device == "seq" and "loading its all-cores kernel" in choice.last["why"]
        assert choice.parallel_factory is not None and choice.sequential is None   # not loaded
        function(a, b, 16, 16)
        entries += 1
        assert entries < 10**6
    function(a, b, 16, 16)   # paid: this size is decided again, for all cores
    assert choice.last_device == "cpu" and choice.sequential is not None
    assert numpy.array_equal(b, 2 * a + 1)


def test_a_loop_expected_to_pay_for_its_all_cores_kernel_at_once_loads_it(auto, monkeypatch):
    monkeypatch.setattr(select, "PARALLEL_LOAD_SECONDS", 0.02)
    write_calibration(auto, seq_work=1.0, cpu_work=1e-9)   # one thread predicted to take seconds
    function = megaguards.jit(scale_rows)
    function(numpy.ones((16, 16)), numpy.zeros((16, 16)), 16, 16)
    [choice] = choices_of(function)
    assert choice.last_device == "cpu"


class FakeGpu:
    """Stands in for a GPU specialization on machines without one: runs the CPU kernel."""

    def __init__(self, choice):
        self.choice, self.runs = choice, 0

    def run(self, binding):
        self.runs += 1
        return self.choice.cpu.run(binding)


def gpu_choice(auto, monkeypatch, cpu_entry: float):
    """A DeviceChoice whose GPU the model predicts free and its CPUs at cpu_entry seconds,
    CUDA not up; warmup's thread replaced by a flag the test sets."""
    (auto / costmodel.CALIBRATION_FILE).write_text(json.dumps({
        "date": "2026-11-22", "hardware": {"cpu": "test", "threads": 4},
        "constants": {"seq": {"entry": 2 * cpu_entry}, "cpu": {"entry": cpu_entry}, "cuda": {"entry": 0.0}}}))
    costmodel._load.cache_clear()
    warm = {"started": False, "done": False}
    monkeypatch.setattr(select.warmup, "start", lambda: warm.update(started=True))
    monkeypatch.setattr(select.warmup, "in_progress", lambda: warm["started"])
    monkeypatch.setattr(select.warmup, "done", lambda: warm["done"])
    monkeypatch.setattr(select, "gpu_started", lambda: warm["done"])   # CuPy may be imported by other tests
    monkeypatch.setattr(select.warmup, "note_gpu_used", lambda: None)
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((16, 16)), numpy.zeros((16, 16))
    function(a, b, 16, 16)
    [choice] = choices_of(function)
    fake = FakeGpu(choice)
    choice.gpu_factory = lambda: fake
    choice.decided.clear()
    choice.store.times.clear()   # the entry before the GPU was attached measured the CPU only
    # With a real GPU here the first entry could already choose CUDA (and build it) or rent the
    # CPU: start afresh, with the stand-in as the only GPU
    choice.gpu = None
    choice.awaiting_gpu.clear()
    process.current().gpu_rent_lost = 0.0
    warm.update(started=False)
    return (lambda: function(a, b, 16, 16)), choice, fake, warm


def test_the_cpu_runs_until_it_has_lost_cuda_start_up_then_cuda_starts_in_the_background(auto, monkeypatch):
    monkeypatch.setattr(select, "GPU_STARTUP_SECONDS", 0.05)
    call, choice, fake, warm = gpu_choice(auto, monkeypatch, cpu_entry=0.01)   # 10 ms lost per entry
    for entry in range(4):
        call()
        assert choice.last_device == "cpu" and not warm["started"], entry
        assert "on the CPU (cpu 10 ms, seq 20 ms) until the CPU has lost CUDA's start-up time" in choice.last["why"]
    assert process.current().gpu_rent_lost == pytest.approx(0.04)
    call()   # 50 ms lost: CUDA starts in the background, this entry still on the CPU
    assert warm["started"] and choice.last_device == "cpu"
    call()
    assert choice.last_device == "cpu" and fake.runs == 0
    warm["done"] = True
    call()   # CUDA is up: the size is decided again, and the GPU predicted fastest runs it
    assert choice.last_device == "cuda" and fake.runs == 1
    assert choice.last["why"].startswith("cost model")
    call()
    assert choice.last_device == "cuda" and fake.runs == 2


def test_an_entry_losing_more_than_cuda_start_up_waits_for_cuda(auto, monkeypatch):
    monkeypatch.setattr(select, "GPU_STARTUP_SECONDS", 0.05)
    monkeypatch.setattr(select, "GPU_WAIT_SECONDS", 0.15)
    call, choice, fake, warm = gpu_choice(auto, monkeypatch, cpu_entry=0.2)
    call()
    assert choice.last_device == "cuda" and fake.runs == 1 and not warm["started"]


def test_an_entry_losing_less_than_cuda_start_up_runs_on_the_cpu_while_cuda_starts(auto, monkeypatch):
    """Between the background trigger and the whole start-up: this entry on the CPU, CUDA
    starting behind it; the GPU takes the next entry once it is up."""
    monkeypatch.setattr(select, "GPU_STARTUP_SECONDS", 0.05)
    monkeypatch.setattr(select, "GPU_WAIT_SECONDS", 0.5)
    call, choice, fake, warm = gpu_choice(auto, monkeypatch, cpu_entry=0.2)
    call()
    assert choice.last_device == "cpu" and fake.runs == 0 and warm["started"]
    warm["done"] = True
    call()
    assert choice.last_device == "cuda" and fake.runs == 1


def test_one_core_kernel_first_and_the_all_cores_kernel_when_first_chosen(auto):
    """Under auto a parallel loop is compiled without OpenMP first; its parallel twin is
    rendered and compiled at the first entry sent to all cores, and one core keeps the first."""
    function = megaguards.jit(scale_rows)
    a = numpy.arange(256.0).reshape(16, 16)
    config.configure(select="seq")
    b = numpy.zeros((16, 16))
    function(a, b, 16, 16)
    [choice] = choices_of(function)
    assert numpy.array_equal(b, 2 * a + 1) and choice.last_device == "seq"
    assert choice.cpu.parallel_depth == 0 and choice.sequential is None
    assert choice.parallel_factory is not None and "omp" not in choice.explanation.source
    config.configure(select="cpu")
    b = numpy.zeros((16, 16))
    function(a, b, 16, 16)
    assert numpy.array_equal(b, 2 * a + 1) and choice.last_device == "cpu"
    assert choice.cpu.parallel_depth == 1 and choice.sequential.parallel_depth == 0
    assert "omp" in choice.explanation.source and choice.cpu.seconds is choice.sequential.seconds
    assert choice.cpu.plan is choice.sequential.plan   # the same layout: its marshalling plan is shared
    assert choice.cpu.kernel_address != choice.sequential.kernel_address
    config.configure(select="seq")
    b = numpy.zeros((16, 16))
    function(a, b, 16, 16)
    assert numpy.array_equal(b, 2 * a + 1) and choice.last_device == "seq"


def test_an_all_cores_kernel_that_fails_leaves_one_core(auto, monkeypatch):
    from megaguards.errors import Unsupported

    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((16, 16)), numpy.zeros((16, 16))
    config.configure(select="seq")
    function(a, b, 16, 16)
    [choice] = choices_of(function)

    def broken():
        raise Unsupported("generated C did not compile (a megaguards bug): test")

    choice.parallel_factory = broken
    config.configure(select="cpu")
    function(a, b, 16, 16)
    assert numpy.array_equal(b, 2 * a + 1) and choice.cpu.parallel_depth == 0
    assert "seq" not in choice.devices()
    assert any("parallel kernel failed" in line for line in choice.explanation.parallel)
