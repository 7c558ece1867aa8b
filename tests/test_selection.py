"""Choosing the device before running (runtime/select.py): features evaluated at the
entry, the calibrated cost model, the learned tree, decisions kept on disk, explain."""
from __future__ import annotations

import io
import json
import math
import os
import types
from pathlib import Path
from types import SimpleNamespace

import numpy
import pytest

import megaguards
from conftest import TreeSaying, choices_of, entry_features, scale_rows, write_calibration
from megaguards import MegaguardsWarning, config
from megaguards.analysis.features import FEATURE_NAMES, Features, KINDS
from megaguards import calibrate
from megaguards.runtime import backend, costmodel, cuda, process, select, selector
from megaguards.runtime.site import REGISTRY


def test_features_count_the_whole_nest_from_the_entry_sizes(auto):
    write_calibration(auto, 1e-9, 1e-9)
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((30, 40)), numpy.zeros((30, 40))
    function(a, b, 30, 40)
    assert (b == 3.0).all()
    [choice] = choices_of(function)
    found = choice.last["features"]
    assert found.parallel_trips == 30 and found.parallel_entries == 1
    assert found.inner_trips == 40
    assert found.counts["store"] == 30 * 40 and found.counts["load"] == 30 * 40
    assert found.counts["float"] == 2 * 30 * 40
    assert found.bytes == a.nbytes + 2 * b.nbytes   # b is written: it travels both ways
    assert found.list_elements == 0
    assert len(found.vector()) == len(FEATURE_NAMES)


def test_the_cost_model_picks_one_thread_when_threads_cost_more(auto):
    write_calibration(auto, seq_work=1e-9, cpu_work=1e-9, fork=1.0)   # forking costs a second
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((8, 8)), numpy.zeros((8, 8))
    function(a, b, 8, 8)
    [choice] = choices_of(function)
    assert choice.last_device == "seq" and "cost model" in choice.last["why"]
    assert choice.last["predicted"]["seq"] < choice.last["predicted"]["cpu"]
    assert (b == 3.0).all()


def test_the_cost_model_picks_all_cores_for_big_work(auto):
    write_calibration(auto, seq_work=1e-6, cpu_work=1e-6, fork=0.0)
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((64, 64)), numpy.zeros((64, 64))
    function(a, b, 64, 64)
    [choice] = choices_of(function)
    assert choice.last_device == "cpu"
    assert "device: cpu, chosen by cost model" in "\n".join(choice.describe())


def test_measured_times_persist_and_decide_in_the_next_process(auto, tmp_path):
    from megaguards.runtime.decisions import DecisionStore

    write_calibration(auto, seq_work=1e-9, cpu_work=1e-9, fork=1.0)
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((16, 16)), numpy.zeros((16, 16))
    function(a, b, 16, 16)
    [choice] = choices_of(function)
    size = choice.last["bucket"]
    from megaguards.runtime import decisions

    decisions.save_all()   # what the process's exit does
    stored = DecisionStore(choice.key)
    assert list(stored.times[size]) == ["seq"]
    # A later process measured all cores as far faster at this size: it wins from then on,
    # although the model still predicts one thread.
    stored.times[size]["cpu"] = [1e-9]
    stored.save()
    again = megaguards.jit(scale_rows)
    again(a, numpy.zeros((16, 16)), 16, 16)
    [fresh] = choices_of(again)
    assert fresh.last_device == "cpu" and fresh.last["why"].startswith("measured before")


def test_measured_decides_and_an_untried_device_is_tried_every_eighth_process(auto):
    from megaguards.runtime import decisions
    from megaguards.runtime.decisions import DecisionStore

    write_calibration(auto, seq_work=1e-9, cpu_work=1e-9, fork=1.0)   # predicts seq
    function = megaguards.jit(scale_rows)
    a = numpy.ones((16, 16))
    function(a, numpy.zeros((16, 16)), 16, 16)
    [choice] = choices_of(function)
    decisions.save_all()   # this "process" ends before the next ones start
    size = choice.last["bucket"]
    stored = DecisionStore(choice.key)
    stored.times = {size: {"cpu": [5.0]}}   # only all cores measured so far, in one process
    stored.visits = {size: 1}
    stored.save()

    def next_process():
        again = megaguards.jit(scale_rows)
        again(a, numpy.zeros((16, 16)), 16, 16)
        [fresh] = choices_of(again)
        decisions.save_all()   # what the process's exit does
        return fresh

    for visit in range(2, select.EXPLORE_EVERY):   # the measured device, though seq is predicted
        fresh = next_process()
        assert fresh.last_device == "cpu" and fresh.last["why"].startswith("measured before"), visit
        stored = DecisionStore(choice.key)
        stored.times[size]["seq"] = []   # keep seq unmeasured for the next process
        stored.times[size]["cpu"] = [5.0]
        stored.save()
    fresh = next_process()
    assert fresh.last_device == "seq" and "not yet measured" in fresh.last["why"]
    assert DecisionStore(choice.key).visits[size] == select.EXPLORE_EVERY


