"""One frozen options object; the environment is read here and nowhere else.

| variable               | flag            | meaning                                              |
|------------------------|-----------------|------------------------------------------------------|
| MEGAGUARDS_DEVICE      | --device        | auto (default) / gpu / cpu (all cores) / seq / off      |
| MEGAGUARDS_REPORT      | --report-json   | write the JSON loop report to this path at exit       |
| MEGAGUARDS_DUMP        | --dump          | write every generated kernel source into this folder  |
| MEGAGUARDS_CACHE_DIR   |                 | compiled kernels (default: the user cache folder, ``default_cache_dir``) |
| MEGAGUARDS_REASSOCIATE |                 | 1: float reductions may be reassociated and GPU math may be CUDA's (last bits may differ) |
| MEGAGUARDS_HOIST       |                 | 0: keep every bounds/overflow check inside the loop   |
| MEGAGUARDS_THREADS     |                 | threads of parallel loops (default: all cores)        |
| MEGAGUARDS_PARALLEL_WORK |               | work estimate below which a parallel loop runs alone  |
| MEGAGUARDS_COMPILE_AFTER |               | ms of CPython time (estimated) a loop runs before it is compiled (default 30; 0: at its first entry) |
| MEGAGUARDS_LOG         |                 | debug/info/warning/...: the "megaguards" logger's level, on stderr |
| MEGAGUARDS_SELECT      |                 | device choice under auto: tree (default), model, explore, or seq/cpu/cuda forced |
| MEGAGUARDS_FEATURES_LOG |                | append each entry's features and time (JSON lines) to this file |
| MEGAGUARDS_AUTO_CALIBRATE |              | 0: never start `megaguards calibrate` in the background |
| MEGAGUARDS_REWRITE_CACHE |                | 0: rewrite user modules in every process (no `rewrites/` cache) |
| MEGAGUARDS_COMPILE_TIMEOUT |             | seconds a C compile may take (default 60); past it the loop runs in CPython |
| CC                     |                 | the C compiler and its flags (default: cc, then gcc, then clang) |

On/off variables take 1/0, true/false, on/off, yes/no (any case, spaces around ignored).
An invalid value never raises: one ``MegaguardsWarning`` line names the variable, the
value and the allowed values, and the default is used.  MEGAGUARDS_STRICT is retired:
named once (whatever its value), it changes nothing.
"""
from __future__ import annotations

import math
import os
import sys
from collections import namedtuple

DEVICES = ("auto", "gpu", "cpu", "seq", "off")
SELECT_METHODS = ("tree", "model", "explore", "seq", "cpu", "cuda")
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
# Every on/off variable reads these (case and surrounding spaces ignored; empty: the default).
TRUE_WORDS, FALSE_WORDS = ("1", "true", "on", "yes"), ("0", "false", "off", "no")
FLAG_WORDS = ("1", "0", "true", "false", "on", "off", "yes", "no")
# Variables that no longer do anything, with what to use instead.
RETIRED = {"MEGAGUARDS_STRICT": "results are exact by default; MEGAGUARDS_REASSOCIATE=1 allows reassociated "
                                "float reductions and CUDA's math functions"}


# The options and their defaults.  ``cache_dir`` is a str (``pathlib`` and ``typing`` are not
# imported here: together about 10 ms that every process, loop-free scripts included, would pay
# on an interpreter whose start-up has not imported them already).
_DEFAULTS = {
    "device": "auto",
    "report_json": None,
    "report_table": False,
    "dump_dir": None,
    "cache_dir": os.path.join(os.path.expanduser("~"), ".cache", "megaguards"),   # from_environment: default_cache_dir()
    "reassociate": False,     # exact by default: float reductions fold in order
    "log_level": None,        # None: not asked for, logging is left as the program set it
    "compiler": None,
    "hoist": True,
    "threads": 0,             # 0: OpenMP's default (all cores)
    "parallel_work": 20000,   # iterations x body weight needed to fork threads
    "compile_after": 30,      # ms of a loop's CPython time (estimated) that pay for compiling it (runtime/tiering.py)
    "select": "tree",         # how auto chooses the device (runtime/select.py)
    "features_log": None,
    "auto_calibrate": True,
    "rewrite_cache": True,    # rewritten modules kept in cache_dir/rewrites (runtime/rewrites.py)
    "compile_timeout": 60.0,  # seconds a C compile may take (runtime/compiler.py)
    "retired": (),            # retired variables that are set (runtime/backend.py says so once)
}


class Config(namedtuple("Config", tuple(_DEFAULTS), defaults=tuple(_DEFAULTS.values()))):
    """Frozen: ``configure`` makes a new one.  A named tuple, not a dataclass: importing
    ``dataclasses`` (and ``inspect`` with it) costs about 8 ms, which a script that enters
    no loop must not pay."""

    __slots__ = ()

    @property
    def enabled(self) -> bool:
        return self.device != "off"

    @property
    def parallel(self) -> bool:
        return self.device in ("auto", "gpu", "cpu")


