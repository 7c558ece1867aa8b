"""``megaguards cache show|clear`` and the calibration status ``info`` prints.

The cache folder holds ``kernels/mg_<key>.so`` (C kernels and the marshalling helper),
``cuda/<key>.ok`` (CUDA sources NVRTC accepted), ``calibration.json`` (written by
``megaguards calibrate``), ``compilers.json`` (the C compilers' versions), the records
(``runtime/cachefile.py``) of ``renders/`` (kernel sources), ``plans/`` (parallel plans) and
``bundles/`` (a loop's plan with its first kernel's source), the JSON files of
``decisions/`` (measured device times), and ``rewrites/`` (user modules with their loops
rewritten into sites, one verified record per module: ``runtime/rewrites.py``).
Walks never follow symbolic links: a link inside the folder is counted and removed as a
link, whatever it points to."""
from __future__ import annotations

import datetime
import json
import os
import shutil
from pathlib import Path
from typing import Callable

from ..record import record
from .. import record as records
from ..runtime import cachefile
from ..runtime.cachefile import TAG_NAME, tagged

CALIBRATION_FILE = "calibration.json"
KINDS = {".so": "C kernels (.so)", ".ptx": "CUDA kernels (.ptx/.cubin)", ".cubin": "CUDA kernels (.ptx/.cubin)",
         ".ok": "NVRTC checks (.ok)", ".json": "calibration (.json)"}
# A file's kind by its folder, before its suffix.
FOLDERS = {"renders": "rendered kernel sources", "plans": "parallel plans",
           "bundles": "plans with their first kernel", "decisions": "measured device times",
           "rewrites": "rewritten modules"}
FILES = {"compilers.json": "compiler versions (.json)"}
KERNEL_SUFFIXES = (".so", ".ptx", ".cubin")


@record(frozen=False)
class Contents:
    files: int = 0
    size: int = 0
    by_kind: dict = records.field(default_factory=dict)   # kind -> [files, bytes]
    newest: float = 0.0
    newest_path: str = ""

    @property
    def kernels(self) -> int:
        return sum(self.by_kind.get(KINDS[suffix], [0])[0] for suffix in (".so", ".ptx"))

    def add(self, path: str) -> None:
        status = os.lstat(path)
        suffix = os.path.splitext(path)[1]
        folder = os.path.basename(os.path.dirname(path))
        kind = "symbolic links" if os.path.islink(path) else (
            FOLDERS.get(folder) or FILES.get(os.path.basename(path)) or KINDS.get(suffix, "other"))
        counts = self.by_kind.setdefault(kind, [0, 0])
        counts[0] += 1
        counts[1] += status.st_size
        self.files += 1
        self.size += status.st_size
        if status.st_mtime > self.newest:
            self.newest, self.newest_path = status.st_mtime, path


def survey(folder: Path) -> Contents:
    """Every file under ``folder`` (links as links, never followed)."""
    contents = Contents()
    for root, directories, files in os.walk(folder, followlinks=False):
        for name in files + [d for d in directories if os.path.islink(os.path.join(root, d))]:
            contents.add(os.path.join(root, name))
    return contents


def human_size(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def summary(folder: Path) -> str:
    """One line for ``info``: the location, kernel count and size."""
    if not folder.exists():
        return f"{folder} (empty: not created yet)"
    contents = survey(folder)
    return f"{folder} ({contents.kernels} kernels, {contents.files} files, {human_size(contents.size)})"


def describe(folder: Path) -> str:
    """``megaguards cache show``."""
    lines = [f"cache: {folder}"]
    if not folder.exists():
        lines.append("  empty: not created yet (kernels are compiled into it on first use)")
    else:
        contents = survey(folder)
        lines.append(f"  kernels: {contents.kernels}; {contents.files} files, {human_size(contents.size)}")
        for kind, (files, size) in sorted(contents.by_kind.items()):
            lines.append(f"    {kind}: {files} files, {human_size(size)}")
        if contents.files:
            newest = datetime.datetime.fromtimestamp(contents.newest).isoformat(sep=" ", timespec="seconds")
            lines.append(f"  newest: {newest} ({os.path.relpath(contents.newest_path, folder)})")
    lines.append(f"  calibration: {calibration_status(folder)}")
    return "\n".join(lines)


def clear(folder: Path, say: Callable[[str], None] = print) -> bool:
    """Remove what megaguards wrote in ``folder`` (its known sub-folders and files), saying
    what first; False if refused: a folder without megaguards' ``CACHEDIR.TAG`` is not
    megaguards' cache (``MEGAGUARDS_CACHE_DIR=.`` must not empty the current folder)."""
    if not folder.exists() and not folder.is_symlink():
        say(f"cache {folder}: nothing to clear (it does not exist)")
        return True
    if not folder.is_dir() or not tagged(folder):
        say(f"cache {folder}: refusing to clear: it has no megaguards {TAG_NAME} (not a cache megaguards made)")
        return False
    total = Contents()
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            ours = entry.name in cachefile.FOLDERS if entry.is_dir(follow_symlinks=False) else \
                entry.name in cachefile.FILES and entry.name != TAG_NAME
            if not ours:
                continue   # not megaguards': left alone
            inside = Contents()
            if entry.is_dir(follow_symlinks=False):
                inside = survey(Path(entry.path))
                say(f"removing {entry.path}{os.sep} ({inside.files} files, {human_size(inside.size)})")
                shutil.rmtree(entry.path)  # unlinks links inside it, never descends into them
            else:
                inside.add(entry.path)
                say(f"removing {entry.path} ({human_size(inside.size)})")
                os.unlink(entry.path)
            total.files += inside.files
            total.size += inside.size
    say(f"cache {folder}: removed {total.files} files, {human_size(total.size)}")
    return True


def calibration_status(folder: Path) -> str:
    """``calibrated on <date> for <hardware>``, or how to calibrate; read defensively."""
    path = folder / CALIBRATION_FILE
    if not path.is_file():
        from ..runtime.costmodel import calibration_running

        if calibration_running(folder):
            return ("not calibrated yet: a calibration is running in the background (a first run under auto "
                    "started it, at low priority; about 20 s)")
        return "not calibrated (megaguards calibrate)"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        return f"unreadable {path} ({type(error).__name__}); run megaguards calibrate again"
    if not isinstance(data, dict):
        return f"unreadable {path} (not a JSON object); run megaguards calibrate again"
    return f"calibrated on {_date(data.get('date'))} for {_hardware(data.get('hardware'))}"


def _date(value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.datetime.fromtimestamp(value).isoformat(sep=" ", timespec="seconds")
        except (OverflowError, OSError, ValueError):
            return str(value)
    return str(value) if value else "an unknown date"


def _hardware(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key}: {item}" for key, item in value.items()) or "unknown hardware"
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "unknown hardware"
    return str(value) if value else "unknown hardware"
