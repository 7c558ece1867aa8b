"""The everyday group's output (see everyday_runner.py): the text table, the Markdown file
and an SVG bar chart of the ratios (no plotting package needed)."""
from __future__ import annotations

import math
import shlex
import statistics
from xml.sax.saxutils import escape

COLUMNS = ("#", "program", "CPython s", "megaguards s (warm median)", "ratio", "cold first run s",
           "loop report (warm)", "target", "status")


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def cells(row: dict, timeout: float) -> list[str]:
    """One table row; a run that failed shows why instead of a number."""
    problems = " ".join(row["problems"])
    if "checksum" in problems and "!=" in problems:
        megaguards, ratio = "mismatch", "-"
    elif row["problems"]:
        megaguards, ratio = "error", "-"
    elif row["megaguards_s"] is None:
        megaguards, ratio = "-", "-"
    elif row["timeout"]:
        value = row["megaguards_s"]
        megaguards = f"> {value:g}" if value >= timeout else f">= {value:.3f}"
        ratio = f"< {row['ratio']:.3f}x"
    else:
        megaguards, ratio = _seconds(row["megaguards_s"]), f"{row['ratio']:.2f}x"
    cold = row["cold"]
    cold_text = (f"> {timeout:g}" if cold.get("timeout") else "error" if "error" in cold
                 else "mismatch" if cold.get("checksum") not in (None, row["checksum"]) else _seconds(cold["wall"]))
    failed = [t["target"] for t in row["targets"] if not t["passed"]]
    if row["problems"]:
        status = "FAIL: " + ("checksum mismatch" if megaguards == "mismatch" else "error")
    elif row["megaguards_s"] is None:
        status = "FAIL: not measured"
    else:
        status = "FAIL: " + ", ".join(failed) if failed else "PASS"
    target = "<= 1.1x + 30 ms" + (", <= +30 ms" if row["startup"] else "") \
        + (", >= 3x" if row["compilable"] else "")
    return [row["id"], row["program"], _seconds(row["cpython_s"]), megaguards, ratio, cold_text,
            loop_summary(row.get("report")), target, status]


def loop_summary(report: dict | None) -> str:
    if report is None:
        return "-"
    if not report["sites"]:
        return "no loop site reached"
    parts = [f"{report['compiled']} compiled", f"{report['fallback']} fallback"]
    if report["mixed"]:
        parts.append(f"{report['mixed']} mixed")
    return (", ".join(parts) + f" (entries {report['compiled_entries']} compiled / "
            f"{report['fallback_entries']} fallback)")


def text_table(result: dict) -> str:
    table = [columns(result)] + [cells(row, result["timeout_s"]) for row in result["rows"]]
    widths = [max(len(line[i]) for line in table) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in table]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def shown_command(command: str) -> str:
    """The command without its --note texts (the header lists them)."""
    words, kept = shlex.split(command), []
    while words:
        word = words.pop(0)
        if word == "--note" and words:
            words.pop(0)
        elif not word.startswith("--note="):
            kept.append(word)
    return shlex.join(kept)


def columns(result: dict) -> list[str]:
    """The table's header, naming the statistic of the warm runs (median, or min)."""
    return [c.replace("median", result.get("statistic", "median")) for c in COLUMNS]