def test_forced_and_explore_methods(auto):
    function = megaguards.jit(scale_rows)
    a = numpy.ones((16, 16))
    gpu = "cuda" if cuda.cupy_module() is not None else "cpu"   # without a GPU, cuda falls to cpu
    for method, expected in (("seq", "seq"), ("cpu", "cpu"), ("cuda", gpu)):
        config.configure(select=method)
        function(a, numpy.zeros((16, 16)), 16, 16)
        [choice] = choices_of(function)
        assert choice.last_device == expected
    config.configure(select="explore")
    function = megaguards.jit(scale_rows)
    used = []
    for _ in range(3):
        function(a, numpy.zeros((16, 16)), 16, 16)
        used.append(choices_of(function)[0].last_device)
    assert used[:2] == ["seq", "cpu"]          # every device once, then the faster


def test_select_setting_is_validated():
    with process.fresh(), pytest.warns(MegaguardsWarning, match="MEGAGUARDS_SELECT='fastest' is not one of tree, "):
        assert config.from_environment({"MEGAGUARDS_SELECT": "fastest"}).select == "tree"


def test_fit_recovers_known_constants():
    rows = []
    for work in (1e4, 1e5, 1e6, 1e7):
        for elements in (0, 1e3, 1e5):
            found = Features(work, dict.fromkeys(KINDS, 0.0), 0, 1, 0, 0, 1.0, 0, int(elements), 0.0)
            rows.append((found, 2e-9 * work + 5e-9 * elements + 1e-5, 4))
    constants, error = costmodel.fit(rows, "seq")
    assert constants["work"] == pytest.approx(2e-9, rel=1e-3)
    assert constants["list_elements"] == pytest.approx(5e-9, rel=1e-3)
    assert constants["entry"] == pytest.approx(1e-5, rel=1e-3)
    assert error < 1e-3


def test_model_terms_count_the_busiest_core_and_one_gpu_thread():
    """A parallel loop of 8 iterations keeps 8 of 16 cores busy and one of 17 leaves one
    core two iterations; a GPU band of 4 threads runs a quarter of the work per thread."""
    def features(parallel_trips, band_trips):
        return Features(1600.0, dict.fromkeys(KINDS, 0.0), parallel_trips, 1, band_trips, 1, 1.0, 0, 0, 1.0)

    def term(found, device, name):
        return dict(zip(costmodel.TERMS[device], costmodel.terms(found, device, 16)))[name]

    assert term(features(8, 0), "cpu", "work_per_thread") == pytest.approx(1600.0 / 8)
    assert term(features(16, 0), "cpu", "work_per_thread") == pytest.approx(1600.0 / 16)
    assert term(features(17, 0), "cpu", "work_per_thread") == pytest.approx(1600.0 * 2 / 17)
    assert term(features(0, 0), "cpu", "work_per_thread") == pytest.approx(1600.0 / 16)   # unknown trips
    assert term(features(64, 4), "cuda", "thread_work") == pytest.approx(1600.0 / 4)
    assert term(features(64, 1 << 20), "cuda", "thread_work") == pytest.approx(1600.0 / (1 << 20))


def test_tree_is_walked_without_scikit_learn(tmp_path):
    path = tmp_path / "tree.json"
    path.write_text(json.dumps({"feature": [0, -1, -1], "threshold": [10.0, 0, 0], "left": [1, -1, -1],
                                "right": [2, -1, -1], "label": ["cpu", "seq", "cuda"],
                                "inputs": ["log_work"], "trained_on": "test"}))
    tree = selector.load(str(path))
    assert tree.choose([3.0]) == "seq" and tree.choose([30.0]) == "cuda"
    found = entry_features()
    values = selector.inputs(found)
    assert values == tuple(found.vector()) and values[0] == pytest.approx(math.log2(1e6 + 1))
    assert len(values) == len(selector.load().inputs)   # the shipped tree reads these inputs


