"""The one writer of a run's ending: its terminal event, then its status in the run's meta.

Used by the final steps (through RunScope.finish), by the client protocol when it must end a run
itself (a start that failed, a cancel that had to stop the execution) and by the local server when
its engine broke. The event goes under FINAL_KEY, so whoever ends the run first wins; the meta is
updated only by the writer whose event holds, so meta and event never tell different endings.

Every ending says what the run spent (`usage`, the budget ledger's summary) and fits one WebSocket
message (MAX_EVENT_BYTES, with room for the `run` reply that repeats it): a client told the run
ended can always be told how.
"""

from __future__ import annotations

from typing import Any

from visual_degrees.constants import MAX_EVENT_BYTES
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import Budgets, EventType, RunEvent
from visual_degrees.domain.outcomes import BY_EVENT, FINAL_KEY
from visual_degrees.ports import EventSink, Memory
from visual_degrees.protocol import compact
from visual_degrees.services.budget import Budget
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_memory import RunControl

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
    **meta: Any,
) -> RunEvent:
    """End the run with `type_` (a terminal event type) unless it has ended already; the ending
    that holds. `meta`: more facts for the run's meta (hops, reason, code, …)."""
    if "usage" not in data:
        data = {**data, "usage": Budget(memory, run_id, Budgets(), DEFAULT_COSTS, ttl_seconds).summary()}
    data = compact(data, MAX_EVENT_BYTES - ENVELOPE_BYTES)
    event = EventLog(memory, sink, ttl_seconds=ttl_seconds).append(run_id, FINAL_KEY, type_, data, at=at)
    if event.type == type_:
        RunControl(memory, run_id, ttl_seconds).update_meta(status=BY_EVENT[type_].status, **meta)
    return event
