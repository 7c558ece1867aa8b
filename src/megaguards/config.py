"""One frozen options object; the environment is read here and nowhere else.

| variable               | flag            | meaning                                              |
|------------------------|-----------------|------------------------------------------------------|
| MEGAGUARDS_DEVICE      | --device        | auto (default) / seq / off (plain CPython)            |
| MEGAGUARDS_REPORT      | --report-json   | write the JSON loop report to this path at exit       |
| MEGAGUARDS_DUMP        | --dump          | write every generated kernel source into this folder  |
| MEGAGUARDS_CACHE_DIR   |                 | compiled kernels (default: ~/.cache/megaguards)       |
| MEGAGUARDS_STRICT      |                 | 1: no reassociating float reductions (later backends) |
| MEGAGUARDS_HOIST       |                 | 0: keep every bounds/overflow check inside the loop   |
| MEGAGUARDS_LOG         |                 | logging level of the "megaguards" logger              |
| CC                     |                 | the C compiler (default: cc, then gcc, then clang)    |
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

DEVICES = ("auto", "seq", "off")


@dataclass(frozen=True)
class Config:
    device: str = "auto"
    report_json: str | None = None
    report_table: bool = False
    dump_dir: str | None = None
    cache_dir: Path = Path.home() / ".cache" / "megaguards"
    strict: bool = False
    log_level: str = "warning"
    compiler: str | None = None
    hoist: bool = True

    @property
    def enabled(self) -> bool:
        return self.device != "off"


def from_environment(environ=os.environ) -> Config:
    device = environ.get("MEGAGUARDS_DEVICE", "auto").strip().lower() or "auto"
    if device not in DEVICES:
        raise ValueError(f"MEGAGUARDS_DEVICE must be one of {', '.join(DEVICES)}, not {device!r}")
    cache = environ.get("MEGAGUARDS_CACHE_DIR") or os.path.join(
        environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "megaguards")
    return Config(
        device=device,
        report_json=environ.get("MEGAGUARDS_REPORT") or None,
        dump_dir=environ.get("MEGAGUARDS_DUMP") or None,
        cache_dir=Path(cache),
        strict=environ.get("MEGAGUARDS_STRICT", "0") not in ("", "0", "false", "no"),
        log_level=environ.get("MEGAGUARDS_LOG", "warning"),
        compiler=environ.get("CC") or None,
        hoist=environ.get("MEGAGUARDS_HOIST", "1") not in ("0", "false", "no", "off"),
    )


_current = from_environment()


def current() -> Config:
    return _current


def configure(**changes) -> Config:
    """Replace options (the CLI's flags); returns the new configuration."""
    global _current
    if "device" in changes and changes["device"] not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(DEVICES)}")
    _current = dataclasses.replace(_current, **changes)
    return _current
