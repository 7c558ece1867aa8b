"""``megaguards cache show|clear``, ``megaguards info`` and ``--help`` on a private cache folder."""
import json
import os
import re
import textwrap

import megaguards
from megaguards.diagnostics import cache
from megaguards.runtime import cachefile

from conftest import run_megaguards


def fill(folder):
    (folder / "kernels").mkdir(parents=True)
    (folder / "kernels" / "mg_a.so").write_bytes(b"x" * 3000)
    (folder / "kernels" / "mg_b.so").write_bytes(b"y" * 1000)
    (folder / "cuda").mkdir()
    (folder / "cuda" / "k.ok").write_bytes(b"")
    (folder / "notes.txt").write_text("hi")


def test_show_names_the_cache_files_by_what_they_hold(tmp_path):
    folder = tmp_path / "cache"
    for name in ("renders/a.marshal", "renders/b.marshal", "plans/c.marshal", "decisions/d.json", "compilers.json",
                 "calibration.json"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("{}")
    kinds = cache.survey(folder).by_kind
    assert kinds == {"rendered kernel sources": [2, 4], "parallel plans": [1, 2],
                     "measured device times": [1, 2], "compiler versions (.json)": [1, 2],
                     "calibration (.json)": [1, 2]}


def test_show_counts_kernels_sizes_by_kind_and_newest(tmp_path):
    folder = tmp_path / "cache"
    fill(folder)
    os.utime(folder / "kernels" / "mg_b.so", (2_000_000_000, 2_000_000_000))  # the newest
    result = run_megaguards("cache", "show", env={"MEGAGUARDS_CACHE_DIR": str(folder)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"cache: {folder}"
    assert "  kernels: 2; 4 files, 3.9 KiB" in lines
    assert "    C kernels (.so): 2 files, 3.9 KiB" in lines
    assert "    NVRTC checks (.ok): 1 files, 0 B" in lines and "    other: 1 files, 2 B" in lines
    assert re.search(r"  newest: 20\d\d-\d\d-\d\d [\d:]+ \(kernels/mg_b\.so\)", result.stdout)
    assert lines[-1] == "  calibration: not calibrated (megaguards calibrate)"
    missing = run_megaguards("cache", "show", env={"MEGAGUARDS_CACHE_DIR": str(tmp_path / "none")})
    assert missing.returncode == 0 and "empty: not created yet" in missing.stdout


def test_clear_says_what_it_removes_and_never_follows_links(tmp_path):
    folder = tmp_path / "cache"
    fill(folder)
    (folder / cachefile.TAG_NAME).write_bytes(cachefile.TAG)
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    (folder / "link").symlink_to(outside, target_is_directory=True)
    (folder / "kernels" / "inner-link").symlink_to(outside, target_is_directory=True)
    result = run_megaguards("cache", "clear", env={"MEGAGUARDS_CACHE_DIR": str(folder)})
    assert result.returncode == 0, result.stderr
    assert f"removing {folder / 'kernels'}{os.sep} (3 files, " in result.stdout  # the link counts as a file
    assert result.stdout.splitlines()[-1].startswith(f"cache {folder}: removed 4 files, ")
    # What megaguards did not write stays: the user's file, the user's link, the tag.
    assert sorted(path.name for path in folder.iterdir()) == [cachefile.TAG_NAME, "link", "notes.txt"]
    assert (outside / "keep.txt").read_text() == "mine"
    again = run_megaguards("cache", "clear", env={"MEGAGUARDS_CACHE_DIR": str(tmp_path / "never-made")})
    assert again.returncode == 0 and "nothing to clear" in again.stdout


def test_clear_refuses_a_folder_megaguards_did_not_tag(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "mine.so").write_bytes(b"a user's file")
    (tmp_path / "document.txt").write_text("keep")
    result = run_megaguards("cache", "clear", env={"MEGAGUARDS_CACHE_DIR": str(tmp_path)})
    assert result.returncode != 0 and result.stdout.count("\n") == 1
    assert "refusing to clear" in result.stdout and "CACHEDIR.TAG" in result.stdout
    assert (tmp_path / "kernels" / "mine.so").exists() and (tmp_path / "document.txt").exists()


def test_clear_refuses_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "document.txt").write_text("keep")
    said = []
    assert cache.clear(tmp_path, said.append) is False
    assert "refusing" in said[0] and (tmp_path / "document.txt").exists()


def test_calibration_status_reads_keys_defensively(tmp_path):
    path = tmp_path / "calibration.json"
    assert cache.calibration_status(tmp_path) == "not calibrated (megaguards calibrate)"
    path.write_text(json.dumps({"date": "2025-03-04T10:00:00", "hardware": "NVIDIA H100 + 16 cores"}))
    assert cache.calibration_status(tmp_path) == "calibrated on 2025-03-04T10:00:00 for NVIDIA H100 + 16 cores"
    path.write_text(json.dumps({"hardware": {"gpu": "H200", "cpu": "Xeon"}, "model": [1, 2]}))
    assert cache.calibration_status(tmp_path) == "calibrated on an unknown date for gpu: H200, cpu: Xeon"
    path.write_text("{not json")
    assert cache.calibration_status(tmp_path).startswith("unreadable")
    path.write_text("[1, 2]")
    assert "not a JSON object" in cache.calibration_status(tmp_path)


def test_info_lists_each_line_and_counts_compiled_kernels(tmp_path):
    folder = tmp_path / "cache"
    script = tmp_path / "loop.py"
    script.write_text(textwrap.dedent("""
        a = [1.0, 2.0]
        for i in range(2):
            a[i] = a[i] * 3
        print(a)
    """))
    environment = {"MEGAGUARDS_CACHE_DIR": str(folder)}
    assert run_megaguards("run", script, env=environment).stdout == "[3.0, 6.0]\n"
    (folder / "calibration.json").write_text(json.dumps({"date": "2025-05-06", "hardware": "test box"}))
    result = run_megaguards("info", env=environment)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"megaguards {megaguards.__version__}" and lines[1].startswith("Python 3.")
    assert any(re.match(r"C compiler: .+; OpenMP: (yes|no)$", line) for line in lines)
    assert any(line.startswith("CUDA devices: ") for line in lines)
    assert any(line.startswith(("CuPy ", "CuPy: ")) for line in lines)
    assert any(line.startswith(("NVRTC ", "NVRTC: ")) for line in lines)
    (cache_line,) = [line for line in lines if line.startswith("cache: ")]
    kernels = int(re.match(rf"cache: {re.escape(str(folder))} \((\d+) kernels, \d+ files, ", cache_line).group(1))
    assert kernels >= 2  # the loop's kernel and the marshalling helper
    assert "calibration: calibrated on 2025-05-06 for test box" in lines


def test_help_lists_every_subcommand_with_a_description_and_version():
    result = run_megaguards("--help")
    assert result.returncode == 0
    described = dict(re.findall(r"^    (\w+)\s+(\S.*)$", result.stdout, re.MULTILINE))
    assert {"run", "explain", "info", "cache"} <= set(described)
    assert run_megaguards("--version").stdout == f"megaguards {megaguards.__version__}\n"
    bare = run_megaguards()
    assert bare.returncode == 2 and bare.stdout.startswith("usage: megaguards")
    assert "show" in run_megaguards("cache", "--help").stdout


def test_calibration_status_says_a_background_calibration_is_running(tmp_path):
    from megaguards.runtime import costmodel

    assert cache.calibration_status(tmp_path) == "not calibrated (megaguards calibrate)"
    held = costmodel._calibration_lock(tmp_path)   # as the detached `megaguards calibrate` holds it
    try:
        assert cache.calibration_status(tmp_path).startswith("not calibrated yet: a calibration is running")
    finally:
        os.close(held)
    assert cache.calibration_status(tmp_path) == "not calibrated (megaguards calibrate)"
