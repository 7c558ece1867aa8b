"""Device selection against its oracle, from the suite runner's JSON files.

    python benchmarks/selection_report.py --size small results/.../suite-small.json \\
        --size medium part1/suite-medium.json part2/suite-medium.json ... [--rerun FILE ...]
        [--statistic median|min] [--out F.md]

Per program and size the *oracle* is the fastest of ``megaguards-seq``, ``-cpu`` and
``-gpu`` measured in the same run; every policy (``auto-fresh``: a fresh process with an
empty decision store; ``auto``: with the store the run's earlier process left;
``explore``: MegaGuards' adaptive exploration; and the fixed devices, i.e. always-CPU and
always-GPU) is reported as its time over the oracle's, with the geometric mean and the
worst case per size.  ``--rerun`` files (another run, after a change) add their policies
as extra columns marked as measured in a separate run: the same machine, not the same run.
Files of one size that measured the same program (runs of the same code, repeated to
lower the noise) are pooled: the median of all their warm runs.

``--interval N`` adds a row with each policy's 95% bootstrap interval of the geomean: N
times, every system's warm runs of every program are drawn again with replacement and the
statistic, the oracle, the ratios and their geomean computed afresh (seeded: the same
files give the same interval).  Where single runs spread 1.5-2x, it says how far the
geomean itself could move with another draw of the same runs.  A policy measured once per
program (as ``--repeat 1`` at large), with an oracle measured once, has nothing to redraw:
its cell reads "one run" instead of a zero-width interval.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

ORACLE = ("megaguards-seq", "megaguards-cpu", "megaguards-gpu")
POLICIES = ("megaguards-auto-fresh", "megaguards-auto", "megaguards-explore", "megaguards-cpu",
            "megaguards-seq", "megaguards-gpu")
NAMES = {"megaguards-auto-fresh": "auto, empty store", "megaguards-auto": "auto, warm store",
         "megaguards-explore": "explore (MegaGuards)", "megaguards-cpu": "always CPU",
         "megaguards-seq": "always one thread", "megaguards-gpu": "always GPU"}


def medians(paths: list[Path], statistic: str = "median") -> dict:
    """program -> system -> median seconds, over the parts of one size.  A program measured
    in several files (runs of the same code) gets the median of all their runs, pooled.
    ``statistic="min"``: the fastest run instead (where other tenants slow single processes
    down at random, the least disturbed run of each system)."""
    summarize = min if statistic == "min" else statistics.median
    return {program: {system: summarize(times) for system, times in systems.items()}
            for program, systems in warm_runs(paths).items()}


def warm_runs(paths: list[Path]) -> dict:
    """program -> system -> every warm run's seconds, pooled over the files (a file without
    its runs contributes its median once)."""
    pooled: dict = {}
    for path in paths:
        for program, result in json.loads(path.read_text())["programs"].items():
            for system, timing in result["systems"].items():
                if timing.get("status") == "ok" and system.startswith("megaguards-"):
                    runs = pooled.setdefault(program, {}).setdefault(system, [])
                    runs.extend(timing.get("times") or [timing["median"]])
    return pooled


def bootstrap_interval(runs: dict, policies: list[str], statistic: str = "median", resamples: int = 1000,
                       seed: int = 0) -> dict:
    """policy -> (2.5th, 97.5th percentile) of its geomean ratio to the oracle over
    ``resamples`` redraws of every system's runs with replacement.  A policy left out of
    the answer had one run of itself and of the oracle's systems per program: no spread."""
    draw = random.Random(seed)
    summarize = min if statistic == "min" else statistics.median
    geomeans: dict = {policy: [] for policy in policies}
    for _ in range(resamples):
        ratios: dict = {policy: [] for policy in policies}
        for systems in runs.values():
            drawn = {system: summarize(draw.choices(times, k=len(times))) for system, times in systems.items()}
            oracle = min((drawn[s] for s in ORACLE if s in drawn), default=None)
            if oracle is None:
                continue
            for policy in policies:
                if policy in drawn:
                    ratios[policy].append(drawn[policy] / oracle)
        for policy, values in ratios.items():
            if values:
                geomeans[policy].append(statistics.geometric_mean(values))
    return {policy: (percentile(values, 2.5), percentile(values, 97.5))
            for policy, values in geomeans.items() if values and redrawable(runs, policy)}