def markdown(result: dict) -> str:
    machine = result["machine"]
    load = result["load_average_1min"]
    took = f"{result['duration_s'] / 60:.1f} min" if result["duration_s"] >= 60 else f"{result['duration_s']:.0f} s"
    statistic = "fastest" if result.get("statistic") == "min" else "median"
    out = ["# Everyday group: whole programs, megaguards vs CPython (issue 25)", "",
           f"- date: {result['date']}; command: `{shown_command(result['command'])}`; mode: {result['mode']}"
           f" ({result['repetitions']} interleaved repetitions, {result.get('statistic', 'median')};"
           " loop-free: at least 10 in full mode);"
           f" took {took}",
           f"- machine: {machine['cpu_model']}, {machine['cpus_usable']} usable CPUs, Python {machine['python']},"
           f" megaguards from {machine['megaguards_source']}, {machine.get('compiler_version') or 'no C compiler'}",
           f"- 1-minute load average: {load['before']} before, {load['after']} after"]
    out += [f"- {note}" for note in result["notes"]]
    startup = [row for row in result["rows"] if row["startup"] and row["megaguards_s"] is not None]
    if startup:
        extra = startup[0]["megaguards_s"] - startup[0]["cpython_s"]
        out.append(f"- start-up: `megaguards run` adds {extra:+.3f} s to a script without loops (row"
                   f" {startup[0]['program']}); every row pays it")
    out += [f"- cost-model calibration: {result['calibration']}",
            f"- every process has a time limit of {result['timeout_s']:g} s: a run past it shows as `> limit`"
            " and its ratio as an upper bound",
            "- ratio = CPython s / megaguards s (below 1: megaguards is slower); rows sorted slow-downs first",
            ""]
    if result["mode"] == "quick":
        out += ["**--quick: small sizes, 1 repetition; the targets are for the full sizes, PASS/FAIL is only"
                " indicative.**", ""]
    out.append("| " + " | ".join(columns(result)) + " |")
    out.append("|" + "|".join("---" for _ in COLUMNS) + "|")
    for row in result["rows"]:
        out.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells(row, result["timeout_s"])) + " |")
    out += ["", f"Chart: [{result['chart']}]({result['chart']}).", "", "## Notes per program", ""]
    for row in result["rows"]:
        lines = row["problems"] + row["notes"]
        cpu = {engine: [o["cpu"] for o in runs] for engine, runs in row["runs"].items()}
        if cpu["cpython"] and cpu["megaguards"]:
            lines.append(f"CPU time (user + sys), median: CPython {statistics.median(cpu['cpython']):.3f} s,"
                         f" megaguards warm {statistics.median(cpu['megaguards']):.3f} s")
        out.append(f"- **{row['program']}** `{' '.join(row['arguments'])}` ({row['models']}); checksum"
                   f" `{row['checksum']}`, {row['checksums_compared']} megaguards run(s) compared with it")
        out += [f"  - {line}" for line in lines]
    out += ["", "## Columns", "",
            f"- CPython s: {statistic} whole-process wall time of `python program.py ARGS`.",
            f"- megaguards s: {statistic} of the warm runs of `python -m megaguards run --report-json R program.py ARGS`"
            " (default settings; the program's kernel cache filled by the cold run).",
            "- cold first run s: the first megaguards run with the program's fresh, empty kernel cache"
            " (compiles every kernel).",
            f"- loop report: the {statistic} warm run's `--report-json`: loop sites that only ran compiled, only fell"
            " back (ran in CPython), or both; entries summed over sites.",
            "- CPU time (notes): user + sys seconds of the process and its children; above the wall time: threads;"
            " wall time well above it: the process waited, e.g. for other load on the machine.",
            "- target: issue 25's: every program <= 1.1x CPython + 30 ms; loop-free <= CPython + 30 ms;"
            " compilable programs >= 3x CPython.",
            "", "## Machine", ""]
    out += [f"- {key}: {value}" for key, value in machine.items()]
    return "\n".join(out) + "\n"


def chart_svg(result: dict) -> str:
    """Horizontal bars of log(ratio) around 1x, marks at 1/1.1 and 3x; unmeasured rows say why."""
    rows = result["rows"]
    width, left, right, top, step = 760, 150, 60, 40, 24
    height = top + step * len(rows) + 40
    low, high = math.log10(1 / 300), math.log10(30)

    def x(ratio: float) -> float:
        value = min(max(math.log10(ratio), low), high)
        return left + (value - low) / (high - low) * (width - left - right)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif"'
             ' font-size="12">', '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{left}" y="18" font-size="14">everyday group: CPython / megaguards, whole process'
             f' ({escape(result["date"][:10])}, {result["mode"]})</text>']
    for ratio, label, colour in ((1.0, "1x", "black"), (1 / 1.1, "", "#c60"), (3.0, "3x", "#080")):
        parts.append(f'<line x1="{x(ratio):.1f}" y1="{top - 6}" x2="{x(ratio):.1f}" y2="{height - 30}"'
                     f' stroke="{colour}" stroke-dasharray="{"" if ratio == 1 else "4,3"}"/>')
        parts.append(f'<text x="{x(ratio):.1f}" y="{height - 16}" text-anchor="middle">{label}</text>')
    for tick in (1 / 100, 1 / 10, 10):
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 16}" text-anchor="middle" fill="#666">'
                     f'{tick:g}x</text>')
    for k, row in enumerate(rows):
        y = top + k * step
        parts.append(f'<text x="{left - 8}" y="{y + 15}" text-anchor="end">{escape(row["program"])}</text>')
        if row["ratio"] is None:
            status = cells(row, result["timeout_s"])[-1]
            parts.append(f'<text x="{x(1.0) + 6:.1f}" y="{y + 15}" fill="#c00">{escape(status)}</text>')
            continue
        start, end = sorted((x(1.0), x(row["ratio"])))
        colour = "#c33" if row["ratio"] < 1 else "#3a3"
        parts.append(f'<rect x="{start:.1f}" y="{y + 3}" width="{max(end - start, 1):.1f}" height="{step - 8}"'
                     f' fill="{colour}"/>')
        text = ("< " if row["timeout"] else "") + f"{row['ratio']:.3g}x"
        anchor, at, fill = ("end", start - 4, "black") if row["ratio"] < 1 else ("start", end + 4, "black")
        if row["ratio"] < 1 and start - 4 - 7 * len(text) < left:   # no room left of the bar: inside it
            anchor, at, fill = "start", start + 4, "white"
        parts.append(f'<text x="{at:.1f}" y="{y + 15}" text-anchor="{anchor}" fill="{fill}">{escape(text)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
