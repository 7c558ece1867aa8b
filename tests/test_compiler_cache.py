"""The C compiler's version line is remembered in the cache dir per compiler file, so a
process does not run ``cc --version`` (2-3 ms) before its first loop; likewise Python's
include directory per interpreter (``sysconfig`` takes 3-5 ms to set up)."""
import json
import os
import subprocess

import pytest

from megaguards.runtime import compiler


@pytest.fixture
def fake_compiler(tmp_path):
    script = tmp_path / "bin" / "fakecc"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\necho 'fakecc 1.0'\n")
    script.chmod(0o755)
    compiler.find_compiler.cache_clear()
    yield str(script)
    compiler.find_compiler.cache_clear()


def test_version_is_asked_once_then_read_from_the_cache(fake_compiler, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    assert compiler.find_compiler(fake_compiler, cache) == (fake_compiler, "fakecc 1.0")
    assert list(json.loads((cache / compiler.COMPILERS_FILE).read_text()).values()) == ["fakecc 1.0"]

    def no_subprocess(*args, **kwargs):
        raise AssertionError("the compiler was run although its version is cached")

    compiler.find_compiler.cache_clear()
    monkeypatch.setattr(subprocess, "run", no_subprocess)
    assert compiler.find_compiler(fake_compiler, cache) == (fake_compiler, "fakecc 1.0")


def test_a_replaced_compiler_is_asked_again(fake_compiler, tmp_path):
    cache = tmp_path / "cache"
    compiler.find_compiler(fake_compiler, cache)
    with open(fake_compiler, "w") as handle:
        handle.write("#!/bin/sh\necho 'fakecc 2.0 (a different build)'\n")
    os.utime(fake_compiler, ns=(1, 1))
    compiler.find_compiler.cache_clear()
    assert compiler.find_compiler(fake_compiler, cache) == (fake_compiler, "fakecc 2.0 (a different build)")
    assert sorted(json.loads((cache / compiler.COMPILERS_FILE).read_text()).values()) == [
        "fakecc 1.0", "fakecc 2.0 (a different build)"]


def test_an_unreadable_cache_file_is_ignored(fake_compiler, tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / compiler.COMPILERS_FILE).write_text("[not a mapping")
    assert compiler.find_compiler(fake_compiler, cache) == (fake_compiler, "fakecc 1.0")
    assert list(json.loads((cache / compiler.COMPILERS_FILE).read_text()).values()) == ["fakecc 1.0"]


def test_the_python_include_directory_is_remembered_per_interpreter(tmp_path, monkeypatch):
    import sysconfig

    first = compiler.python_include_flags(tmp_path)
    assert first == ("-I", sysconfig.get_paths()["include"])
    assert list(json.loads((tmp_path / compiler.PYTHON_FILE).read_text()).values()) == [first[1]]

    def unavailable():
        raise AssertionError("sysconfig asked again")

    monkeypatch.setattr(sysconfig, "get_paths", unavailable)
    assert compiler.python_include_flags(tmp_path) == first   # read back, sysconfig not set up
    (tmp_path / compiler.PYTHON_FILE).write_text("[not a mapping")
    monkeypatch.undo()
    assert compiler.python_include_flags(tmp_path) == first   # an unreadable file is rewritten
    assert list(json.loads((tmp_path / compiler.PYTHON_FILE).read_text()).values()) == [first[1]]