def redrawable(runs: dict, policy: str) -> bool:
    """Whether any program has more than one run of the policy or of an oracle system."""
    return any(len(systems.get(system, ())) > 1 for systems in runs.values() for system in (policy, *ORACLE))


def percentile(values: list[float], percent: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(percent / 100 * (len(ordered) - 1))))]


def table(size: str, measured: dict, rerun: dict, intervals: dict | None = None) -> tuple[list[str], dict]:
    policies = [p for p in POLICIES if any(p in systems for systems in measured.values())]
    extra = [p for p in POLICIES if any(p in systems for systems in rerun.values())]
    header = ["program", "oracle"] + [NAMES[p] for p in policies] + [f"{NAMES[p]} (re-run)‡" for p in extra]
    lines = [f"### {size}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    ratios: dict = {column: [] for column in header[2:]}
    for program in sorted(measured):
        systems = measured[program]
        candidates = {s: systems[s] for s in ORACLE if s in systems}
        if not candidates:
            continue
        best = min(candidates, key=candidates.get)
        cells = [program, f"{best.split('-', 1)[1]} {candidates[best] * 1e3:.4g} ms"]
        for column, (policy, source) in zip(header[2:], [(p, systems) for p in policies] +
                                             [(p, rerun.get(program, {})) for p in extra]):
            if policy in source:
                ratio = source[policy] / candidates[best]
                ratios[column].append(ratio)
                cells.append(f"{ratio:.2f}x")
            else:
                cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    summary = {column: (statistics.geometric_mean(values), max(values)) for column, values in ratios.items() if values}
    lines.append("| **geomean** | | " + " | ".join(
        f"**{summary[c][0]:.2f}x**" if c in summary else "-" for c in header[2:]) + " |")
    lines.append("| **worst** | | " + " | ".join(
        f"{summary[c][1]:.2f}x" if c in summary else "-" for c in header[2:]) + " |")
    if intervals is not None:
        cells = [f"{intervals[p][0]:.2f}-{intervals[p][1]:.2f}x" if p in intervals else "one run" for p in policies]
        lines.append("| **geomean, 95% interval** | | " + " | ".join(cells + ["-"] * len(extra)) + " |")
    return lines + [""], summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", nargs="+", action="append", required=True, metavar=("SIZE", "JSON"),
                        help="a size and the runner JSON files (parts) measured at it")
    parser.add_argument("--rerun", nargs="+", action="append", default=[], metavar=("SIZE", "JSON"),
                        help="a size and JSON files of a separate run whose policies are added as columns")
    parser.add_argument("--statistic", choices=("median", "min"), default="median",
                        help="each system's time per program: the median of its warm runs (default) or the fastest")
    parser.add_argument("--interval", type=int, default=0, metavar="N",
                        help="add each policy's 95%% bootstrap interval of the geomean, from N redraws")
    parser.add_argument("--out", type=Path)
    options = parser.parse_args(argv)
    reruns = {group[0]: medians([Path(p) for p in group[1:]], options.statistic) for group in options.rerun}
    lines = ["Time over the oracle (the fastest of seq, cpu and gpu in the same run; 1.00x is the oracle; "
             f"each system's {'fastest' if options.statistic == 'min' else 'median'} warm run).", ""]
    for group in options.size:
        size, paths = group[0], [Path(p) for p in group[1:]]
        rerun = reruns.get(size, {})
        measured = medians(paths, options.statistic)
        intervals = None
        if options.interval:
            policies = [p for p in POLICIES if any(p in systems for systems in measured.values())]
            intervals = bootstrap_interval(warm_runs(paths), policies, options.statistic, options.interval)
        section, _ = table(size, measured, rerun, intervals)
        lines += section
    if reruns:
        lines += ["‡ measured in a separate run on the same machine after a change; its ratio divides by the "
                  "oracle of the main run.", ""]
    text = "\n".join(lines)
    print(text)
    if options.out:
        options.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
