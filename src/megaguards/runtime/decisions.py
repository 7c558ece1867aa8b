"""Measured times per device, kept on disk with the kernel, so that the next process
starts on the best device it has seen for a loop of this size.

One small JSON file per compiled kernel in ``<cache dir>/decisions/``, named as its
compiled object is (a hash of the generated source, the compiler and the flags).  Times
are kept per *size bucket* (log2 of the entry's work), so a loop that is small in one run
and large in the next is not sent where only the other size ran well.  Writes are atomic (a
temporary file renamed over the old one); a file that cannot be read is ignored.  A
loop entered thousands of times must not write a file each time: times are written when
the process exits.  The folder is listed once per process, and a kernel without a file
there reads none (a process on a fresh cache tries no read per loop); a file another
process writes later serves the processes after this one.
"""
from __future__ import annotations

import atexit
import math
import os

from .cachefile import cache_folder, read_json, write_json
from .process import current as current_process

KEEP = 5   # newest times kept per bucket and device


@atexit.register
def save_all() -> None:
    """Write the times this process measured (at its exit)."""
    unsaved = current_process().unsaved_stores
    while unsaved:
        unsaved.pop().save()


def bucket(work: float) -> str:
    return str(int(round(math.log2(max(1.0, work)))))


class DecisionStore:
    def __init__(self, key: str) -> None:
        self.key = key
        self.folder = cache_folder("decisions")
        self.path = f"{self.folder}/{key}.json"
        self.times, self.visits = self._read(self.path) if f"{key}.json" in _names_in(self.folder) else ({}, {})
        self.start_ups: list = []   # (size, device, seconds) of entries that started a device's threads

    @staticmethod
    def _read(path: str) -> tuple[dict, dict]:
        """(times per bucket and device, processes that met each bucket); empty if unreadable."""
        try:
            data = read_json(path)
            times = {size: {device: [float(t) for t in values][-KEEP:] for device, values in devices.items()}
                     for size, devices in data["buckets"].items()}
            return times, {size: int(count) for size, count in data.get("visits", {}).items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}, {}

    def visit(self, size: str) -> int:
        """Counts the processes that met this size (once per process and size, from select)."""
        self.visits[size] = self.visits.get(size, 0) + 1
        if size in self.times:
            current_process().unsaved_stores.add(self)
        return self.visits[size]

    def best(self, size: str) -> tuple[str | None, dict]:
        """The device with the lowest median time in this bucket, and the medians."""
        medians = {device: median(times) for device, times in self.times.get(size, {}).items() if times}
        return (min(medians, key=medians.get) if medians else None), medians

    def record(self, size: str, device: str, seconds: float, start_up: bool = False) -> None:
        """``start_up``: the entry also started the device's threads (OpenMP's team).  Its time
        is kept for later processes, which pay that start again (for a loop entered once
        it is the cost that matters), but not for this process's own choices, which it
        would send back to a device without the start (see ``select.after_openmp_start``)."""
        if start_up:
            self.start_ups.append((size, device, seconds))
        else:
            self._keep(size, device, seconds)
        current_process().unsaved_stores.add(self)

    def _keep(self, size: str, device: str, seconds: float) -> None:
        times = self.times.setdefault(size, {}).setdefault(device, [])
        times.append(seconds)
        del times[:-KEEP]

    def save(self) -> None:
        current_process().unsaved_stores.discard(self)
        for start_up in self.start_ups:
            self._keep(*start_up)
        self.start_ups.clear()
        try:
            write_json(self.path, {"buckets": self.times, "visits": self.visits})
            _names_in(self.folder).add(f"{self.key}.json")
        except OSError:  # a read-only cache: decisions then last for this process only
            pass


def median(values: list) -> float:
    """``statistics.median``'s value, without its generality (read at every loop's first entries)."""
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def stored_names() -> set:
    """The names of the files in the current cache's decisions folder, listed once per process."""
    return _names_in(cache_folder("decisions"))


def _names_in(folder: str) -> set:
    listed = current_process().listed_folders
    if folder not in listed:
        try:
            listed[folder] = set(os.listdir(folder))
        except OSError:   # no folder yet: nothing stored
            listed[folder] = set()
    return listed[folder]
