"""The benchmark's report: a short Markdown page, the figures as JSON, every run as JSON lines, and a
PNG (cost vs success, latency distribution). matplotlib is optional (the `bench` extra); without it
the report says the plot was skipped."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from visual_degrees_tools.bench.metrics import CONTRACT_KEYS, RunRecord, cost_success_curve
from visual_degrees_tools.extras import install_command

PLOT_FILE = "plot.png"
# What the figures a reader stops at mean (the table's other rows are named for what they count).
MEANINGS = {
    "success_rate": "solved solvable pairs / solvable pairs (a pair is solvable when the simulator's "
    "photos hold a chain within max hops).",
    "false_paths": "reported paths with a link its photo does not truly show: must be 0.",
    "namesake_paths": "reported paths whose every photo is real but which start or end at a namesake "
    "of the person meant (another person of the same name); not counted as solved, nor as false.",
    "edges_verified": "links the runs proved (a photo recognised at >= the threshold for both people), "
    "on a reported path or not, summed over the runs.",
    "edges_false": "of those, links whose photo does not truly show both people: a lookalike the "
    "simulated recogniser confused at >= the threshold. A chain uses a link shown under 95 % only "
    "once a second photo confirms it, which keeps them off reported paths (false_paths).",
    "mean_cost_usd": "mean dollars per run, over every pair run (solved or not); "
    "mean_cost_usd_solved: over solved pairs only.",
    "mean_path_excess": "hops found minus the shortest provable hops, over solved solvable pairs.",
}
PLOT_CAPTION = (
    "Left: the share of solvable pairs solved by runs that spent at most the dollars on the x axis "
    "(what a per-run spending cap would have kept); each dot is one configuration's mean cost per "
    "run over all pairs, solved or not, at its success rate. Right: the share of runs finished "
    "within the simulated seconds on the x axis."
)


@dataclass
class Section:
    """One benchmarked configuration: its label, figures and runs."""

    label: str
    figures: dict[str, Any]
    records: list[RunRecord]


def machine_state() -> dict[str, Any]:
    """What the figures were measured on: timings depend on it."""
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = []
    return {
        "cpus": os.cpu_count(),
        "load_average_1_5_15": load,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
    }


def write_report(out: Path, title: str, sections: Sequence[Section], context: dict[str, Any]) -> Path:
    """Write report.md, figures.json, runs-<label>.jsonl and plot.png under `out`; returns report.md."""
    out.mkdir(parents=True, exist_ok=True)
    for section in sections:
        with (out / f"runs-{_slug(section.label)}.jsonl").open("w", encoding="utf-8") as fh:
            for record in section.records:
                fh.write(json.dumps(record.dump(), ensure_ascii=False) + "\n")
    (out / "figures.json").write_text(
        json.dumps({"context": context, "sections": {s.label: s.figures for s in sections}}, indent=2) + "\n",
        encoding="utf-8",
    )
    plotted = write_plot(out / PLOT_FILE, title, sections)
    path = out / "report.md"
    path.write_text(markdown(title, sections, context, plotted), encoding="utf-8")
    return path


def markdown(title: str, sections: Sequence[Section], context: dict[str, Any], plotted: bool) -> str:
    lines = [f"# {title}", ""]
    if context.get("command"):
        lines += ["Command:", "", "```", str(context["command"]), "```", ""]
    facts = {k: v for k, v in context.items() if k != "command"}
    if facts:
        lines += [f"- {k.replace('_', ' ')}: {_cell(v)}" for k, v in facts.items()] + [""]
    labels = [s.label for s in sections]
    lines += ["| figure | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    keys = [*CONTRACT_KEYS, *(k for k in sections[0].figures if k not in CONTRACT_KEYS)] if sections else []
    for key in keys:
        values = [s.figures.get(key, "") for s in sections]
        if any(isinstance(v, dict) for v in values):
            continue
        lines.append(f"| {key} | " + " | ".join(_cell(v) for v in values) + " |")
    lines.append("")
    for section in sections:
        by_distance = section.figures.get("solvable_by_distance") or {}
        if by_distance:
            cells = ", ".join(f"{d} hops: {v['solved']}/{v['pairs']}" for d, v in by_distance.items())
            lines.append(f"- {section.label}, solved by shortest distance: {cells}")
        reasons = section.figures.get("stop_reasons") or {}
        if reasons:
            lines.append(
                f"- {section.label}, how runs ended: " + ", ".join(f"{k} {v}" for k, v in reasons.items())
            )
        false = [r for r in section.records if r.false_path]
        for record in false[:5]:
            lines.append(f"  - FALSE PATH {record.a} — {record.b}: {'; '.join(record.problems)}")
    lines.append("")
    shown = [key for key in MEANINGS if key in keys]
    if shown:
        lines += ["How to read them:", ""] + [f"- `{key}`: {MEANINGS[key]}" for key in shown] + [""]
    if plotted:
        lines += [f"![cost vs success and latency]({PLOT_FILE})", "", PLOT_CAPTION, ""]
    else:
        lines += [f"(plot skipped: matplotlib is not installed; `{install_command('bench')}`)", ""]
    return "\n".join(lines)


def write_plot(path: Path, title: str, sections: Sequence[Section]) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for section in sections:
        curve = cost_success_curve(section.records)
        if curve:
            (line,) = left.step(
                [c for c, _ in curve], [s * 100 for _, s in curve], where="post", label=section.label
            )
            mean_cost, rate = section.figures["mean_cost_usd"], section.figures["success_rate"] * 100
            left.scatter(
                [mean_cost],
                [rate],
                color=line.get_color(),
                marker="o",
                label=f"{section.label}: mean cost per run (all pairs), success rate",
            )
            left.annotate(
                f"mean ${mean_cost:.3f}/run",
                (mean_cost, rate),
                textcoords="offset points",
                xytext=(6, -12),
                fontsize=7,
                color=line.get_color(),
            )
        latencies = sorted(r.sim_latency_s for r in section.records)
        if latencies:
            right.step(
                latencies,
                [100 * (i + 1) / len(latencies) for i in range(len(latencies))],
                label=section.label,
            )
    left.set_xlabel("dollars a run spent, at most (a per-run spending cap)")
    left.set_ylabel("% of solvable pairs solved within that cap")
    left.set_title("cost vs success (dot: mean cost per run over all pairs)")
    right.set_xlabel("simulated seconds per run")
    right.set_ylabel("% of runs finished")
    right.set_title("latency distribution")
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {_cell(v)}" for k, v in value.items())
    return str(value)


def _slug(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in label).strip("-") or "runs"


BAR_WIDTH = 24


def progress_bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    """`████████░░░░` for done of total."""
    filled = width if total <= 0 else min(width, done * width // total)
    return "█" * filled + "░" * (width - filled)


def progress_printer(label: str, *, stream: Any = None, clock: Callable[[], float] = time.monotonic) -> Any:
    """A progress callback writing to stderr: a bar redrawn in place on a terminal, else a line every
    5 %; both with runs done, solved so far and the time left at the pace so far."""
    out = stream or sys.stderr
    tty = hasattr(out, "isatty") and out.isatty()
    solved = [0]
    started = clock()

    def show(done: int, total: int, record: RunRecord) -> None:
        solved[0] += record.solved
        step = max(1, total // 20)
        if not tty and done % step and done != total:
            return
        elapsed = clock() - started
        if done == total:
            timing = f"{_clock_time(elapsed)} in all"
        else:
            timing = f"~{_clock_time(elapsed / max(done, 1) * (total - done))} left"
        text = f"[{label}] {progress_bar(done, total)} {done}/{total} runs · {solved[0]} solved · {timing}"
        if tty:
            out.write(f"\r\x1b[K{text}" + ("\n" if done == total else ""))
        else:
            out.write(text + "\n")
        out.flush()

    return show


def _clock_time(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"
