"""Every loop of the e2e corpus that could go to the GPU has its CUDA kernel rendered
and compiled with NVRTC, also on CI where there is no GPU (``--device gpu`` then runs
the loops on the CPU after checking the kernels).  Output must still be CPython's."""
from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from test_differential import PROGRAMS, _environment, _run

pytest.importorskip("cuda.bindings.nvrtc", reason="NVRTC (the dev extra's cuda-bindings) not installed")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    work = tmp_path_factory.mktemp("megaguards-cuda")
    env = dict(_environment(str(work / "cache")), MEGAGUARDS_DEVICE="gpu")

    def both(program: Path):
        report = work / f"{program.stem}.json"
        plain = _run([sys.executable, program.name], env)
        guarded = _run([sys.executable, "-m", "megaguards", "run", "--report-json", str(report), program.name], env)
        loops = json.loads(report.read_text())["loops"] if report.exists() else []
        return plain, guarded, loops

    with ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2))) as pool:
        return dict(zip((p.name for p in PROGRAMS), pool.map(both, PROGRAMS)))


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_cuda_kernels_compile_and_results_hold(program: Path, outcomes) -> None:
    plain, guarded, loops = outcomes[program.name]
    reasons = [reason for loop in loops for reason in loop["reasons"]]
    assert not [r for r in reasons if "did not compile" in r], reasons
    assert "internal error" not in guarded.stderr, guarded.stderr[-3000:]
    assert (guarded.stdout, guarded.returncode) == (plain.stdout, plain.returncode)


def test_many_corpus_loops_have_cuda_kernels(outcomes) -> None:
    """The check above is not vacuous: loops of the corpus do get CUDA kernels."""
    with_kernel = sum(1 for _, _, loops in outcomes.values() for loop in loops
                      if loop["backend"] == "cuda"
                      or any(r.startswith("no CUDA device found") for r in loop["reasons"]))
    assert with_kernel >= 30, with_kernel
