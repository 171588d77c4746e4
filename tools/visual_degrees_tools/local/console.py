"""Events as readable terminal lines, a live status line, and the closing summary of a run."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any, TextIO

from visual_degrees.domain.models import Budgets, RunEvent, RunOptions
from visual_degrees.domain.photo_event import photo_event
from visual_degrees.domain.wording import NO_EVENT, PHOTO_CAVEAT, budget_words, plural

# Error codes some messages still name in parentheses, in the words a user reads instead.
CODE_WORDS = {
    "provider_unavailable": "the service did not answer",
    "provider_error": "the service refused",
    "configuration_error": "a provider is not set up",
}
_CODE = re.compile(r" ?\(([a-z]+(?:_[a-z]+)+)\)")


def plain(message: str) -> str:
    """A message without error codes: `(provider_unavailable)` becomes words, or goes."""
    return _CODE.sub(lambda m: f" ({CODE_WORDS[m[1]]})" if m[1] in CODE_WORDS else "", message)


def _pct(value: Any) -> str:
    return f"{float(value):.1f}%"


# Each event's label on its line, in words (`--json` keeps the protocol's types).
LABELS = {
    "run_started": "started",
    "run_continued": "continued",
    "status": "status",
    "evidence": "photo",
    "path_update": "path so far",
    "final": "found",
    "no_path": "no path",
    "cancelled": "cancelled",
    "error": "failed",
}


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
            where = link_event(d)
            named = f"event: {where}" if where else "no event named"
            text = f"{people}  ({named})  {d['imageUrl']}{_earlier(d)}"
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
            text = plain(str(d.get("message") or "the run failed"))
        case _:
            text = json.dumps(d)
    return f"[{event.seq:>3}] {LABELS.get(event.type, event.type):<11} {text}"


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
            lines.append(f"      event {link_event({**ev, **edge}) or NO_EVENT}")
            lines.append(f"      image {ev['imageUrl']}")
            if ev.get("pageUrl"):
                lines.append(f"      page  {ev['pageUrl']}")
            if ev.get("earlierRun"):
                lines.append(f"      proven {ev.get('provenAt')} by an earlier run")
        lines += confidence_words(d)
        lines += degree_lines(d.get("degrees"))
        lines.append(str(d.get("caveat") or PHOTO_CAVEAT))
    elif final.type == "no_path":
        lines.append(f"No path: {_no_path_message(d)}")
        if len(d.get("partialPath") or []) > 1:
            lines.append(f"  got as far as: {' → '.join(d['partialPath'])}")
        if len(d.get("partialPathFromB") or []) > 1:
            lines.append(f"  and from the other side: {' → '.join(d['partialPathFromB'])}")
    elif final.type == "error":
        lines.append(f"Run failed: {plain(str(d.get('message') or 'it stopped on an error.'))}")
    else:
        lines.append("Run cancelled: it was stopped before it found a chain.")
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


def _no_path_message(data: dict[str, Any]) -> str:
    """The ending's own message; a budget named in words, not by its field (`llmCalls`)."""
    if data.get("reason") == "budget" and data.get("exhausted"):
        return f"The {budget_words(data['exhausted'])} budget ran out before a chain was proven."
    return str(data.get("message") or "No chain was proven.")


def link_event(data: dict[str, Any]) -> str | None:
    """Where a link's photo was taken, as its evidence (or the link) tells it: a name, or an object
    naming it (title or name, and a date or year when it has one); evidence kept before events were
    shown has none, and its title is read for one. None: nothing names one."""
    event = data.get("event")
    if "event" not in data and isinstance(data.get("title"), str):
        event = photo_event(data["title"])
    if isinstance(event, dict):
        name = event.get("title") or event.get("name") or ""
        when = event.get("date") or event.get("year") or ""
        event = f"{name} ({when})" if name and when and str(when) not in str(name) else name
    return str(event) if event else None


