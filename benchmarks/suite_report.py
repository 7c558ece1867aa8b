"""The suite runner's outputs from its report (a dict, as saved in suite-<size>.json):
the Markdown table of speed-ups over CPython with a geometric-mean row, the stage
breakdown table (MegaGuards' Table 3) and the PNG chart (its Figure 13)."""
from __future__ import annotations

import math
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
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def others(report: dict) -> list[str]:
    return [s for s in report["systems"] if s != "cpython"]


def geomeans(report: dict) -> dict:
    """system -> (geometric mean of its speed-ups, programs counted, any of its own times derived)."""
    found = {}
    for system in others(report):
        ratios, derived = [], False
        for entry in report["programs"].values():
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
    lines = [f"# megaguards benchmark suite, size {report['size']}", "",
             f"- date: {report['date']}",
             f"- machine: {machine['cpu_model']}, {machine['cpus_usable']} usable CPUs, Python {machine['python']}",
             f"- megaguards: {machine['megaguards_source']}",
             f"- runs: {report['repeat']} per program and system, each in its own process; median of the "
             "kernel region's time (`time=`). megaguards systems: one cold run first (a fresh kernel cache: it "
             f"compiles; `cold_time` in the JSON), then {report['repeat']} warm run(s)."]
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
    notes = notes_for(report)
    return "\n".join(lines + ([""] + ["## Notes", ""] + notes if notes else [])) + "\n"


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


def stages_markdown(report: dict) -> str:
    lines = [f"# megaguards stage breakdown, size {report['size']}", "",
             "Milliseconds per stage, summed over the program's loops (the loop report, `MEGAGUARDS_REPORT`). "
             "cold: the first run, kernel cache empty (analysis + compile); warm: the second run, kernels cached "
             "on disk (each process still analyses its loops). transfer: host-device copies (GPU runs only). "
             "time=: the program's kernel region, which also holds what runs outside loop sites.", "",
             "| program | system | run | " + " | ".join(STAGES) + " | time= |",
             "|---|---|---|" + "---|" * (len(STAGES) + 1)]
    for name, entry in report["programs"].items():
        for system, result in entry["systems"].items():
            for phase, stages in result.get("stages_ms", {}).items():
                region = result["cold_time"] if phase == "cold" else result["times"][0]
                cells = [f"{stages[stage]:.2f}" for stage in STAGES] + [f"{1000 * region:.2f}"]
                lines.append(f"| {name} | {system}{mark(result)} | {phase} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


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
    groups = list(report["programs"]) + ["geomean"]
    means = geomeans(report)
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
