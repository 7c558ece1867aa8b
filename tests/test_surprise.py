"""The check after a prediction's first kept entry (runtime/select.py, check_first_entry):
where another host device was already measured faster at this size, the next entry
decides from the measurements; where the tree overruled the cost model between one core
and all cores and the entry overran its prediction (SURPRISE), the model's device runs
the next entry once, and the entry after decides by both measurements."""
from __future__ import annotations

import time

import numpy

import megaguards
from conftest import TreeSaying, choices_of, write_calibration
from megaguards import config
from megaguards.runtime import process, select, selector


def scale(a, b, n):
    for i in range(n):
        b[i] = a[i] * 2.0 + 1.0


def devices_of_entries(monkeypatch, tree_device: str, entries: int = 4) -> tuple[list, object]:
    monkeypatch.setattr(selector, "load", lambda: TreeSaying(tree_device))
    config.configure(select="tree")
    ran = []
    process.current().observer = lambda choice, device, seconds: ran.append(device)
    function = megaguards.jit(scale)
    a = numpy.arange(64.0)
    for _ in range(entries):
        b = numpy.zeros(64)
        function(a, b, 64)
        assert (b == a * 2.0 + 1.0).all()
    [choice] = choices_of(function)
    return ran, choice


def test_an_entry_far_over_its_prediction_tries_the_models_device_once(auto, monkeypatch):
    write_calibration(auto, seq_work=1e-15, cpu_work=1e-16)   # predicts far less than any real entry
    ran, choice = devices_of_entries(monkeypatch, "seq")
    assert ran[:2] == ["seq", "cpu"]                         # the tree's device, then the model's
    assert choice.last["why"].startswith("measured before")  # then both measurements decide
    assert set(choice.store.times[choice.last["bucket"]]) == {"seq", "cpu"}
    assert len(set(ran[2:])) == 1                           # and that decision stands


def test_a_try_of_all_cores_that_started_openmp_is_made_again_and_kept_for_later_processes(auto, monkeypatch):
    from megaguards.runtime.decisions import DecisionStore

    process.current().openmp_started = False   # a process just started
    write_calibration(auto, seq_work=1e-15, cpu_work=1e-16)
    ran, choice = devices_of_entries(monkeypatch, "seq", entries=5)
    assert ran[:3] == ["seq", "cpu", "cpu"]   # the try that started the threads, then a try with them up
    size = choice.last["bucket"]
    in_process = choice.store.times[size]
    assert len(in_process["cpu"]) == ran.count("cpu") - 1 and len(in_process["seq"]) == ran.count("seq")
    choice.store.save()   # at exit: a later process starts the threads again, so it sees that entry
    assert len(DecisionStore(choice.key).times[size]["cpu"]) == ran.count("cpu")


def test_no_second_try_where_the_model_agrees_with_the_tree(auto, monkeypatch):
    write_calibration(auto, seq_work=1e-15, cpu_work=1e-16)   # the model says cpu
    ran, _ = devices_of_entries(monkeypatch, "cpu")
    assert ran == ["cpu"] * 4


def test_no_second_try_where_the_entry_kept_to_its_prediction(auto, monkeypatch):
    write_calibration(auto, seq_work=1.0, cpu_work=0.1)   # predicts seconds: every entry is faster
    ran, _ = devices_of_entries(monkeypatch, "seq")
    assert ran == ["seq"] * 4


def test_a_choice_measured_in_an_earlier_process_is_not_tried_again(auto, monkeypatch):
    from megaguards.runtime import decisions
    from megaguards.runtime.decisions import DecisionStore

    write_calibration(auto, seq_work=1e-15, cpu_work=1e-16)
    ran, choice = devices_of_entries(monkeypatch, "seq", entries=1)
    decisions.save_all()   # this "process" ends
    stored = DecisionStore(choice.key)
    stored.times[choice.last["bucket"]] = {"seq": [1e-9]}   # an earlier process measured seq, and fast
    stored.save()
    ran, again = devices_of_entries(monkeypatch, "seq")
    assert ran == ["seq"] * 4 and again.last["why"].startswith("measured before")


def rented_then_all_cores(monkeypatch, slow: str, entries: int = 6) -> tuple[list, object]:
    """Entries of a kernel the model sends to all cores, in a process whose OpenMP threads
    are not started: one thread runs the first entries (the rental), then all cores.
    Entries on the ``slow`` device take 5 ms more (far above any hiccup of a tiny entry)."""
    process.current().openmp_started = False
    monkeypatch.setattr(select, "OPENMP_STARTUP_SECONDS", 0.0002)
    run_cpu = select.DeviceChoice.run_cpu

    def timed(self, binding, one_thread):
        if one_thread == (slow == "seq"):
            time.sleep(0.005)
        return run_cpu(self, binding, one_thread)

    monkeypatch.setattr(select.DeviceChoice, "run_cpu", timed)
    ran = []
    process.current().observer = lambda choice, device, seconds: ran.append(device)
    function = megaguards.jit(scale)
    a = numpy.arange(64.0)
    while "cpu" not in ran:   # the rental lasts until one thread has spent OpenMP's start-up
        b = numpy.zeros(64)
        function(a, b, 64)
        assert (b == a * 2.0 + 1.0).all() and len(ran) < 10**5
    for _ in range(entries):
        function(a, b, 64)
    [choice] = choices_of(function)
    return ran, choice


def test_all_cores_measured_slower_than_the_rented_thread_gives_way_to_it(auto, monkeypatch):
    write_calibration(auto, seq_work=1e-12, cpu_work=1e-15)   # all cores predicted faster; entries tiny
    ran, choice = rented_then_all_cores(monkeypatch, slow="cpu")
    first_cpu = ran.index("cpu")
    assert first_cpu >= 1 and set(ran[:first_cpu]) == {"seq"}     # the rental
    assert ran[first_cpu:first_cpu + 2] == ["cpu", "cpu"]          # OpenMP's start, then the checked entry
    assert set(ran[first_cpu + 2:]) == {"seq"}                     # measured slower: one thread again
    assert choice.last["why"].startswith("measured before")


def test_all_cores_measured_faster_than_the_rented_thread_stay(auto, monkeypatch):
    write_calibration(auto, seq_work=1e-12, cpu_work=1e-15)
    ran, choice = rented_then_all_cores(monkeypatch, slow="seq")
    first_cpu = ran.index("cpu")
    assert set(ran[:first_cpu]) == {"seq"} and set(ran[first_cpu:]) == {"cpu"}
