"""CUDA warm-up at `megaguards run` (runtime/warmup.py): when it starts, the per-script
mark that lets auto warm up in the next process, and the mark dropped when unused."""
from __future__ import annotations

import pytest

from megaguards import config
from megaguards.runtime import process, warmup


@pytest.fixture
def fresh(tmp_path, monkeypatch, fresh_process):
    """A private cache, a fresh process, a GPU that seems present, and a warm-up that only
    counts its starts."""
    saved = config.current()
    started = []
    monkeypatch.setattr(warmup, "gpu_present", lambda: True)
    monkeypatch.setattr(warmup, "_bring_up", lambda: started.append(1))
    monkeypatch.setattr(warmup.atexit, "register", lambda function, *arguments: function)
    config.configure(cache_dir=tmp_path, device="auto", select="tree")
    yield started
    if fresh_process.warmup_thread is not None:
        fresh_process.warmup_thread.join()
    config.configure(cache_dir=saved.cache_dir, device=saved.device, select=saved.select)


def test_device_gpu_always_warms_up(fresh):
    config.configure(device="gpu")
    assert warmup.start_for_script("script.py") is True
    warmup.wait()
    assert fresh == [1] and warmup.in_progress()


@pytest.mark.parametrize("device", ["cpu", "seq", "off"])
def test_cpu_devices_never_warm_up(fresh, device):
    config.configure(device=device)
    assert warmup.start_for_script("script.py") is False
    assert not warmup.in_progress() and fresh == []


def test_no_gpu_no_warm_up(fresh, monkeypatch):
    monkeypatch.setattr(warmup, "gpu_present", lambda: False)
    config.configure(device="gpu")
    assert warmup.start_for_script("script.py") is False and fresh == []


def test_auto_warms_up_a_script_that_used_the_gpu_before(fresh):
    assert warmup.start_for_script("script.py") is False   # first process: nothing known
    warmup.note_gpu_used()                                  # ... and it used the GPU
    assert warmup.mark_path("script.py").exists()
    with process.fresh():                                   # the next process
        assert warmup.start_for_script("script.py") is True
        warmup.wait()                                       # joins its warm-up thread
    assert fresh == [1]
    assert not warmup.mark_path("other.py").exists()        # marks are per script


def test_a_warm_up_for_nothing_drops_the_mark(fresh, fresh_process):
    warmup.mark_path("script.py").parent.mkdir(parents=True)
    warmup.mark_path("script.py").touch()
    assert warmup.start_for_script("script.py") is True
    warmup._forget_unused_mark(fresh_process)   # at exit: the GPU was never picked
    assert not warmup.mark_path("script.py").exists()


def test_explore_and_forced_methods_do_not_warm_up(fresh):
    warmup.mark_path("script.py").parent.mkdir(parents=True)
    warmup.mark_path("script.py").touch()
    config.configure(select="explore")
    assert warmup.start_for_script("script.py") is False and fresh == []
