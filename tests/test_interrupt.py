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


@pytest.mark.parametrize("device", ["seq", "cpu"])
def test_ctrl_c_stops_a_compiled_loop_at_once(tmp_path, device):
    script = tmp_path / "spin.py"
    script.write_text(SCRIPT)
    environment = dict(os.environ, MEGAGUARDS_DEVICE=device)
    # SIGINT as a terminal sends it (a shell's background job would ignore it).
    process = subprocess.Popen([sys.executable, "-m", "megaguards", "run", str(script)], env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert process.stdout.readline() == "start\n"
        time.sleep(0.5)   # inside the compiled loop (10^11 iterations: minutes)
        sent = time.perf_counter()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
        elapsed = time.perf_counter() - sent
    finally:
        process.kill()
    assert process.returncode == -signal.SIGINT, err   # as python: killed by SIGINT
    assert elapsed < 0.5, elapsed
    assert out == "interrupted [0, 0, 0, 0, 0, 0, 0, 0]\n"   # nothing committed
    lines = err.strip().splitlines()
    assert lines[-1] == "KeyboardInterrupt" and lines[-2].strip() == "for i in range(n):", err
    assert "megaguards" not in err


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
