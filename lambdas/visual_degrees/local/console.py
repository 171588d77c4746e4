"""Events as readable terminal lines, a live status line, and the closing summary of a run."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from visual_degrees.domain.models import RunEvent
from visual_degrees.domain.wording import plural


def _pct(value: Any) -> str:
    return f"{float(value):.1f}%"


def describe(event: RunEvent) -> str:
    """One line per event (the `final` event gets its own multi-line summary, see `summary`)."""
    d = event.data
    match event.type:
        case "run_started":
            text = f"{d['personA']} → {d['personB']}"
        case "status":
            text = str(d.get("message", ""))
        case "evidence" if d.get("people"):  # one photo: everyone recognised in it
            people = ", ".join(f"{p['name']} {_pct(p['confidence'])}" for p in d["people"])
            text = f"{people}  {d['imageUrl']}"
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
    usage = d.get("usage")
    if usage:
        spent = [
            plural(usage["searches"], "search", "searches"),
            plural(usage["recognitions"], "recognition"),
            plural(usage["llmCalls"], "LLM call"),
            f"${usage['costUsd']:.4f}",
        ]
        if "simSeconds" in d:
            spent.append(f"{'simulated ' if simulated else ''}{d['simSeconds']:.1f} s")
        lines.append("Spent: " + " · ".join(spent))
    return "\n".join(lines)


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
