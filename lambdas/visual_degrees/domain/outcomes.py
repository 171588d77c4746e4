"""How a run ends: one table from its terminal event to every name the ending goes by.

A run ends with exactly one terminal event, stored under the logical key FINAL_KEY whoever writes it
(its final step, a cancel that had to stop the execution, a start that failed, a local engine that
broke), so the first ending wins and a repeat returns it. A run continued after a budget ran out
(lifecycle/continuation.py) ends once per segment (`final_key`); the latest ending is the run's.
Everything else is read from that event through `ENDINGS`: the status in the run's meta and in
the `run` reply, what the CLI, the local runner and the benchmark call it, the Outcome dimension of
the RunsFinished metric, the exit code of `visual-degrees run`, and the step of the state machine
that emits it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

RunStatus = Literal["queued", "running", "succeeded", "no_path", "cancelled", "failed"]
Outcome = Literal["path", "no_path", "cancelled", "error"]  # the CLI's, the runner's and the bench's
MetricOutcome = Literal["success", "no_path", "cancelled", "error"]  # the RunsFinished dimension

FINAL_KEY = "final"  # the logical event key of every ending (of a run's first segment)


def final_key(segment: int = 0) -> str:
    """The logical key of a segment's ending: a continuation (segment 1, 2, …) ends once more, and
    whoever ends a segment first wins, as for the first."""
    return FINAL_KEY if segment == 0 else f"{FINAL_KEY}#c{segment}"


@dataclass(frozen=True)
class Ending:
    event: str  # the terminal event type
    status: RunStatus  # in the run's meta and the `run` reply
    outcome: Outcome
    metric: MetricOutcome
    exit_code: int  # `visual-degrees run`
    final_step: str  # the step (module under visual_degrees.steps) whose state emits it


ENDINGS: tuple[Ending, ...] = (
    Ending("final", "succeeded", "path", "success", 0, "finalize_success"),
    Ending("no_path", "no_path", "no_path", "no_path", 3, "finalize_failure"),
    Ending("cancelled", "cancelled", "cancelled", "cancelled", 4, "cancel_run"),
    Ending("error", "failed", "error", "error", 1, "handle_error"),
)
BY_EVENT: dict[str, Ending] = {e.event: e for e in ENDINGS}
BY_OUTCOME: dict[str, Ending] = {e.outcome: e for e in ENDINGS}
TERMINAL_EVENTS = frozenset(BY_EVENT)
FINISHED_STATUSES = frozenset(e.status for e in ENDINGS)
# A Step Functions execution that ended without its run's ending (stopped, timed out, failed outside
# every Catch) still ends the run, as this status.
EXECUTION_ENDED: dict[str, RunStatus] = {"FAILED": "failed", "TIMED_OUT": "failed", "ABORTED": "cancelled"}


def run_status(terminal_event: str | None, meta_status: str | None, execution: str | None) -> RunStatus:
    """queued → running → succeeded | no_path | cancelled | failed, from the best witness first: the
    terminal event (stored before the meta catches up: a client told the run ended must not then be
    told it is running), the meta's status (None: the run has no meta yet), the execution's end,
    else whether it has begun."""
    if terminal_event in BY_EVENT:
        return BY_EVENT[terminal_event].status
    if meta_status in FINISHED_STATUSES:
        return cast(RunStatus, meta_status)
    if execution in EXECUTION_ENDED:
        return EXECUTION_ENDED[execution]
    return "running" if meta_status is not None or execution == "RUNNING" else "queued"
