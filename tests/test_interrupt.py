"""Ctrl-C during a compiled loop (issue 26): the kernel reads a flag that SIGINT sets every
MG_POLL_CHUNK iterations of each range loop and stops; Python's own handler, chained,
raises KeyboardInterrupt at the loop's line; the interrupted run commits nothing."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent("""
    def spin(n, out):
        s = 0
        for i in range(n):
            s += i % 7
            out[i % 8] = s
        return s

    out = [0] * 8
    spin(1000, [0] * 8)
    print("start", flush=True)
    try:
        spin(10 ** 11, out)
    except KeyboardInterrupt:
        print("interrupted", out, flush=True)
        raise
""")


# On the GPU: one long kernel (each thread's inner loop runs for minutes), and a region of
# a million short steps (two launches each).
GPU_SCRIPTS = {
    "kernel": """
        def spin(n, m, out):
            for i in range(n):
                s = 0.0
                for k in range(m):
                    s = s * 0.5 + k
                out[i] = s

        out = [0.0] * 256
        spin(256, 10, [0.0] * 256)
        print("start", flush=True)
        try:
            spin(256, 10 ** 12, out)
        except KeyboardInterrupt:
            print("interrupted", out[:8], flush=True)
            raise
    """,
    "region": """
        def relax(steps, n, a, b):
            for t in range(steps):
                for i in range(1, n - 1):
                    b[i] = (a[i - 1] + a[i + 1]) * 0.5
                for i in range(1, n - 1):
                    a[i] = b[i]

        a, b = [1.0] * 8, [0.0] * 8
        relax(4, 8, [1.0] * 8, [0.0] * 8)
        print("start", flush=True)
        try:
            relax(10 ** 6, 8, a, b)
        except KeyboardInterrupt:
            print("interrupted", a, b, flush=True)
            raise
    """,
}


def interrupted_run(tmp_path, source: str, device: str, settle: float) -> tuple[str, str, float]:
    """Run ``source`` under megaguards, send SIGINT ``settle`` seconds after it printed
    "start" (inside the compiled loop by then); its stdout, stderr and how long it took to end."""
    script = tmp_path / "spin.py"
    script.write_text(textwrap.dedent(source))
    environment = dict(os.environ, MEGAGUARDS_DEVICE=device)
    # SIGINT as a terminal sends it (a shell's background job would ignore it).
    process = subprocess.Popen([sys.executable, "-m", "megaguards", "run", str(script)], env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline() == "start\n"
        time.sleep(settle)
        sent = time.perf_counter()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        elapsed = time.perf_counter() - sent
    finally:
        process.kill()
    assert process.returncode == -signal.SIGINT, err   # as python: killed by SIGINT
    assert "megaguards" not in err
    return out, err, elapsed


@pytest.mark.parametrize("device", ["seq", "cpu"])
def test_ctrl_c_stops_a_compiled_loop_at_once(tmp_path, device):
    out, err, elapsed = interrupted_run(tmp_path, SCRIPT, device, 0.5)   # 10^11 iterations: minutes
    assert elapsed < 0.5, elapsed
    assert out == "interrupted [0, 0, 0, 0, 0, 0, 0, 0]\n"   # nothing committed
    lines = err.strip().splitlines()
    assert lines[-1] == "KeyboardInterrupt" and lines[-2].strip() == "for i in range(n):", err


@pytest.mark.parametrize("shape", sorted(GPU_SCRIPTS))
def test_ctrl_c_stops_a_gpu_kernel_or_region_at_once(tmp_path, shape):
    """The wait for the GPU polls an event (runtime/cuda.wait_for_gpu): Python's handler
    raises at once, the work already queued ends on device copies, nothing is committed."""
    from megaguards.runtime import cuda

    if cuda.cupy_module() is None:
        pytest.skip("no CUDA device (CuPy + GPU)")
    out, err, elapsed = interrupted_run(tmp_path, GPU_SCRIPTS[shape], "gpu", 2.0)
    assert elapsed < 1.0, elapsed
    expected = {"kernel": "[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]",
                "region": "[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]"}
    assert out == f"interrupted {expected[shape]}\n"
    lines = err.strip().splitlines()
    assert lines[-1] == "KeyboardInterrupt" and lines[-2].strip().startswith("for "), err


def test_a_kernel_writing_numpy_arrays_in_place_is_not_stopped_midway():
    """Stopped midway, a NumPy array written in place would be half-written; a program whose
    SIGINT handler does not raise would then run the loop again over it in CPython."""
    import numpy

    import megaguards
    from megaguards.runtime.site import REGISTRY

    def add_one(a, out):
        for i in range(len(a)):
            out[i] = a[i] + 1.0

    def add_one_to_list(a, out):
        for i in range(len(a)):
            out[i] = a[i] + 1.0

    sources = {}
    for function, values in ((add_one, numpy.zeros(4)), (add_one_to_list, [0.0] * 4)):
        fast = megaguards.jit(function)
        fast(values, values.copy() if hasattr(values, "copy") else list(values))
        [site] = [site for site in REGISTRY.sites if site.id in fast.__megaguards_sites__]
        [compiled] = site.compiled
        sources[function.__name__] = getattr(compiled, "cpu", compiled).explanation.source
    assert "*mg_stop" not in sources["add_one"]
    assert "*mg_stop" in sources["add_one_to_list"]
