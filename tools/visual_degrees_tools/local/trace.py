"""Execution histories for the terminal, laid out like the Step Functions console's event table, and
the list of past runs. A sandbox run keeps simulated time: its history shows seconds since the run
started (simulated), never the virtual clock's calendar date."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.wording import plural
from visual_degrees_tools.text_table import aligned

# "${InitializeSessionFunctionArn}" -> what runs that task here, and what does when deployed.
_TASKS = {
    f"${{{t.substitution}}}": (
        f"step {t.step} (deployed: the {t.substitution.removesuffix('FunctionArn')} Lambda)"
    )
    for t in STATE_TASKS
}


def _seconds(timestamp: str) -> float:
    return datetime.fromisoformat(timestamp).timestamp()


def _detail(event: dict[str, Any]) -> str:
    for key, value in event.items():
        if not key.endswith("EventDetails") or not isinstance(value, dict):
            continue
        if "name" in value:
            return str(value["name"])
        if "error" in value:
            return f"{value['error']}: {str(value.get('cause', ''))[:80]}"
        if "resource" in value:
            return _TASKS.get(str(value["resource"]), str(value["resource"]))
    return ""


def _when(epoch: Any) -> str:
    """A wall-clock instant in the reader's local time, to the second."""
    try:
        return datetime.fromtimestamp(float(epoch)).strftime("%Y-%m-%d %H:%M:%S")
    except (TypeError, ValueError, OverflowError, OSError):
        return "?"


def started(run: dict[str, Any]) -> str:
    if "startedAt" in run:
        return _when(run["startedAt"])
    try:  # recorded before the start time was: the run id starts with it (UTC)
        stamp = datetime.strptime(str(run["runId"])[:15], "%Y%m%dT%H%M%S")
    except ValueError:
        return _when(run.get("recordedAt"))
    return _when(stamp.replace(tzinfo=UTC).timestamp())


# A run's outcome as `trace` and `show` say it.
OUTCOME_WORDS = {"path": "found a path", "no_path": "no path", "cancelled": "cancelled", "error": "failed"}


def outcome_words(outcome: object) -> str:
    return OUTCOME_WORDS.get(str(outcome), str(outcome))


def format_history(summary: dict[str, Any], events: list[dict[str, Any]]) -> str:
    simulated = summary.get("clock") == "simulated"
    world = summary.get("world")
    context = [f"world {world}" if world else "", f"started {started(summary)}"]
    since = "this continuation" if summary.get("segment") else "the run"
    if simulated:
        context.append(f"times are simulated seconds since {since} started (the sandbox's clock)")
    elif events:
        context.append(f"times are seconds since {since} started")
    title = f"Run {summary['runId']}"
    if summary.get("segment"):
        title += f", continuation {summary['segment']} (execution {summary.get('execution')})"
    lines = [
        f"{title}: {summary['personA']} → {summary['personB']}",
        " · ".join(part for part in context if part),
        f"Execution {summary['status']} · {outcome_words(summary['outcome'])} · "
        f"{plural(summary['states'], 'state')} · {plural(len(events), 'event')}",
        "",
        f"{'id':>4}  {'time':>11}  {'type':<28}  detail",
    ]
    start = _seconds(events[0]["timestamp"]) if events else 0.0
    for event in events:
        offset = f"+{_seconds(event['timestamp']) - start:.3f} s"
        lines.append(f"{event['id']:>4}  {offset:>11}  {event['type']:<28}  {_detail(event)}".rstrip())
    return "\n".join(lines)


def format_runs(runs: list[dict[str, Any]]) -> str:
    if not runs:
        return "No local runs yet."
    rows = [("started", "world", "outcome", "people", "run id")]
    for run in runs:
        people = f"{run['personA']} → {run['personB']}"
        outcome = outcome_words(run["outcome"])
        continued = len(run.get("executions") or []) - 1
        if continued > 0:
            outcome += f" (continued{f' {continued}×' if continued > 1 else ''})"
        rows.append((started(run), str(run.get("world") or "?"), outcome, people, run["runId"]))
    return "\n".join(aligned(rows))
