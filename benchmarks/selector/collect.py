"""Training data for the learned device selector: every suite program at every size, run
with ``megaguards run`` under ``MEGAGUARDS_DEVICE=auto`` and the device forced per run
(``MEGAGUARDS_SELECT=seq|cpu|cuda``), each loop entry's features and time appended to
``<out>/<program>-<size>-<device>.jsonl`` (``MEGAGUARDS_FEATURES_LOG``).

    python benchmarks/selector/collect.py [--sizes small,medium,large] [--programs ...] --out DIR

With ``--warmup`` each program runs once first (compiling into the shared cache);
the logged run's entries never include compiling, which happens before an entry runs.  A run over ``--timeout`` seconds is skipped.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent / "suite"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="small,medium,large")
    parser.add_argument("--programs", default="")
    parser.add_argument("--devices", default="cuda,cpu,seq")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--warmup", action="store_true", help="run each once before the logged run")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    names = [n for n in options.programs.split(",") if n] or sorted(
        p.stem for p in SUITE.glob("*.py") if p.name != "common.py")
    for size in options.sizes.split(","):
        for name in names:
            for device in options.devices.split(","):
                log = options.out / f"{name}-{size}-{device}.jsonl"
                log.unlink(missing_ok=True)
                environment = {**os.environ, "MEGAGUARDS_DEVICE": "auto", "MEGAGUARDS_SELECT": device,
                               "MEGAGUARDS_AUTO_CALIBRATE": "0"}
                command = [sys.executable, "-m", "megaguards", "run", str(SUITE / f"{name}.py"), "--size", size]
                started = time.perf_counter()
                try:
                    if options.warmup:
                        subprocess.run(command, env=environment, capture_output=True, timeout=options.timeout)
                    warm = subprocess.run(command, env={**environment, "MEGAGUARDS_FEATURES_LOG": str(log)},
                                          capture_output=True, text=True, timeout=options.timeout)
                except subprocess.TimeoutExpired:
                    print(f"{name} {size} {device}: over {options.timeout} s, skipped", flush=True)
                    log.unlink(missing_ok=True)
                    continue
                line = next((l for l in warm.stdout.splitlines() if l.startswith("time=")), "time=?")
                with open(options.out / "times.jsonl", "a") as handle:
                    handle.write(json.dumps({"program": name, "size": size, "device": device,
                                             "time": line[5:], "returncode": warm.returncode}) + "\n")
                print(f"{name} {size} {device}: {line} ({time.perf_counter() - started:.1f} s with compile)",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
