"""OpenMP's waiting threads sleep unless the user chose otherwise: spinning threads on a
virtual machine made a parallel region take about 12 ms instead of 0.1 ms (H100 machine).
libgomp reads the setting when it is loaded; the setting does not stay in os.environ."""
import os
import textwrap

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