def test_the_cost_model_gates_the_trees_cuda():
    """The tree's cuda stands only where the model predicts the GPU CUDA_MARGIN times
    faster than the better CPU device; otherwise that device runs."""
    margin = selector.CUDA_MARGIN
    assert selector.gate("cuda", {"seq": 8.0, "cpu": 2.0 * margin, "cuda": 2.0}) == "cuda"
    assert selector.gate("cuda", {"seq": 8.0, "cpu": 1.9 * margin, "cuda": 2.0}) == "cpu"
    assert selector.gate("cuda", {"seq": 3.0, "cpu": 5.0, "cuda": 2.0}) == "seq"
    assert selector.gate("seq", {"seq": 3.0, "cpu": 5.0, "cuda": 0.5}) == "seq"   # the GPU not far ahead
    assert selector.gate("cuda", {"cuda": 1.0}) == "cuda"   # nothing to compare with


def test_a_gpu_far_ahead_in_the_model_overrules_the_trees_cpu(auto, monkeypatch):
    """The tree's seq or cpu gives way where the model predicts the GPU GPU_CLEAR_WIN times
    faster than every CPU device (nbody's time-step region, large: the tree's cpu
    predicted 6.3 s, the GPU 36 ms)."""
    win = selector.GPU_CLEAR_WIN
    assert selector.gate("cpu", {"seq": 37.0, "cpu": 6.3, "cuda": 0.036}) == "cuda"
    assert selector.gate("seq", {"seq": 1.0 * win, "cpu": 5.0 * win, "cuda": 1.0}) == "cuda"
    assert selector.gate("seq", {"seq": 0.99 * win, "cpu": 5.0 * win, "cuda": 1.0}) == "seq"
    assert selector.gate("cpu", {"seq": 5.0, "cpu": 6.3}) == "cpu"   # no GPU variant
    monkeypatch.setattr(selector, "load", lambda: TreeSaying("cpu"))
    device, why = select.DeviceChoice.predict("tree", entry_features(), {"seq": 37.0, "cpu": 6.3, "cuda": 0.036},
                                              ("seq", "cpu", "cuda"))
    assert device == "cuda" and f"predicts the GPU at least {win:g}x faster" in why


def test_a_device_the_kernel_lacks_falls_to_the_cost_model():
    """The tree's cuda for a kernel without a GPU variant: the model's fastest available
    device runs (the training report evaluates the tree the same way)."""
    found = entry_features()
    predicted = {"seq": 3.0, "cpu": 1.0}
    assert selector.decide(TreeSaying("cuda"), found, predicted, ("seq", "cpu")) == ("cpu", "model")
    assert selector.decide(TreeSaying("cuda"), found, {"seq": 3.0, "cpu": 1.0, "cuda": 0.1},
                           ("seq", "cpu", "cuda")) == ("cuda", "tree")
    assert selector.decide(None, found, {}, ("seq", "cpu")) == ("cpu", "widest")


def test_the_cost_model_gates_the_trees_cpu_for_a_kernel_forking_many_regions():
    """The tree cannot see how often a kernel forks; from FORK_GATE_REGIONS forks an entry
    the model's one core stands against the tree's all cores."""
    many = selector.FORK_GATE_REGIONS
    assert selector.gate("cpu", {"seq": 1.0, "cpu": 2.0}, regions=many) == "seq"
    assert selector.gate("cpu", {"seq": 1.0, "cpu": 2.0}, regions=many - 1) == "cpu"   # few forks: the tree
    assert selector.gate("cpu", {"seq": 3.0, "cpu": 2.0}, regions=many) == "cpu"       # the model agrees
    assert selector.gate("cpu", {"cpu": 2.0}, regions=many) == "cpu"                   # no one-core kernel


def test_a_forking_kernels_gated_cpu_says_why(auto, monkeypatch):
    monkeypatch.setattr(selector, "load", lambda: TreeSaying("cpu"))
    device, why = select.DeviceChoice.predict("tree", entry_features(parallel_entries=256), {"seq": 1.0, "cpu": 2.0}, ("seq", "cpu"))
    assert device == "seq" and "forks 256 parallel regions an entry" in why


