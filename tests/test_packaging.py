"""The wheel works outside this checkout: build it, install it into a fresh virtual
environment and run the example from there (issue 9, packaging).

The sources are copied first so that no stale ``build/`` folder of the checkout leaks
into the wheel. The new environment sees this environment's packages (numpy, islpy)
through ``--system-site-packages`` and, when the tests themselves run in a virtual
environment as CI's do, through a ``.pth`` file: nothing is downloaded but, where the
installed setuptools cannot build wheels itself, the build backend.
"""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

import megaguards
from megaguards import cli

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "mm.py"
TIMEOUT = 120  # seconds per command; the whole module takes about 15 s (30 s building in isolation)


def _run(command, **options):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=TIMEOUT, **options)


def _setuptools_builds_wheels() -> bool:
    """True when the installed setuptools can build a wheel without pip's isolated build
    environment (setuptools 70.1+ has bdist_wheel; older ones need the wheel package)."""
    probe = ("import setuptools, sys\n"
             "try:\n    import setuptools.command.bdist_wheel\n"
             "except ImportError:\n    from wheel.bdist_wheel import bdist_wheel\n")
    return _run([sys.executable, "-c", probe]).returncode == 0


def _package_files(source: Path) -> set[str]:
    """Every file of the package as a path inside the wheel (no bytecode)."""
    return {path.relative_to(source / "src").as_posix() for path in (source / "src" / "megaguards").rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel, the new environment's bin folder, the copied sources)."""
    if _run([sys.executable, "-m", "pip", "--version"]).returncode != 0:
        pytest.skip("pip is not available to this interpreter")
    if _run([sys.executable, "-c", "import venv"]).returncode != 0:
        pytest.skip("the venv module is not available to this interpreter")
    if not any(shutil.which(name) for name in (os.environ.get("CC") or "cc", "gcc", "clang")):
        pytest.skip("no C compiler: nothing would compile from the installed wheel")
    work = tmp_path_factory.mktemp("packaging")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src",   # not the helper an editable install built in place
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "_marshal*.so"))
    isolation = ["--no-build-isolation"] if _setuptools_builds_wheels() else []
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", *isolation,
                  "--wheel-dir", work / "dist", source])
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (work / "dist").glob("megaguards-*.whl")

    environment = work / "venv"
    created = _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", environment])
    assert created.returncode == 0, created.stderr
    python = environment / "bin" / "python"
    target = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    if sys.prefix != sys.base_prefix:  # tests run in a venv: its numpy and islpy, not the base's
        Path(target.stdout.strip(), "_parent_environment.pth").write_text(
            "\n".join(dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
                                     *site.getsitepackages()])) + "\n")
    install = _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
                    "--quiet", wheel])
    assert install.returncode == 0, install.stdout + install.stderr
    return wheel, environment / "bin", source


def _clean_environment(tmp_path: Path) -> dict:
    """No MEGAGUARDS_* settings of the caller, a cache of its own (so the installed
    package compiles its prelude and marshal.c from the wheel's copies), and no
    calibration started in the background."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MEGAGUARDS_")}
    environment["MEGAGUARDS_CACHE_DIR"] = str(tmp_path / "cache")
    environment["MEGAGUARDS_AUTO_CALIBRATE"] = "0"
    environment.pop("PYTHONPATH", None)
    return environment


def test_wheel_holds_every_file_the_package_reads(installed):
    wheel, _, source = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _package_files(source)
    assert {"megaguards/codegen/prelude.h", "megaguards/runtime/marshal.c", "megaguards/py.typed"} <= expected
    assert expected - names == set(), "files of src/megaguards missing from the wheel (pyproject package-data)"


def test_the_wheel_holds_the_list_helper_built_from_its_source(installed, tmp_path):
    """setup.py compiled marshal.c into the wheel; the installed package loads that build
    (its key is the source's), so that a run needs no Python headers for it."""
    wheel, bin_folder, _ = installed
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert f"megaguards/runtime/_marshal{suffix}" in zipfile.ZipFile(wheel).namelist()
    probe = ("from megaguards.runtime.marshal import installed_helper\n"
             "helper = installed_helper()\n"
             "print(helper is not None and helper._name.startswith(__import__('sys').prefix))")
    loaded = _run([bin_folder / "python", "-c", probe], cwd=tmp_path, env=_clean_environment(tmp_path))
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "True"


def test_installed_package_is_the_wheel_not_the_checkout(installed, tmp_path):
    _, bin_folder, _ = installed
    where = _run([bin_folder / "python", "-c", "import megaguards; print(megaguards.__file__)"],
                 cwd=tmp_path, env=_clean_environment(tmp_path))
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(bin_folder.parent), where.stdout


def test_version_matches_pyproject(installed, tmp_path):
    _, bin_folder, _ = installed
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    shown = _run([bin_folder / "megaguards", "--version"], cwd=tmp_path, env=_clean_environment(tmp_path))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip() == f"megaguards {version}"
    assert megaguards.__version__ == version


def test_example_runs_compiled_with_cpython_output(installed, tmp_path):
    _, bin_folder, _ = installed
    # At this size (60) the multiply is worth milliseconds: compiled at once only when asked to.
    environment = dict(_clean_environment(tmp_path), MEGAGUARDS_COMPILE_AFTER="0")
    expected = _run([sys.executable, EXAMPLE, "60"], cwd=tmp_path, env=environment)
    assert expected.returncode == 0, expected.stderr
    report = tmp_path / "report.json"
    result = _run([bin_folder / "megaguards", "run", "--report-json", report, EXAMPLE, "60"],
                  cwd=tmp_path, env=environment)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected.stdout
    assert "checksum=" in result.stdout
    loops = json.loads(report.read_text())["loops"]
    matmul = [loop for loop in loops if loop["function"] == "matmul"]
    assert matmul and matmul[0]["compiled_runs"] == 1, loops  # compiled from the wheel, not a fallback
    assert matmul[0]["backend"] in ("c-seq", "c-omp"), matmul


def test_module_help_lists_every_subcommand(installed, tmp_path):
    _, bin_folder, _ = installed
    shown = _run([bin_folder / "python", "-m", "megaguards", "--help"], cwd=tmp_path,
                 env=_clean_environment(tmp_path))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines() + [""]
    for command in cli.SUBCOMMANDS:  # each listed with its description (argparse wraps long names)
        found = [k for k, line in enumerate(lines) if line.split()[:1] == [command]]
        assert found, f"{command!r} missing from:\n{shown.stdout}"
        words = lines[found[0]].split()[1:] or lines[found[0] + 1].split()
        assert len(words) >= 3, f"{command!r} has no description in:\n{shown.stdout}"
