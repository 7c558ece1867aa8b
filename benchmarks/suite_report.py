"""The suite runner's outputs from its report (a dict, as saved in suite-<size>.json):
the Markdown table of speed-ups over CPython with a geometric-mean row, the stage
breakdown table (MegaGuards' Table 3) and the PNG chart (its Figure 13)."""
from __future__ import annotations

import math
import statistics
from pathlib import Path

STAGES = ("analysis", "compile", "unbox", "transfer", "execute", "writeback")
DERIVED = "†"


def speedup(results: dict, system: str) -> float | None:
    """CPython's median over the system's, when both ran and agreed."""
    base, result = results.get("cpython", {}), results.get(system, {})
    if base.get("status") != "ok" or result.get("status") != "ok" or not result["median"]:
        return None
    return base["median"] / result["median"]


def geometric_mean(values: list[float]) -> float | None:
    return statistics.geometric_mean(values) if values else None


def others(report: dict) -> list[str]:
    return [s for s in report["systems"] if s != "cpython"]


def common_programs(report: dict) -> list[str]:
    """The programs on which every system that has any speed-up has one: a geometric mean
    over them compares like with like (e.g. PyPy runs no NumPy program)."""
    ran = {system: {name for name, entry in report["programs"].items() if speedup(entry["systems"], system)}
           for system in others(report)}
    present = [names for names in ran.values() if names]
    shared = set.intersection(*present) if present else set()
    return [name for name in report["programs"] if name in shared]


def geomeans(report: dict, names: list[str] | None = None) -> dict:
    """system -> (geometric mean of its speed-ups, programs counted, any of its own times derived),
    over the named programs (default: all)."""
    found = {}
    for system in others(report):
        ratios, derived = [], False
        for name, entry in report["programs"].items():
            if names is not None and name not in names:
                continue
            value = speedup(entry["systems"], system)
            if value is not None:
                ratios.append(value)
                derived |= bool(entry["systems"][system].get("derived_from"))
        found[system] = (geometric_mean(ratios), len(ratios), derived)
    return found


def times(value: float) -> str:
    """A speed-up as the table shows it; two significant digits for slow-downs (0.05x, not 0.0x)."""
    return f"{value:.1f}x" if value >= 1.0 else f"{value:.2g}x"


def mark(result: dict) -> str:
    return DERIVED if result.get("derived_from") else ""


def markdown(report: dict) -> str:
    systems, machine = others(report), report["machine"]
    lines = [f"# megaguards benchmark suite, size {report['size']}" + (", peak (warm call)" if report.get("peak")
                                                                    else ""), "",
             f"- date: {report['date']}",
             f"- machine: {machine['cpu_model']}, {machine['cpus_usable']} usable CPUs, Python {machine['python']}",
             f"- megaguards: {machine['megaguards_source']}",
             f"- runs: {report['repeat']} per program and system, each in its own process, the systems in turn "
             "(every system's k-th run before any system's next); median of the "
             "kernel region's time (`time=`). megaguards systems: one cold run first (a fresh kernel cache: it "
             f"compiles; `cold_time` in the JSON), then {report['repeat']} warm run(s)."]
    if report.get("peak"):
        lines.append(f"- peak mode: every process runs the program's computation {report['peak']} times (fresh "
                     "inputs each time) and the last, warm call is timed (the MegaGuards paper's method): no "
                     "start-up, compilation or first-call costs; the whole-process tables measure those.")
    if report.get("derive_from"):
        lines.append(f"- {DERIVED} derived: {', '.join(report['derived_systems'])} timed at size "
                     f"{report['derive_from']} and scaled by the program's work({report['size']}) / "
                     f"work({report['derive_from']}); see the notes for each ratio.")
    lines += ["", "Speed-up over CPython (median time of CPython / median time of the system):", "",
              "| program | CPython | " + " | ".join(systems) + " |", "|---|---|" + "---|" * len(systems)]
    programs = report["programs"]
    for name, entry in programs.items():
        results = entry["systems"]
        base = results.get("cpython", {})
        cells = [f"{base['median']:.4g} s{mark(base)}" if base.get("status") == "ok" else base.get("status", "-")]
        for system in systems:
            value, result = speedup(results, system), results.get(system, {})
            cells.append(f"{times(value)}{mark(result)}" if value is not None else result.get("status", "-"))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    cells = []
    for system, (value, counted, derived) in geomeans(report).items():
        if value is None:
            cells.append("-")
        else:
            cells.append(f"{times(value)}{DERIVED if derived else ''}"
                         + ("" if counted == len(programs) else f" ({counted} of {len(programs)})"))
    lines.append("| **geomean** | | " + " | ".join(cells) + " |")
    shared = common_programs(report)
    if shared and any(counted > len(shared) for _, counted, _ in geomeans(report).values()):
        cells = [f"{times(value)}{DERIVED if derived else ''}" if value is not None else "-"
                 for value, _, derived in geomeans(report, shared).values()]
        lines.append(f"| **geomean, the {len(shared)} of {len(programs)} programs every system ran** | | " + " | ".join(cells) + " |")
    lines += wall_table(report, systems)
    notes = notes_for(report)
    return "\n".join(lines + ([""] + ["## Notes", ""] + notes if notes else [])) + "\n"


