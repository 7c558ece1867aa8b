"""The list helper built at install (setup.py, issue 30): a run uses that build where it was
compiled from the package's own marshal.c and ABI (its key), so that it needs no Python
headers and compiles nothing but kernels; a stale or missing build falls back to compiling
the helper into the cache, as before."""
from __future__ import annotations

import importlib.machinery
import subprocess
import sys
from pathlib import Path

import pytest

from megaguards import config
from megaguards.runtime import compiler, marshal

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """setup.py's build of the helper, in a folder of its own: the folder it lies in."""
    if compiler.find_compiler(config.current().compiler) is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("helper-build")
    result = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", out, "--build-temp",
                             out / "temp"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    folder = out / "megaguards" / "runtime"
    assert (folder / ("_marshal" + importlib.machinery.EXTENSION_SUFFIXES[0])).is_file(), result.stderr
    return folder


def test_a_build_of_this_source_is_used(built, monkeypatch):
    monkeypatch.setattr(marshal, "FOLDER", str(built))
    library = marshal.installed_helper()
    assert library is not None and Path(library._name).parent == built
    found = compiler.find_compiler(config.current().compiler)
    helper = marshal.helper.__wrapped__(config.current().cache_dir, found)
    assert helper is library and helper.mg_snapshot_bytes() > 0   # configured as the cache's build is


def test_a_stale_build_is_not_used_and_the_cache_builds_the_helper(built, monkeypatch):
    monkeypatch.setattr(marshal, "FOLDER", str(built))
    monkeypatch.setattr(marshal, "helper_key", lambda: "0" * 32)   # marshal.c changed since the build
    assert marshal.installed_helper() is None
    found = compiler.find_compiler(config.current().compiler)
    helper = marshal.helper.__wrapped__(config.current().cache_dir, found)
    assert Path(helper._name).parent.parent == Path(config.current().cache_dir)   # kernels/mg_<key>.so


def test_no_build_at_all(tmp_path, monkeypatch):
    monkeypatch.setattr(marshal, "FOLDER", str(tmp_path))
    assert marshal.installed_helper() is None