def test_a_gated_cuda_says_why(auto, monkeypatch):
    """The tree says cuda, the model predicts the GPU slower: the CPU runs, and why says so."""
    monkeypatch.setattr(selector, "load", lambda: TreeSaying("cuda"))
    found = entry_features()
    device, why = select.DeviceChoice.predict("tree", found, {"seq": 2.0, "cpu": 1.0, "cuda": 0.9},
                                              ("seq", "cpu", "cuda"))
    assert device == "cpu" and "chose cuda, but the cost model predicts it less than 2x faster than cpu" in why
    device, why = select.DeviceChoice.predict("tree", entry_features(parallel_entries=256),
                                              {"seq": 1.0, "cpu": 2.0, "cuda": 0.9}, ("seq", "cpu", "cuda"))
    assert device == "seq" and "chose cuda, but the cost model predicts it less than 2x faster than seq" in why
    device, why = select.DeviceChoice.predict("tree", found, {"seq": 2.0, "cpu": 1.0, "cuda": 0.1},
                                              ("seq", "cpu", "cuda"))
    assert device == "cuda" and why == "decision tree (a test tree)"


def test_shipped_tree_and_calibration_load():
    tree = selector.load()
    if not selector.MODEL.exists():
        pytest.fail("src/megaguards/data/selector.json must ship with the package")
    assert tree is not None and set(tree.label) <= {"seq", "cpu", "cuda"}
    assert costmodel._read(costmodel.DEFAULT, "default") is not None


def test_calibration_fits_and_stores(auto, monkeypatch):
    from megaguards import calibration_loops as loops

    tiny = [("stream", loops.stream, lambda n: (numpy.ones(n), numpy.zeros(n), 1.5, n), [256, 4096, 65536]),
            ("polynomial", loops.polynomial, lambda n: (numpy.ones(n), numpy.zeros(n), n, 8), [256, 4096, 65536])]
    monkeypatch.setattr(calibrate, "shapes", lambda: tiny)
    monkeypatch.setattr(calibrate, "REPEATS", 1)
    calibration, errors, count = calibrate.calibrate()
    devices = {"seq", "cpu"} | ({"cuda"} if cuda.cupy_module() is not None else set())
    assert count == 6 * len(devices)     # 2 shapes x 3 sizes x each device
    assert set(calibration.constants) == devices
    stored = json.loads((auto / costmodel.CALIBRATION_FILE).read_text())
    assert stored["hardware"]["threads"] >= 1 and stored["samples"] == count
    assert costmodel.current().source == "measured"


def test_background_calibration_starts_once(auto, monkeypatch):
    started, children = [], []

    def child(command, **options):   # a child holding the lock (an flock) it was passed, as it runs
        started.append((command, os.dup(options["pass_fds"][0])))
        children.append(types.SimpleNamespace(returncode=None))
        return children[-1]
    import atexit
    import subprocess

    at_exit = []
    monkeypatch.setattr(subprocess, "Popen", child)
    monkeypatch.setattr(atexit, "register", at_exit.append)
    config.configure(auto_calibrate=True)
    try:
        assert costmodel.calibrate_in_background() is True      # auto's process is a fresh one
        assert at_exit == [costmodel.announce_calibration]       # said at exit, on a terminal only
        terminal, captured = io.StringIO(), io.StringIO()
        terminal.isatty = lambda: True
        costmodel.announce_calibration(terminal)
        costmodel.announce_calibration(captured)
        assert "started `megaguards calibrate` in the background" in terminal.getvalue() and not captured.getvalue()
        assert costmodel.calibrate_in_background() is False      # tried once per process
        with process.fresh():                                    # as in another process:
            assert costmodel.calibrate_in_background() is False  # the lock says one is running
        assert len(started) == 1 and started[0][0][-2:] == ["calibrate", "--quiet"]
        assert children[0].returncode == 0   # never waited for: no ResourceWarning when dropped
        write_calibration(auto, 1e-9, 1e-9)
        os.close(started[0][1])                                  # the child ended
        with process.fresh():
            assert costmodel.calibrate_in_background() is False  # calibrated already
    finally:
        config.configure(auto_calibrate=False)


