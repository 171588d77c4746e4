"""Events as readable terminal lines, a live status line, and the closing summary of a run."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from visual_degrees.domain.models import Budgets, RunEvent
from visual_degrees.domain.wording import plural


def _pct(value: Any) -> str:
    return f"{float(value):.1f}%"


def describe(event: RunEvent) -> str:
    """One line per event (the `final` event gets its own multi-line summary, see `summary`)."""
    d = event.data
    match event.type:
        case "run_started":
            text = f"{d['personA']} → {d['personB']}"
        case "status" | "run_continued":
            text = str(d.get("message", ""))
        case "evidence" if d.get("people"):  # one photo: everyone recognised in it
            people = ", ".join(f"{p['name']} {_pct(p['confidence'])}" for p in d["people"])
            text = f"{people}  {d['imageUrl']}{_earlier(d)}"
        case "evidence":
            confidences = f"({_pct(d['confidenceA'])} / {_pct(d['confidenceB'])})"
            text = f"{d['from']} — {d['to']}  {confidences}  {d['imageUrl']}"
        case "path_update":
            text = " → ".join(d["path"])
        case "final":
            text = f"{' → '.join(d['path'])}  ({plural(d['hops'], 'hop')})"
        case "no_path":
            text = str(d.get("message", "no path"))
        case "cancelled":
            text = "cancelled"
        case "error":
            text = f"{d.get('code')}: {d.get('message')}"
        case _:
            text = json.dumps(d)
    return f"[{event.seq:>3}] {event.type:<11} {text}"


def summary(final: RunEvent, *, simulated: bool = False) -> str:
    """The path and its evidence, or why there is none; `simulated`: the run's clock was the sandbox's."""
    d = final.data
    lines: list[str] = []
    if final.type == "final":
        lines.append(f"Path ({plural(d['hops'], 'hop')}): {' → '.join(d['path'])}")
        for edge in d["edges"]:
            ev = edge["evidence"]
            lines.append(
                f"  {edge['from']} — {edge['to']}: confidence {edge['confidence']:.1f} "
                f"({_pct(ev['confidenceA'])} / {_pct(ev['confidenceB'])})"
            )
            lines.append(f"      image {ev['imageUrl']}")
            if ev.get("pageUrl"):
                lines.append(f"      page  {ev['pageUrl']}")
            if ev.get("earlierRun"):
                lines.append(f"      proven {ev.get('provenAt')} by an earlier run")
        lines.append(
            f"Bottleneck {d['bottleneckConfidence']:.1f} · cumulative {d['cumulativeConfidence']:.3f}"
        )
    elif final.type == "no_path":
        lines.append(f"No path: {d['message']}")
        if len(d.get("partialPath") or []) > 1:
            lines.append(f"  got as far as: {' → '.join(d['partialPath'])}")
        if len(d.get("partialPathFromB") or []) > 1:
            lines.append(f"  and from the other side: {' → '.join(d['partialPathFromB'])}")
    elif final.type == "error":
        lines.append(f"Run failed: {d.get('message')} ({d.get('code')})")
    else:
        lines.append("Run cancelled.")
    hint = d.get("hint")
    if isinstance(hint, dict):
        lines.append(f"Your hint, {hint.get('name')}: {hint.get('message')}")
        for link in hint.get("links") or []:
            lines.append(
                f"  {link['from']} — {link['to']}: confidence {link['confidence']:.1f}  {link['imageUrl']}"
            )
    usage = d.get("usage")
    if usage:
        seconds = f"{'simulated ' if simulated else ''}{d['simSeconds']:.1f} s" if "simSeconds" in d else None
        segments = d.get("segments") or []
        if len(segments) > 1:
            for seg in segments:
                label = "first run" if not seg.get("segment") else f"continuation {seg['segment']}"
                lines.append(f"Spent ({label}): {_spend(seg)}")
            lines.append(f"Spent in total: {_spend(usage)}")
        else:
            lines.append("Spent: " + " · ".join([_spend(usage), *([seconds] if seconds else [])]))
    return "\n".join(lines)


def _spend(usage: dict[str, Any]) -> str:
    return " · ".join(
        [
            plural(usage["searches"], "search", "searches"),
            plural(usage["recognitions"], "recognition"),
            plural(usage["llmCalls"], "LLM call"),
            f"${usage['costUsd']:.4f}",
        ]
    )


def continue_hint(final: RunEvent) -> str | None:
    """For an ending that a continuation may follow: the command that continues it, and why."""
    d = final.data
    if final.type not in ("no_path", "error") or not (d.get("continuable") or d.get("continuableWithHint")):
        return None
    if d.get("continuable"):
        command = f"visual-degrees run --continue {final.run_id} --budget-searches {Budgets().searches}"
    else:
        command = f'visual-degrees run --continue {final.run_id} --via "NAME"'
    return f"{d.get('why', '')}\ncontinue with: {command}".strip()


class ConsoleSink:
    """EventSink for the terminal: readable lines (or JSON lines) on stdout, a live status on stderr."""

    def __init__(
        self, *, as_json: bool = False, out: TextIO | None = None, err: TextIO | None = None
    ) -> None:
        self.as_json = as_json
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._live = not as_json and self.err.isatty()
        self._status = ""

    def deliver(self, event: RunEvent) -> None:
        self._clear()
        if self.as_json:
            self.out.write(json.dumps(event.dump(), ensure_ascii=False) + "\n")
        else:
            self.out.write(describe(event) + "\n")
        self.out.flush()
        if self._live and event.type == "status":
            self._status = f"… hop {event.data.get('hop', 0)}: {event.data.get('message', '')}"[:120]
            self.err.write(self._status)
            self.err.flush()

    def _clear(self) -> None:
        if self._live and self._status:
            self.err.write("\r" + " " * len(self._status) + "\r")
            self._status = ""

    def close(self) -> None:
        self._clear()


def _earlier(data: dict[str, Any]) -> str:
    """What an evidence line adds for a photo an earlier run proved (read from the evidence graph)."""
    return f"  (proven {data.get('provenAt')} by an earlier run)" if data.get("earlierRun") else ""
