"""The one writer of a run's ending: its terminal event, then its status in the run's meta.

A run continued after a budget ran out (lifecycle/continuation.py) ends once more per segment, each
ending under its segment's own key (domain/outcomes.final_key).

Used by the final steps (through RunScope.finish), by the client protocol when it must end a run
itself (a start that failed, a cancel that had to stop the execution) and by the local server when
its engine broke. The event goes under FINAL_KEY, so whoever ends the run first wins; the meta is
updated only by the writer whose event holds, so meta and event never tell different endings.

An execution that ends without its run's ending (Step Functions stopped it, it timed out, it failed
outside every Catch; a local server died under it) gets one here too (`end_after_execution`), so no
run stays `running` for ever.

Every ending says what the run spent (`usage`, the budget ledger's summary) and fits one WebSocket
message (MAX_EVENT_BYTES, with room for the `run` reply that repeats it): a client told the run
ended can always be told how.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from visual_degrees.constants import MAX_EVENT_BYTES
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, Budgets, EventType, RunEvent
from visual_degrees.domain.outcomes import BY_EVENT, final_key
from visual_degrees.domain.records import RunMeta
from visual_degrees.lifecycle.budget import Budget
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees.lifecycle.run_access import stored_ttl
from visual_degrees.lifecycle.run_memory import RunControl
from visual_degrees.ports import EventSink, Memory
from visual_degrees.protocol import compact

# Room left in a message for what surrounds an ending's data (the event's own fields, or getRun's
# reply around the final event).
ENVELOPE_BYTES = 1024


def end_run(
    memory: Memory,
    sink: EventSink | None,
    run_id: str,
    ttl_seconds: int,
    type_: EventType,
    data: dict[str, Any],
    *,
    at: float,
    segment: int | None = None,
    meta: Mapping[str, Any] | None = None,
) -> RunEvent:
    """End the run's segment (`segment`; None: the one its meta says is going, 0 for a run never
    continued) with `type_` (a terminal event type) unless it has ended already; the ending that
    holds. `meta`: more facts for the run's meta (RunMeta's field names: hops, reason, code, …)."""
    control = RunControl(memory, run_id, ttl_seconds)
    if segment is None:
        segment = (control.meta() or RunMeta()).segment
    if "usage" not in data:
        data = {**data, "usage": Budget(memory, run_id, Budgets(), DEFAULT_COSTS, ttl_seconds).usage().dump()}
    data = compact(data, MAX_EVENT_BYTES - ENVELOPE_BYTES)
    log = EventLog(memory, sink, ttl_seconds=ttl_seconds)
    event = log.append(run_id, final_key(segment), type_, data, at=at)
    if event.type == type_:
        control.update_meta(**{**(meta or {}), "status": BY_EVENT[type_].status})
    return event


@dataclass(frozen=True)
class ExecutionEnding:
    event: EventType
    code: str
    message: str


# How a run ends when its execution ended first, by the execution's status (Step Functions' names).
AFTER_EXECUTION: dict[str, ExecutionEnding] = {
    "TIMED_OUT": ExecutionEnding(
        "error", "execution_timed_out", "The run's execution reached its time limit before the run finished."
    ),
    "FAILED": ExecutionEnding(
        "error", "execution_failed", "The run's execution failed before the run finished."
    ),
    "ABORTED": ExecutionEnding("cancelled", "execution_stopped", "The run's execution was stopped."),
    "SUCCEEDED": ExecutionEnding(
        "error", "execution_ended", "The run's execution ended without telling how the run ended."
    ),
}


def end_after_execution(
    memory: Memory,
    sink: EventSink | None,
    run_id: str,
    status: str,
    *,
    at: float,
    ttl_seconds: int | None = None,
    segment: int | None = None,
) -> RunEvent | None:
    """The run's ending once its execution (of `segment`, None: the segment going) has ended with
    `status`: the one it has (its final step, HandleError or a cancel wrote it: nothing changes),
    else one saying how the execution ended. None for a status that is not an end, or a run this
    memory does not know (or no longer holds)."""
    ending = AFTER_EXECUTION.get(status)
    if ending is None:
        return None
    known = stored_ttl(memory, run_id)
    if known is None and RunControl(memory, run_id, DEFAULT_TTL_SECONDS).meta() is None:
        return None
    ttl = ttl_seconds or known or DEFAULT_TTL_SECONDS
    data: dict[str, Any] = {"code": ending.code, "message": ending.message, "executionStatus": status}
    if ending.event == "cancelled":
        data["stopped"] = True
    return end_run(
        memory, sink, run_id, ttl, ending.event, data, at=at, segment=segment, meta={"code": ending.code}
    )
