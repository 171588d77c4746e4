"""Execution histories for the terminal, laid out like the Step Functions console's event table."""

from __future__ import annotations

from typing import Any


def _detail(event: dict[str, Any]) -> str:
    for key, value in event.items():
        if not key.endswith("EventDetails") or not isinstance(value, dict):
            continue
        if "name" in value:
            return str(value["name"])
        if "error" in value:
            return f"{value['error']}: {str(value.get('cause', ''))[:80]}"
        if "resource" in value:
            return str(value["resource"])
    return ""


def format_history(summary: dict[str, Any], events: list[dict[str, Any]]) -> str:
    lines = [
        f"Run {summary['runId']}: {summary['personA']} → {summary['personB']}",
        f"Execution {summary['status']} · outcome {summary['outcome']} · "
        f"{summary['states']} states · {len(events)} events",
        "",
        f"{'id':>4}  {'timestamp':<29}  {'type':<28}  detail",
    ]
    for event in events:
        lines.append(f"{event['id']:>4}  {event['timestamp']:<29}  {event['type']:<28}  {_detail(event)}")
    return "\n".join(lines)


def format_runs(runs: list[dict[str, Any]]) -> str:
    if not runs:
        return "No local runs yet."
    lines = [f"{'run id':<24}  {'outcome':<9}  people"]
    for run in runs:
        lines.append(f"{run['runId']:<24}  {run['outcome']:<9}  {run['personA']} → {run['personB']}")
    return "\n".join(lines)
