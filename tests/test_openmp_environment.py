"""OpenMP's waiting threads sleep unless the user chose otherwise: spinning threads on a
virtual machine made a parallel region take about 12 ms instead of 0.1 ms (H100 machine).
libgomp reads the setting when it is loaded; the setting does not stay in os.environ.
A child made by fork after the parent ran parallel regions runs its own on one thread
(libgomp's pool is the parent's: the child waited for its threads forever)."""
import json
import os
import sys
import textwrap

import pytest

from conftest import run_megaguards

from megaguards.runtime.compiler import openmp_environment

LOOP = textwrap.dedent("""\
    import os
    values = [float(i) for i in range(1000)]
    out = [0.0] * 1000
    for i in range(1000):
        out[i] = values[i] * 2.0
    print("left in environ:", os.environ.get("OMP_WAIT_POLICY"))
    """)


def test_set_only_while_loading(monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    with openmp_environment():
        assert os.environ["OMP_WAIT_POLICY"] == "passive"
    assert "OMP_WAIT_POLICY" not in os.environ


def test_the_users_choice_is_kept(monkeypatch):
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    with openmp_environment():
        assert os.environ["OMP_WAIT_POLICY"] == "active"
    assert os.environ["OMP_WAIT_POLICY"] == "active"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    monkeypatch.setenv("GOMP_SPINCOUNT", "1000")
    with openmp_environment():
        assert "OMP_WAIT_POLICY" not in os.environ


def run_parallel_loop(tmp_path, **env):
    script = tmp_path / "loop.py"
    script.write_text(LOOP)
    environment = {"OMP_DISPLAY_ENV": "true", "MEGAGUARDS_DEVICE": "cpu", "MEGAGUARDS_REPORT": str(tmp_path / "r.json"),
                   **env}
    completed = run_megaguards("run", script, env=environment)
    assert completed.returncode == 0, completed.stderr
    return completed


def test_libgomp_sees_passive_and_the_script_does_not(tmp_path, monkeypatch):
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    completed = run_parallel_loop(tmp_path)
    assert "OMP_WAIT_POLICY = 'PASSIVE'" in completed.stderr   # libgomp's OMP_DISPLAY_ENV output
    assert "left in environ: None" in completed.stdout


def test_libgomp_sees_the_users_policy(tmp_path, monkeypatch):
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    completed = run_parallel_loop(tmp_path, OMP_WAIT_POLICY="active")
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in completed.stderr
    assert "left in environ: active" in completed.stdout


FORKED = textwrap.dedent("""\
    import os
    def scale(a, n):
        for i in range(n):
            a[i] = a[i] * 2.0 + 1.0
        return a
    parent = scale([float(i) for i in range(50000)], 50000)
    pid = os.fork()
    if pid == 0:
        child = scale([float(i) for i in range(50000)], 50000)
        print("child", child[7], sum(child))
        os._exit(0)
    os.waitpid(pid, 0)
    print("parent", parent[7], sum(parent))
    """)


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform != "linux", reason="os.fork on Linux (libgomp)")
def test_a_forked_child_runs_its_parallel_loops_after_the_parent_ran_them(tmp_path):
    script = tmp_path / "forked.py"
    script.write_text(FORKED)
    report = tmp_path / "r.json"
    completed = run_megaguards("run", script, env={"MEGAGUARDS_DEVICE": "cpu", "MEGAGUARDS_THREADS": "2",
                                                   "MEGAGUARDS_REPORT": str(report)}, timeout=60)
    assert completed.returncode == 0, completed.stderr
    expected = sum(float(i) * 2.0 + 1.0 for i in range(50000))
    assert completed.stdout.splitlines() == [f"child 15.0 {expected}", f"parent 15.0 {expected}"]
    loops = json.loads(report.read_text())["loops"]   # the parent's: its loop ran on the team
    assert any(loop["function"] == "scale" and loop["backend"] == "c-omp" and loop["compiled_runs"] for loop in loops)