def test_decisions_are_written_at_exit(tmp_path):
    from megaguards.runtime import decisions

    saved = config.current()
    config.configure(cache_dir=tmp_path)
    try:
        store = decisions.DecisionStore("k" * 24)
        for seconds in (0.5, 0.4, 0.3):
            store.record("10", "cpu", seconds)
        assert not Path(store.path).exists()   # times wait for the process's end
        decisions.save_all()
        assert json.loads(Path(store.path).read_text())["buckets"] == {"10": {"cpu": [0.5, 0.4, 0.3]}}
        assert decisions.DecisionStore("k" * 24).best("10") == ("cpu", {"cpu": 0.4})
    finally:
        config.configure(cache_dir=saved.cache_dir)


def test_the_decisions_folder_is_listed_once_per_process(tmp_path, monkeypatch, fresh_process):
    """A kernel without a decisions file reads none: the folder's names are listed at the
    first store, and a file another process writes later waits for the next process."""
    from megaguards.runtime import decisions
    from megaguards.runtime.cachefile import write_json

    listings = []   # fresh_process: nothing listed yet
    listdir = os.listdir
    monkeypatch.setattr(decisions.os, "listdir", lambda folder: listings.append(folder) or listdir(folder))
    saved = config.current()
    config.configure(cache_dir=tmp_path)
    try:
        folder = tmp_path / "decisions"
        write_json(folder / f"{'a' * 24}.json", {"buckets": {"10": {"seq": [0.2]}}, "visits": {"10": 1}})
        assert decisions.DecisionStore("a" * 24).best("10") == ("seq", {"seq": 0.2})
        write_json(folder / f"{'b' * 24}.json", {"buckets": {"10": {"cpu": [0.1]}}, "visits": {"10": 1}})
        assert decisions.DecisionStore("b" * 24).best("10") == (None, {})   # written after the listing
        store = decisions.DecisionStore("c" * 24)
        store.record("10", "cuda", 0.05)
        decisions.save_all()
        assert decisions.DecisionStore("c" * 24).best("10") == ("cuda", {"cuda": 0.05})   # this process's own
        assert listings == [str(folder)]
    finally:
        config.configure(cache_dir=saved.cache_dir)


def test_another_device_is_retried_at_the_64th_entry_of_a_size_then_at_each_doubling(auto, monkeypatch):
    """Verifying now and then costs a run elsewhere and a fresh decision at the next entry:
    its spacing doubles (euler3d small enters one loop 3000 times, at 14 us an entry)."""
    assert [count for count in range(1, 3000) if select.is_recheck(count)] == [64, 128, 256, 512, 1024, 2048]
    monkeypatch.setattr(select, "RECHECK_EVERY", 4)
    write_calibration(auto, seq_work=1.0, cpu_work=1e-9)
    decided_at = []
    decide = select.DeviceChoice.decide
    monkeypatch.setattr(select.DeviceChoice, "decide", lambda self, *args: decided_at.append(self.entries)
                        or decide(self, *args))
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((16, 16)), numpy.zeros((16, 16))
    for _ in range(40):
        function(a, b, 16, 16)
    assert numpy.array_equal(b, 2 * a + 1)
    assert decided_at[0] == 1 and [entry for entry in decided_at if entry > 3] == [5, 9, 17, 33]


def prefix_sums(a, b, n):
    for i in range(1, n):
        b[i] = b[i - 1] + a[i]


def test_a_loop_without_a_parallel_loop_gets_no_device_choice_on_a_gpu_machine(auto, monkeypatch):
    """Neither a GPU band nor a GPU region can hold a loop with no parallel loop in it, so
    under auto it runs as the one-core kernel, without a choice per entry (bfs's frontier
    expansion on the H100 machine paid one for nothing); a parallel loop still gets one."""
    monkeypatch.setattr(backend, "gpu_present", lambda: True)
    a = numpy.arange(32.0)
    scan = megaguards.jit(prefix_sums)
    b = numpy.zeros(32)
    scan(a, b, 32)
    expected = numpy.zeros(32)
    prefix_sums(a, expected, 32)
    assert numpy.array_equal(b, expected)
    [site] = [s for s in REGISTRY.sites if s.id in scan.__megaguards_sites__]
    [compiled] = site.compiled
    assert not isinstance(compiled, select.DeviceChoice) and compiled.parallel_depth == 0
    scale = megaguards.jit(scale_rows)
    scale(numpy.ones((8, 8)), numpy.zeros((8, 8)), 8, 8)
    [choice] = choices_of(scale)
    assert choice.gpu_factory is not None   # its GPU variant waits until the GPU is chosen


