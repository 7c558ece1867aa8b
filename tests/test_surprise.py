"""The surprise re-check (runtime/select.py, SURPRISE): where the tree overrules the cost
model between one core and all cores and the entry then overruns its prediction, the
model's device runs the next entry once, and the entry after decides by both measurements."""
from __future__ import annotations

import numpy

import megaguards
from conftest import TreeSaying, choices_of, write_calibration
from megaguards import config
from megaguards.runtime import select, selector


def scale(a, b, n):
    for i in range(n):
        b[i] = a[i] * 2.0 + 1.0


def devices_of_entries(monkeypatch, tree_device: str, entries: int = 4) -> tuple[list, object]:
    monkeypatch.setattr(selector, "load", lambda: TreeSaying(tree_device))
    config.configure(select="tree")
    ran = []
    monkeypatch.setattr(select, "OBSERVER", lambda choice, device, seconds: ran.append(device))
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
