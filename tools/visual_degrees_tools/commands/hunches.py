"""`visual-degrees hunches [RUN_ID ...]`: what the planner's hunches came to in past local runs.

For each run (by default the recent ones, as `trace` lists them): how many pairs the planner
suggested, how many the run checked with a search, and how many of those a photo proved; then the
totals. Of the hunches checked, the share proven is the planner's precision on these questions, the
figure to compare models by (docs/operators.md, "Choosing the planner"): run the same questions with
`--providers live` and each model, then read them here."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visual_degrees.domain.errors import RunNotFound
from visual_degrees_tools.commands.common import past_runs
from visual_degrees_tools.text_table import aligned

if TYPE_CHECKING:
    from visual_degrees_tools.local.executions import ExecutionStore

NAME = "hunches"
HELP = "what the planner's suggestions came to in past local runs (its precision)"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "run_ids",
        nargs="*",
        metavar="RUN_ID",
        help="run ids, as `run` prints them; omit for the recent runs `visual-degrees trace` lists",
    )
    parser.add_argument("--json", action="store_true", help="each run's hunches and the totals, as JSON")


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.lifecycle.run_memory import RunControl
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.executions import ExecutionStore
    from visual_degrees_tools.local.hunch_record import planner_hunches, tally

    path = past_runs(state_dir)
    runs: list[dict[str, Any]] = []
    with SqliteMemory(path) as memory:
        store = ExecutionStore(memory)
        records = [_record(store, str(run_id)) for run_id in args.run_ids] or store.recent_runs()
        for record in records:
            run_id = str(record["runId"])
            kept = RunControl(memory, run_id, 60).meta() is not None
            rows = planner_hunches(memory, run_id) if kept else []
            runs.append(
                {
                    "runId": run_id,
                    "people": _people(record),
                    "kept": kept,
                    "hunches": rows,
                    "tally": tally(rows),
                }
            )
    total = tally([row for run in runs for row in run["hunches"]])
    if args.json:
        print(json.dumps({"runs": runs, "total": total}, indent=2, ensure_ascii=False))
        return 0
    print(_table(runs))
    print(_total(total))
    return 0


def _record(store: ExecutionStore, run_id: str) -> dict[str, Any]:
    record = store.run_record(run_id)
    if record is None:
        raise RunNotFound(f"no run {run_id!r} here; `visual-degrees trace` lists the recent runs")
    return {"runId": run_id, **record}


def _people(record: dict[str, Any]) -> str:
    return f"{record.get('personA')} → {record.get('personB')}"


def _table(runs: list[dict[str, Any]]) -> str:
    if not runs:
        return "No local runs yet."
    rows = [("hunches", "checked", "proven", "people", "run id")]
    for run in runs:
        if not run["kept"]:
            rows.append(("-", "-", "-", f"{run['people']} (its memory has expired)", run["runId"]))
            continue
        t = run["tally"]
        rows.append(
            (
                str(t["hunches"]),
                str(t["searched"]),
                str(t["searched_and_linked"]),
                run["people"],
                run["runId"],
            )
        )
    return "\n".join(aligned(rows, numeric=3))


def _total(total: dict[str, int]) -> str:
    checked, proven = total["searched"], total["searched_and_linked"]
    share = f" ({proven / checked:.0%})" if checked else ""
    return (
        f"{total['hunches']} hunches; {checked} checked with a search, {proven} of them proven by a "
        f"photo{share}"
    )
