"""The numba peers of the benchmark suite (benchmarks/suite_peers/numba): every peer at
--size small, sequential and parallel, gives CPython's checksum (within the peer's or the
program's TOLERANCE where one is declared).

The peers run in this process (one numba import, no 32 interpreter start-ups) through
the same measure() as their command line, which one test runs as a process.  numba's
caches live in pytest's temporary root, outside the repository, shared between test
sessions: a rerun loads the kernels instead of compiling them again."""
from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benchmarks" / "suite_peers" / "numba"
SUITE = ROOT / "benchmarks" / "suite"
NAMES = sorted(p.stem for p in PEERS.glob("*.py") if not p.name.startswith("_"))
PROGRAMS = sorted(p.stem for p in SUITE.glob("*.py") if p.name != "common.py")
CHECKSUM = re.compile(r"^checksum=(.+)$", re.MULTILINE)
TOLERANCE = re.compile(r"^TOLERANCE\s*=\s*(\S+)", re.MULTILINE)


def test_every_suite_program_has_a_numba_peer():
    assert NAMES == PROGRAMS


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.getbasetemp().parent / "numba-peer-cache"


@pytest.fixture(scope="module")
def peers(cache_dir):
    """(the numba peers' _peer module, name -> peer module).  The peers import their
    helpers as `_peer`, a name the CUDA peers' tests also register: the numba one is put
    in its place while the peers load, and the previous one restored after."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NUMBA_CACHE_DIR", str(cache_dir / "in-process"))
        import numba.core.config

        numba.core.config.reload_config()
        helpers = load(patch, "numba_peer_helpers", PEERS / "_peer.py")
        patch.setitem(sys.modules, "_peer", helpers)
        modules = {name: load(patch, f"numba_peer_{name}", PEERS / f"{name}.py") for name in NAMES}
        yield helpers, modules
    numba.core.config.reload_config()


def load(patch, module_name: str, path: Path):
    """The module at `path`, registered under `module_name`: numba's cache records a
    kernel's module by name and imports it again when it loads the kernel."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    patch.setitem(sys.modules, module_name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def expected(peers):
    """name -> the checksum line's value of the suite program under CPython, at small."""
    helpers, _ = peers
    checksums = {}
    for name in NAMES:
        printed = io.StringIO()
        with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
            patch.setattr(sys, "argv", [name, "--size", "small"])
            helpers.suite_program(name).main()
        checksums[name] = CHECKSUM.search(printed.getvalue()).group(1)
    return checksums


def tolerance_of(name: str) -> float | None:
    """The peer's own numeric TOLERANCE, else the program's (a peer that writes
    ``TOLERANCE = program.TOLERANCE`` shares it), else None: bit-identical."""
    for source in (PEERS / f"{name}.py", SUITE / f"{name}.py"):
        found = TOLERANCE.search(source.read_text())
        if found and re.fullmatch(r"[0-9.eE+-]+", found.group(1)):
            return float(found.group(1))
    return None


def assert_same_checksum(name: str, expected: str, actual: str) -> None:
    tolerance = tolerance_of(name)
    if tolerance is None:
        assert actual == expected
    else:
        a, b = float(expected), float(actual)
        assert a == b or abs(a - b) <= tolerance * max(abs(a), abs(b)), (expected, actual)


@pytest.mark.parametrize("parallel", [False, True], ids=["sequential", "parallel"])
@pytest.mark.parametrize("name", NAMES)
def test_numba_peer_matches_cpython(peers, expected, name, parallel):
    helpers, modules = peers
    peer = modules[name]
    outputs, timer = helpers.measure(name, peer.compute, "small", parallel)
    assert timer.seconds > 0.0
    # repr: what the command line prints, so a NumPy scalar where CPython has a float fails
    assert_same_checksum(name, expected[name], repr(peer.checksum(outputs)))


def test_command_line_prints_the_checksum_and_time(expected, cache_dir):
    # its own cache: entries written here name the module `__main__`, those of the peers
    # loaded in this process `numba_peer_<name>`, and numba imports that name on a load
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir / "command-line"),
                       NUMBA_NUM_THREADS="2")
    completed = subprocess.run([sys.executable, str(PEERS / "hotspot.py"), "--size", "small",
                                "--parallel"], capture_output=True, text=True, timeout=300,
                               env=environment)
    assert completed.returncode == 0, completed.stderr
    assert CHECKSUM.search(completed.stdout).group(1) == expected["hotspot"]
    assert re.search(r"^time=\d", completed.stdout, re.MULTILINE), completed.stdout