def from_environment(environ=os.environ) -> Config:
    """The options the environment sets.  An invalid value never raises: one
    ``MegaguardsWarning`` line (once per variable and process) names the variable, the
    value given and the values allowed, and the default is used."""
    return Config(
        device=_choice(environ, "MEGAGUARDS_DEVICE", DEVICES),
        report_json=environ.get("MEGAGUARDS_REPORT") or None,
        dump_dir=environ.get("MEGAGUARDS_DUMP") or None,
        cache_dir=os.path.abspath(environ.get("MEGAGUARDS_CACHE_DIR") or default_cache_dir()),
        reassociate=_flag(environ, "MEGAGUARDS_REASSOCIATE", False),
        retired=tuple(name for name in RETIRED if name in environ),
        # Unset: None (logging left as the program set it); set but invalid: warning.
        log_level=_choice(environ, "MEGAGUARDS_LOG", LOG_LEVELS, "warning") if _text(environ, "MEGAGUARDS_LOG")
        else None,
        compiler=environ.get("CC") or None,
        hoist=_flag(environ, "MEGAGUARDS_HOIST", True),
        threads=_integer(environ, "MEGAGUARDS_THREADS", 0),
        parallel_work=_integer(environ, "MEGAGUARDS_PARALLEL_WORK", 20000),
        compile_after=_integer(environ, "MEGAGUARDS_COMPILE_AFTER", 30),
        select=_choice(environ, "MEGAGUARDS_SELECT", SELECT_METHODS),
        features_log=environ.get("MEGAGUARDS_FEATURES_LOG") or None,
        auto_calibrate=_flag(environ, "MEGAGUARDS_AUTO_CALIBRATE", True),
        rewrite_cache=_flag(environ, "MEGAGUARDS_REWRITE_CACHE", True),
        compile_timeout=_seconds(environ, "MEGAGUARDS_COMPILE_TIMEOUT", 60.0),
    )


def default_cache_dir() -> str:
    """The user's cache folder for megaguards, as platformdirs names it: on Linux
    $XDG_CACHE_HOME/megaguards (an absolute XDG_CACHE_HOME), else ~/.cache/megaguards;
    ~/Library/Caches/megaguards on macOS; %LOCALAPPDATA%\\megaguards\\Cache on Windows.  It
    reads ``os.environ``, whatever ``from_environment`` was given.  On Linux the XDG rule is
    applied here (tests/test_config.py checks it against platformdirs'): importing
    platformdirs costs 3-5 ms, which every process would pay, loop-free scripts included."""
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        return os.path.join(base if os.path.isabs(base) else os.path.expanduser("~/.cache"), "megaguards")
    import platformdirs

    return platformdirs.user_cache_dir("megaguards", appauthor=False)


def _text(environ, name: str) -> str:
    """The variable's value, surrounding spaces removed ("": unset or empty, the default)."""
    return environ.get(name, "").strip()


def _invalid(environ, name: str, allowed: str, default) -> None:
    from .errors import warn_once

    warn_once(f"megaguards: {name}={environ[name]!r} is not {allowed}; using {default}", key=("setting", name))


def _flag(environ, name: str, default: bool) -> bool:
    value = _text(environ, name).lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    if value:
        _invalid(environ, name, f"one of {', '.join(FLAG_WORDS)}", int(default))
    return default


def _choice(environ, name: str, choices: tuple, default: str | None = None) -> str:
    """One of ``choices`` (``default``, else the first, when unset or invalid)."""
    value, default = _text(environ, name).lower(), default or choices[0]
    if value in choices:
        return value
    if value:
        _invalid(environ, name, f"one of {', '.join(choices)}", default)
    return default


def _integer(environ, name: str, default: int) -> int:
    return _number(environ, name, default, int, lambda value: value >= 0, "a whole number >= 0")


def _seconds(environ, name: str, default: float) -> float:
    return _number(environ, name, default, float, lambda value: 0 < value < math.inf, "a number of seconds > 0",
                   shown=f"{default:g}")


def _number(environ, name: str, default, parse, valid, allowed: str, shown=None):
    """``parse`` of the variable's text if ``valid`` says it is; else (unset: silently) the default."""
    text = _text(environ, name)
    if text:
        try:
            value = parse(text)
        except ValueError:
            value = None
        if value is not None and valid(value):
            return value
        _invalid(environ, name, allowed, default if shown is None else shown)
    return default


_current = from_environment()


def current() -> Config:
    return _current


_listeners: list = []


def when_changed(listener) -> None:
    """Call ``listener(before, after)`` after every ``configure`` (the runtime's sites wake
    up when a device is switched on again)."""
    _listeners.append(listener)


def configure(**changes) -> Config:
    """Replace options (the CLI's flags); returns the new configuration."""
    global _current
    if "device" in changes and changes["device"] not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}")
    unknown = sorted(set(changes) - set(Config._fields))
    if unknown:
        raise TypeError(f"configure() got unexpected option(s): {', '.join(unknown)}")
    if changes.get("cache_dir") is not None:   # a Path or a str: held as an absolute str
        changes["cache_dir"] = os.path.abspath(os.fspath(changes["cache_dir"]))
    before, _current = _current, _current._replace(**changes)
    for listener in _listeners:
        listener(before, _current)
    return _current