def confidence_words(data: dict[str, Any]) -> list[str]:
    """A chain's bottleneck and cumulative confidence, each with what it means."""
    edges = [e for e in data.get("edges") or [] if isinstance(e, dict)]
    bottleneck = float(data["bottleneckConfidence"])
    weakest = min(edges, key=lambda e: float(e.get("confidence", 100)), default=None)
    which = f": {weakest['from']} — {weakest['to']}" if weakest and len(edges) > 1 else ""
    product = " × ".join(_pct(e["confidence"]) for e in edges)
    return [
        f"Bottleneck {bottleneck:.1f}: the least sure link{which}; a chain is as sure as its weakest photo.",
        f"Cumulative {float(data['cumulativeConfidence']):.3f}: how sure every link is at once, taking "
        f"them as independent ({product})."
        if len(edges) > 1
        else f"Cumulative {float(data['cumulativeConfidence']):.3f}: the one link's confidence.",
    ]


def degree_lines(data: Any) -> list[str]:
    """The answer's degrees and what rules fewer out, in the server's words (domain/degrees.py), and
    what looking for a shorter chain cost when it cost anything; none from a server that does not
    send them."""
    if not isinstance(data, dict) or not isinstance(data.get("lines"), list):
        return []
    lines = [str(line) for line in data["lines"]]
    spent, allowed = data.get("spentUsd"), data.get("allowanceUsd")
    if isinstance(spent, int | float) and isinstance(allowed, int | float) and spent:
        lines.append(f"Looking for a shorter chain cost ${spent:.4f} of ${allowed:.4f} allowed")
    return lines


def _spend(usage: dict[str, Any]) -> str:
    return " · ".join(
        [
            plural(usage["searches"], "search", "searches"),
            plural(usage["recognitions"], "recognition"),
            plural(usage["llmCalls"], "LLM call"),
            f"${usage['costUsd']:.4f}",
        ]
    )


def next_steps(final: RunEvent, again: Callable[..., str]) -> list[str]:
    """What the user can do after this ending: continue the run, name a hint, start it again
    (`again(**option changes)`: the command that asks the same again), or nothing for a path."""
    d = final.data
    why = str(d.get("why") or "")
    if final.type == "final":
        return []
    if final.type in ("no_path", "error") and d.get("continuable"):
        command = f"visual-degrees run --continue {final.run_id} --budget-searches {Budgets().searches}"
        return [why, f"continue with: {command}"]
    if final.type == "no_path" and d.get("continuableWithHint"):
        return [why, f'continue with: visual-degrees run --continue {final.run_id} --via "NAME"']
    if final.type == "no_path" and d.get("reason") == "hop_limit" and (more := _more_hops(d.get("maxHops"))):
        return [why, f"start again with: {again(maxHops=more)}"]
    if final.type == "no_path":
        return [why] if why else []
    stopped = "was cancelled" if final.type == "cancelled" else "failed"
    return [
        f"The run {stopped}; start it again (a new run reuses every photo this one recognised):",
        f"  {again()}",
    ]


def closing(run_id: str, final: RunEvent | None, *, simulated: bool, again: Callable[..., str]) -> str:
    """What `run` prints when a run ends (`show` prints the same answer and next steps again): the
    answer, what the user can do next, and where to read the run again."""
    if final is None:
        lines = [f"The run ended without saying how; `visual-degrees trace {run_id}` shows where it stopped."]
    else:
        lines = [summary(final, simulated=simulated), *next_steps(final, again)]
    lines.append(
        f"run id {run_id}  (visual-degrees show {run_id} prints this again; "
        f"visual-degrees trace {run_id} shows how it ran)"
    )
    return "\n".join(line for line in lines if line)


def _more_hops(max_hops: object) -> int | None:
    """One hop more than `max_hops`, if a run may have that many."""
    try:
        return RunOptions(max_hops=int(max_hops) + 1).max_hops  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


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
