"""Settings: one reader for every MEGAGUARDS_* variable (config.py).  On/off variables take
1/0/true/false/on/off/yes/no in any case; an invalid value of any variable gives one
``MegaguardsWarning`` line naming the variable, the value and the allowed values, never a
traceback, and the default is used.  Every warning megaguards gives is a
``megaguards.MegaguardsWarning``; the package is typed (``py.typed``)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
import warnings
from pathlib import Path

import pytest

import megaguards
from conftest import run_megaguards
from megaguards import MegaguardsWarning, config
from megaguards.runtime import process

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = config.Config()
FLAGS = {"MEGAGUARDS_REASSOCIATE": "reassociate", "MEGAGUARDS_HOIST": "hoist",
         "MEGAGUARDS_AUTO_CALIBRATE": "auto_calibrate", "MEGAGUARDS_REWRITE_CACHE": "rewrite_cache"}
# variable, an invalid value, the field it sets, the default, the allowed values as the warning names them
INVALID = [
    ("MEGAGUARDS_DEVICE", "foo", "device", "auto", "one of auto, gpu, cpu, seq, off"),
    ("MEGAGUARDS_SELECT", "fastest", "select", "tree", "one of tree, model, explore, seq, cpu, cuda"),
    ("MEGAGUARDS_LOG", "loud", "log_level", "warning", "one of debug, info, warning, error, critical"),
    ("MEGAGUARDS_THREADS", "-2", "threads", 0, "a whole number >= 0"),
    ("MEGAGUARDS_PARALLEL_WORK", "lots", "parallel_work", 20000, "a whole number >= 0"),
    ("MEGAGUARDS_COMPILE_AFTER", "abc", "compile_after", 30, "a whole number >= 0"),
    ("MEGAGUARDS_COMPILE_TIMEOUT", "0", "compile_timeout", 60.0, "a number of seconds > 0"),
    *[(name, "maybe", field, getattr(DEFAULTS, field), "one of 1, 0, true, false, on, off, yes, no")
      for name, field in FLAGS.items()],
]


def clean_environment(**settings) -> dict:
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("MEGAGUARDS_") or key in ("MEGAGUARDS_CACHE_DIR", "MEGAGUARDS_AUTO_CALIBRATE")}
    return {**environment, **settings}


def read_setting(field: str, **settings) -> subprocess.CompletedProcess:
    """``import megaguards`` under these settings, printing the field's value."""
    probe = f"import megaguards\nprint(repr(megaguards.config.current().{field}))\n"
    return subprocess.run([sys.executable, "-c", probe], env=clean_environment(**settings),
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name, value, field, default, allowed", INVALID, ids=[row[0] for row in INVALID])
def test_an_invalid_value_is_one_warning_line_and_the_default(name, value, field, default, allowed):
    result = read_setting(field, **{name: value})
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    shown = str(int(default)) if isinstance(default, bool) else f"{default:g}" if isinstance(default, float) \
        else default
    assert result.stderr.splitlines() == [
        f"megaguards:0: MegaguardsWarning: megaguards: {name}={value!r} is not {allowed}; using {shown}"]
    assert result.stdout == f"{default!r}\n"


@pytest.mark.parametrize("name, value, script_output", [
    ("MEGAGUARDS_COMPILE_AFTER", "abc", "45\n"), ("MEGAGUARDS_DEVICE", "foo", "45\n")])
def test_the_command_line_says_one_line_and_runs(tmp_path, name, value, script_output):
    script = tmp_path / "x.py"
    script.write_text("s = 0\nfor i in range(10):\n    s += i\nprint(s)\n")
    report = tmp_path / "r.json"
    result = run_megaguards("run", "--report-json", report, script, env={name: value})
    assert (result.returncode, result.stdout) == (0, script_output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"megaguards: {name}={value!r} is not " in lines[0] and "; using " in lines[0]
    assert report.exists()   # the run went on, with the default


def test_on_off_words_any_case_and_spaces():
    for name, field in FLAGS.items():
        for word in ("1", "true", "TRUE", " on ", "Yes"):
            assert getattr(config.from_environment({name: word}), field) is True, (name, word)
        for word in ("0", "false", "Off", " no ", "NO"):
            assert getattr(config.from_environment({name: word}), field) is False, (name, word)
        assert getattr(config.from_environment({name: ""}), field) is getattr(DEFAULTS, field)   # empty: default


def test_choices_and_numbers_ignore_case_and_spaces():
    read = config.from_environment({"MEGAGUARDS_DEVICE": " SEQ ", "MEGAGUARDS_SELECT": "Model",
                                    "MEGAGUARDS_LOG": " Debug", "MEGAGUARDS_THREADS": " 4 ",
                                    "MEGAGUARDS_COMPILE_TIMEOUT": "2.5"})
    assert (read.device, read.select, read.log_level, read.threads, read.compile_timeout) == \
        ("seq", "model", "debug", 4, 2.5)
    assert config.from_environment({}).log_level is None   # unset: logging left as the program set it


def test_warned_once_per_variable_per_process():
    with process.fresh(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert config.from_environment({"MEGAGUARDS_DEVICE": "foo"}).device == "auto"
        config.from_environment({"MEGAGUARDS_THREADS": "x"})
    assert [str(w.message).split("=")[0] for w in caught] == ["megaguards: MEGAGUARDS_DEVICE",
                                                              "megaguards: MEGAGUARDS_THREADS"]
    assert all(w.category is MegaguardsWarning for w in caught)


@pytest.mark.parametrize("value", ["off", "0", "false", "no", "1", "on"])
def test_retired_strict_turns_nothing_on(value):
    with process.fresh(), warnings.catch_warnings():
        warnings.simplefilter("error")   # no warning at reading: it is named once, at the first compile
        read = config.from_environment({"MEGAGUARDS_STRICT": value})
    assert read == config.from_environment({})._replace(retired=("MEGAGUARDS_STRICT",))
    assert not read.reassociate and read.hoist


def test_the_category_is_public_light_and_filterable():
    assert issubclass(MegaguardsWarning, RuntimeWarning) and "MegaguardsWarning" in megaguards.__all__
    # Python resolves -W's dotted category by importing megaguards (here from src/, on PYTHONPATH: python
    # reads -W before site-packages are on sys.path); importing it loads config and errors alone.
    probe = ("import sys, warnings, megaguards\n"
             "warnings.warn_explicit('megaguards: shown?', megaguards.MegaguardsWarning, 'megaguards', 0)\n"
             "print(sorted(name for name in sys.modules if name.startswith('megaguards')))\n")
    environment = clean_environment(PYTHONPATH=str(ROOT / "src"))
    filtered = subprocess.run([sys.executable, "-W", "ignore::megaguards.MegaguardsWarning", "-c", probe],
                              env=environment, capture_output=True, text=True, timeout=60)
    assert filtered.stdout == "['megaguards', 'megaguards.config', 'megaguards.errors']\n"
    assert "shown?" in subprocess.run([sys.executable, "-c", probe], env=environment, capture_output=True,
                                      text=True, timeout=60).stderr
    assert "shown?" not in filtered.stderr and "Invalid -W option" not in filtered.stderr, filtered.stderr


def test_every_megaguards_warning_has_the_category(tmp_path):
    script = tmp_path / "two.py"
    script.write_text(textwrap.dedent("""
        a = [1.0, 2.0]
        for i in range(2):
            a[i] = a[i] * 2
        print(a)
    """))
    environment = {"PATH": str(tmp_path / "no-such-bin"), "CC": "", "MEGAGUARDS_CACHE_DIR": str(tmp_path / "c"),
                   "MEGAGUARDS_LOG": "loud"}
    result = run_megaguards("run", script, env=environment)
    assert result.stdout == "[2.0, 4.0]\n"
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith("megaguards:0: MegaguardsWarning: megaguards: ")
                                   for line in lines), result.stderr
    assert lines[1].endswith("(met first at the loop at two.py:3)")   # the compiler's: the loop that needed it
    # the message's "megaguards" prefix filters them all from the environment, where python cannot
    # import the category of an installed package yet
    quiet = run_megaguards("run", script, env={**environment, "PYTHONWARNINGS": "ignore:megaguards"})
    assert (quiet.stdout, quiet.stderr) == ("[2.0, 4.0]\n", "")
    with process.fresh(), pytest.warns(MegaguardsWarning, match="no source for"):
        megaguards.jit(eval("lambda: None"))


def test_the_package_is_typed():
    assert (ROOT / "src" / "megaguards" / "py.typed").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["megaguards"]
