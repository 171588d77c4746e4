"""Execution histories of local runs, kept without TTL: they are the operator's trace, as the Step
Functions console keeps them for deployed runs. A run continued after a budget ran out has one
execution per segment (`<run id>`, `<run id>--c1`, …); the list of runs has one row per run, with
the latest outcome and its executions in order. Each execution also keeps the ending its run
reached (the terminal event), which outlives the run's memory: `visual-degrees show` reprints it."""

from __future__ import annotations

import time
from typing import Any

from visual_degrees.domain.errors import RunNotFound
from visual_degrees.domain.models import RunEvent
from visual_degrees.ports import Memory, Put

HISTORY_CHUNK = 100  # history events per stored item (each carries state JSON): items stay far below 350 KB
_RUNS_PK = "runs"


class ExecutionStore:
    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def save(
        self,
        name: str,
        status: str,
        visited: int,
        history: list[dict[str, Any]],
        *,
        ending: RunEvent | None = None,
        **summary: Any,
    ) -> None:
        """Keep the history of execution `name` (of run `summary["runId"]`, default: `name`), and
        the ending it reached (None: it ended without one)."""
        pk = f"exec#{name}"
        for start in range(0, len(history), HISTORY_CHUNK):
            chunk = history[start : start + HISTORY_CHUNK]
            self.memory.put(Put(pk, f"h#{start // HISTORY_CHUNK:05d}", {"events": chunk}))
        if ending is not None:  # one event fits one WebSocket frame (96 KB): one item
            self.memory.put(Put(pk, "ending", ending.dump()))
        record = {
            "runId": name,
            "execution": name,
            "status": status,
            "states": visited,
            "events": len(history),
            "recordedAt": time.time(),
            **summary,
        }
        self.memory.put(Put(pk, "summary", record))
        run_id = str(record["runId"])
        earlier = self.memory.get(_RUNS_PK, run_id) if name != run_id else None
        row = dict(record)
        if earlier is not None:  # a continuation: the run's row keeps its start, adds the execution
            first = earlier.data
            row.update(
                startedAt=first.get("startedAt", row.get("startedAt")),
                executions=[*first.get("executions", [run_id]), name],
            )
        else:
            row["executions"] = [name]
        self.memory.put(Put(_RUNS_PK, run_id, row))

    def run_record(self, run_id: str) -> dict[str, Any] | None:
        """The run's row in the list of runs (its latest execution's summary, its executions)."""
        item = self.memory.get(_RUNS_PK, run_id)
        return item.data if item else None

    def executions(self, run_id: str) -> list[str]:
        """The names of the run's executions, first to latest (RunNotFound: none recorded)."""
        record = self.run_record(run_id)
        if record is None:
            raise RunNotFound(f"no execution history for run {run_id!r}")
        return [str(name) for name in record.get("executions", [run_id])]

    def ending(self, name: str) -> RunEvent | None:
        """The ending execution `name` reached, as its run's terminal event (None: not kept)."""
        item = self.memory.get(f"exec#{name}", "ending")
        return RunEvent.model_validate(item.data) if item else None

    def history(self, run_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        pk = f"exec#{run_id}"
        summary = self.memory.get(pk, "summary")
        if summary is None:
            raise RunNotFound(f"no execution history for run {run_id!r}")
        events = [e for item in self.memory.query(pk, "h#") for e in item.data["events"]]
        return summary.data, events

    def recent_runs(self, limit: int = 20) -> list[dict[str, Any]]:
        """Most recently started first (runs recorded before `startedAt` was: by run id, which starts
        with the UTC start time to the second)."""
        items = self.memory.query(_RUNS_PK)

        def started(item: Any) -> tuple[float, str]:
            return float(item.data.get("startedAt") or item.data.get("recordedAt") or 0.0), item.sk

        return [i.data for i in sorted(items, key=started, reverse=True)[:limit]]