def test_a_loop_s_decisions_are_named_by_its_compiled_object(auto):
    """The compiled object's name already hashes the kernel's source (with the compiler and
    flags): the decisions file takes it rather than hashing the source a second time."""
    function = megaguards.jit(scale_rows)
    a, b = numpy.ones((8, 8)), numpy.zeros((8, 8))
    function(a, b, 8, 8)
    [choice] = choices_of(function)
    assert (auto / "kernels" / f"{choice.key}.so").is_file()


def test_the_selection_data_is_read_before_the_first_specialization(auto, monkeypatch):
    """Under auto, the process's first loop entry (``site.first_loop_entry``, not the start:
    a script that enters no loop reads none of it) reads the calibration and the tree,
    counts the usable cores and lists the decisions folder: the loop's specialization then
    decides without any of it (here each would raise)."""
    from megaguards.runtime import decisions, warmup

    config.configure(select="tree")   # auto's process is a fresh one: nothing listed yet
    for cached in (costmodel._load, costmodel.usable_cores, selector.load):
        cached.cache_clear()
    warmup.load_selection_data()

    def forbidden(*arguments, **keywords):
        raise AssertionError("read at the loop's entry")

    # Only these modules' own names: the kernel's compilation and cache reads go on as usual.
    monkeypatch.setattr(costmodel, "_read", forbidden)
    monkeypatch.setattr(selector, "Path", forbidden)
    monkeypatch.setattr(costmodel, "os", SimpleNamespace(sched_getaffinity=forbidden, cpu_count=forbidden))
    monkeypatch.setattr(decisions, "os", SimpleNamespace(listdir=forbidden))
    try:
        function = megaguards.jit(scale_rows)
        a, b = numpy.ones((8, 8)), numpy.zeros((8, 8))
        function(a, b, 8, 8)
        [choice] = choices_of(function)
        assert (b == 3.0).all() and choice.last["why"] and choice.last["predicted"]
    finally:
        config.configure(select="model")
        monkeypatch.undo()
        for cached in (costmodel._load, costmodel.usable_cores, selector.load):
            cached.cache_clear()


@pytest.mark.parametrize("count", range(1, 7))
def test_stored_medians_are_statistics_medians(count):
    import statistics

    from megaguards.runtime.decisions import median

    generator = numpy.random.default_rng(count)
    for _ in range(50):
        values = list(generator.random(count) * 10.0 ** generator.integers(-7, 1, count))
        assert median(values) == statistics.median(values)


def scale_rows_of_a_list(image, out, rows, columns):
    for i in range(rows):
        row = [0.0] * columns   # a new list: the row loop stays in CPython
        for j in range(columns):   # a site entered once per row, with i a live-in
            row[j] = image[i][j] * 2.0 + i
        out.append(row)


def test_a_size_key_holds_only_the_scalars_that_set_trip_counts(auto):
    write_calibration(auto, 1e-9, 1e-9)
    function = megaguards.jit(scale_rows_of_a_list)
    image = [[float(i * 7 + j) for j in range(9)] for i in range(8)]
    out, expected = [], []
    scale_rows_of_a_list(image, expected, 8, 9)
    function(image, out, 8, 9)
    assert out == expected
    [choice] = choices_of(function)
    # i differs at each entry of the row site; its trips depend on the columns only.
    assert choice.seen == {choice.entry_size: 8}


def test_trip_count_names_follow_assignments_into_bounds():
    from megaguards.analysis.features import sizing_positions, trip_count_names
    from megaguards.ir import nodes as ir

    name = lambda n: ir.Name(id=n)   # noqa: E731
    loop = ir.For(var="k", start=ir.Const(value=0), stop=name("m"), step=ir.Const(value=1), body=(
        ir.Assign(target="m", value=ir.BinOp(op="+", left=name("n"), right=name("k"))),
        ir.Store(array="a", indices=(name("k"),), value=name("offset")),
    ))
    assert trip_count_names(loop) == {"m", "n", "k"}
    assert sizing_positions(loop, ("offset", "n", "self.m")) == (1,)
