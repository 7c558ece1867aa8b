"""The default cache folder (config.default_cache_dir, platformdirs'): on Linux exactly the
folder megaguards used before (existing caches stay valid), MEGAGUARDS_CACHE_DIR over it,
and platformdirs imported only when the default is needed."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from megaguards import config

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(config.__file__)))
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG folders are Linux's")


def old_default(environ) -> str:
    """What config.py computed by hand before platformdirs."""
    return os.path.join(environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "megaguards")


@linux
@pytest.mark.parametrize("xdg", [None, "", "xdg-cache"])
def test_the_linux_default_is_the_folder_used_before(tmp_path, monkeypatch, xdg):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / xdg) if xdg else "")
    expected = str(tmp_path / xdg / "megaguards") if xdg else str(tmp_path / "home" / ".cache" / "megaguards")
    import platformdirs

    assert config.default_cache_dir() == expected == old_default(os.environ)
    assert expected == platformdirs.user_cache_dir("megaguards", appauthor=False)   # the rule written out is theirs
    assert config.from_environment({}).cache_dir == expected


def test_megaguards_cache_dir_overrides(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.from_environment({"MEGAGUARDS_CACHE_DIR": str(tmp_path / "mine")}).cache_dir == str(tmp_path / "mine")
    # A relative folder is the one under the current folder at start-up (a str: no pathlib at start-up).
    monkeypatch.chdir(tmp_path)
    assert config.from_environment({"MEGAGUARDS_CACHE_DIR": "here"}).cache_dir == str(tmp_path / "here")
    saved = config.current().cache_dir
    try:
        assert config.configure(cache_dir=tmp_path / "there").cache_dir == str(tmp_path / "there")
    finally:
        config.configure(cache_dir=saved)


def cache_dir_in_a_process(tmp_path, **environment) -> tuple[str, bool]:
    """(the cache folder a fresh process configures, whether it imported platformdirs)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("MEGAGUARDS_", "XDG_"))}
    env.update(PYTHONPATH=os.pathsep.join(filter(None, (SOURCE, os.environ.get("PYTHONPATH")))), **environment)
    result = subprocess.run([sys.executable, "-c", "import sys\nfrom megaguards import config\n"
                             "print(config.current().cache_dir, 'platformdirs' in sys.modules)"],
                            capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    folder, imported = result.stdout.strip().rsplit(" ", 1)
    return folder, imported == "True"


@linux
def test_a_process_reads_the_default_without_importing_platformdirs_on_linux(tmp_path):
    """Importing platformdirs costs 3-5 ms: a Linux process applies the XDG rule itself."""
    assert cache_dir_in_a_process(tmp_path, XDG_CACHE_HOME=str(tmp_path / "xdg")) == \
        (str(tmp_path / "xdg" / "megaguards"), False)
    assert cache_dir_in_a_process(tmp_path, HOME=str(tmp_path / "home")) == \
        (str(tmp_path / "home" / ".cache" / "megaguards"), False)
    assert cache_dir_in_a_process(tmp_path, MEGAGUARDS_CACHE_DIR=str(tmp_path / "mine"),
                                  XDG_CACHE_HOME=str(tmp_path / "xdg")) == (str(tmp_path / "mine"), False)