def wall_table(report: dict, systems: list[str]) -> list[str]:
    """Whole processes (not in peak mode): each system's median wall seconds, start-up, input
    building and CUDA's warm-up included, which ``time=`` leaves out (a warm-up thread slows
    the script's own start: ``time=`` alone flatters the GPU).  Derived times are another
    size's processes: left out."""
    if report.get("peak"):
        return []
    def wall(result: dict) -> float | None:   # a mismatch or an error has no time
        usable = result.get("status") == "ok" and "median_wall" in result and not result.get("derived_from")
        return result["median_wall"] if usable else None

    shown = [s for s in ["cpython", *systems]
             if any(wall(e["systems"].get(s, {})) is not None for e in report["programs"].values())]
    if not shown:
        return []
    lines = ["", "Whole process, median wall seconds of the timed runs (start-up, input building and the "
             "checksum included; derived systems, timed at another size, left out):", "",
             "| program | " + " | ".join(shown) + " |", "|---|" + "---|" * len(shown)]
    for name, entry in report["programs"].items():
        cells = [f"{seconds:.3f}" if (seconds := wall(entry["systems"].get(s, {}))) is not None else "-"
                 for s in shown]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def notes_for(report: dict) -> list[str]:
    notes = []
    if report.get("chart") and not str(report["chart"]).endswith(".png"):
        notes.append(f"- {report['chart']}")
    for name, entry in report["programs"].items():
        results = entry["systems"]
        reference = entry.get("checksum_reference")
        if results.get("cpython", {}).get("derived_from") and reference:
            notes.append(f"- {name}: CPython ran at another size, so checksums were compared with {reference}'s")
        elif reference is None:
            notes.append(f"- {name}: no checksum to compare with (neither CPython nor megaguards ran here)")
        for system, result in results.items():
            if result.get("derived_from"):
                notes.append(f"- {name} / {system}: {DERIVED} timed at size {result['derived_from']}, "
                             f"times x {result['work_ratio']:.4g} (work ratio)")
            if result.get("note"):
                notes.append(f"- {name} / {system}: {result['status']}: {result['note']}")
    return notes


STAGE_INTRO = (
    "Milliseconds per stage, from the loop report (`MEGAGUARDS_REPORT`), summed over the loops that run "
    "inside the program's timed region (`time=`: main's `timer.start()` .. `timer.stop()` and the functions "
    "called from there); loops of the input set-up and the checksum are counted apart (row \"outside "
    "time=\"). cold: the first run, kernel cache empty (it analyses and compiles); warm: the second run, "
    "kernels cached on disk (each process still analyses its loops, then loads the compiled code). "
    "not booked: time= less its stages, i.e. what runs interpreted (loops that fell back, code outside "
    "loop sites), guards and dispatch. transfer: host-device copies, GPU runs only (the row is left "
    "out where it is 0).")


def stage_columns(results: dict) -> list[tuple[str, str, dict, float]]:
    """(system, phase, stage milliseconds, time= in ms) for every run that has a breakdown."""
    columns = []
    for system, result in results.items():
        for phase, stages in result.get("stages_ms", {}).items():
            region = result["cold_time"] if phase == "cold" else result["times"][0]
            columns.append((f"{system}{mark(result)}", phase, stages, 1000 * region))
    return columns


def share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole > 0 else "-"


def stage_overview(report: dict) -> list[str]:
    """One row per program and system: each stage of the warm run as a share of its time=."""
    lines = ["## Warm run: share of time= per stage", "",
             "| program | system | time= (ms) | " + " | ".join(STAGES) + " | not booked |",
             "|---|---|---:|" + "---:|" * (len(STAGES) + 1)]
    for name, entry in report["programs"].items():
        for system, phase, stages, region in stage_columns(entry["systems"]):
            if phase != "warm":
                continue
            rest = region - sum(stages[stage] for stage in STAGES)
            cells = [share(stages[stage], region) for stage in STAGES] + [share(rest, region)]
            lines.append(f"| {name} | {system} | {region:.1f} | " + " | ".join(cells) + " |")
    return lines


def stage_table(name: str, entry: dict) -> list[str]:
    """The program's stages (rows) by system and run (columns), in ms."""
    columns = stage_columns(entry["systems"])
    if not columns:
        return []
    rows = [stage for stage in STAGES if stage != "transfer" or any(c[2]["transfer"] for c in columns)]
    lines = [f"### {name}", "", "| ms | " + " | ".join(f"{system} {phase}" for system, phase, _, _ in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for stage in rows:
        lines.append(f"| {stage} | " + " | ".join(f"{c[2][stage]:.1f}" for c in columns) + " |")
    lines.append("| not booked | " + " | ".join(f"{c[3] - sum(c[2][s] for s in STAGES):.1f}" for c in columns) + " |")
    lines.append("| **time=** | " + " | ".join(f"**{c[3]:.1f}**" for c in columns) + " |")
    if any("outside_region" in c[2] for c in columns):
        lines.append("| outside time= | " + " | ".join(
            f"{sum(c[2].get('outside_region', {}).values()):.1f}" for c in columns) + " |")
    for key, label in (("bytes_to_device", "MB to device"), ("bytes_from_device", "MB from device")):
        if any(c[2].get(key) for c in columns):
            lines.append(f"| {label} | " + " | ".join(f"{c[2].get(key, 0) / 1e6:.2f}" for c in columns) + " |")
    return lines + [""]


def stages_markdown(report: dict) -> str:
    lines = [f"# megaguards stage breakdown, size {report['size']}", "", STAGE_INTRO, ""]
    lines += stage_overview(report) + ["", "## Per program: cold and warm, ms", ""]
    for name, entry in report["programs"].items():
        lines += stage_table(name, entry)
    return "\n".join(lines).rstrip("\n") + "\n"


def chart(report: dict, path: Path) -> str:
    """Grouped bars of speed-ups over CPython (log scale), one group per program plus the
    geometric mean; returns the file's name, or why there is no chart."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        return "no chart: matplotlib is not installed (pip install matplotlib)"
    systems = [s for s in others(report)
               if any(speedup(e["systems"], s) for e in report["programs"].values())]
    if not systems:
        return "no chart: no system besides CPython has a speed-up"
    # Where some system skipped programs (PyPy: the NumPy ones), every mean bar covers the same ones.
    shared = common_programs(report)
    uneven = bool(shared) and any(counted > len(shared) for _, counted, _ in geomeans(report).values())
    groups = list(report["programs"]) + [f"geomean ({len(shared)} all ran)" if uneven else "geomean"]
    means = geomeans(report, shared if uneven else None)
    width = 0.8 / len(systems)
    figure, axes = pyplot.subplots(figsize=(max(8.0, 0.5 * len(groups) * (1 + 0.25 * len(systems))), 4.8))
    for k, system in enumerate(systems):
        heights, hatches = [], []
        for entry in report["programs"].values():
            heights.append(speedup(entry["systems"], system) or math.nan)
            hatches.append(bool(entry["systems"].get(system, {}).get("derived_from")))
        heights.append(means[system][0] or math.nan)
        hatches.append(means[system][2])
        positions = [g + (k - (len(systems) - 1) / 2) * width for g in range(len(groups))]
        # Bars grow from 1x (CPython): a slow-down hangs below the line.
        bars = axes.bar(positions, [h - 1.0 for h in heights], width, bottom=1.0, label=system)
        for bar, derived in zip(bars, hatches):
            if derived:
                bar.set_hatch("//")
        if not math.isnan(heights[-1]):  # the geometric mean's value on its bar
            above = heights[-1] >= 1.0
            axes.annotate(f"{heights[-1]:.3g}", (positions[-1], heights[-1]), xytext=(0, 2 if above else -2),
                          textcoords="offset points", ha="center", va="bottom" if above else "top",
                          fontsize=7, rotation=90)
    axes.set_yscale("log")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(range(len(groups)))
    axes.set_xticklabels(groups, rotation=45, ha="right")
    axes.set_ylabel("speed-up over CPython (log scale)")
    title = f"megaguards suite, size {report['size']}, {report['machine']['cpu_model']}"
    if report.get("derive_from"):
        title += (f"\n{', '.join(report['derived_systems'])} timed at size {report['derive_from']}, "
                  "scaled by the work ratio (hatched bars)")
    axes.set_title(title, fontsize=10)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes.grid(axis="y", which="major", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=150)
    pyplot.close(figure)
    return path.name
