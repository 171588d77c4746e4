"""The run's event log: gap-free `seq` from 1, exactly one seq per logical event.

Append is one transaction of three writes — claim the logical key, move the counter from the value
we read, store the event — so a retried step finds its key already claimed (and gets the old event
back), and two writers racing for the same seq cannot both win (the loser re-reads and tries again).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from visual_degrees.domain.errors import ConditionFailed
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, EventType, RunEvent
from visual_degrees.ports import EventSink, Increment, Memory, Put

_KEY, _COUNTER, _EVENT = 0, 1, 2
_MAX_RACES = 50


def run_pk(run_id: str) -> str:
    return f"run#{run_id}"


def _event_sk(seq: int) -> str:
    return f"ev#{seq:08d}"


def iso_ts(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class EventLog:
    def __init__(
        self, memory: Memory, sink: EventSink | None = None, *, ttl_seconds: int = DEFAULT_TTL_SECONDS
    ) -> None:
        self._memory = memory
        self._sink = sink
        self._ttl = ttl_seconds

    def append(self, run_id: str, key: str, type_: EventType, data: dict[str, Any], *, at: float) -> RunEvent:
        """Store the event for logical `key` once and deliver it; a repeat returns the stored event."""
        pk = run_pk(run_id)
        for _ in range(_MAX_RACES):
            claimed = self._memory.get(pk, f"evkey#{key}")
            if claimed is not None:
                return self._stored(run_id, int(claimed.data["seq"]))
            counter = self._memory.get(pk, "seq")
            current = counter.counters.get("seq", 0) if counter else 0
            event = RunEvent(run_id=run_id, seq=current + 1, type=type_, ts=iso_ts(at), data=data)
            try:
                self._memory.transact(
                    [
                        Put(pk, f"evkey#{key}", {"seq": event.seq}, self._ttl, if_absent=True),
                        Increment(pk, "seq", "seq", expect=current, ttl_seconds=self._ttl),
                        Put(pk, _event_sk(event.seq), event.dump(), self._ttl, if_absent=True),
                    ]
                )
            except ConditionFailed:
                continue  # someone else appended (this key or another); re-read and retry
            if self._sink is not None:
                self._sink.deliver(event)
            return event
        raise ConditionFailed(f"event log of run {run_id} is too contended to append")

    def has(self, run_id: str, key: str) -> bool:
        """Whether the event of logical `key` has been appended."""
        return self._memory.get(run_pk(run_id), f"evkey#{key}") is not None

    def _stored(self, run_id: str, seq: int) -> RunEvent:
        item = self._memory.get(run_pk(run_id), _event_sk(seq))
        if item is None:  # claimed in the same transaction as the event, so only expiry explains this
            raise ConditionFailed(f"event {seq} of run {run_id} has expired")
        return RunEvent.model_validate(item.data)

    def read(self, run_id: str, from_seq: int = 1, limit: int | None = None) -> list[RunEvent]:
        """Events with seq >= from_seq, in order."""
        after = _event_sk(max(from_seq, 1) - 1)
        items = self._memory.query(run_pk(run_id), "ev#", after=after, limit=limit)
        return [RunEvent.model_validate(i.data) for i in items]

    def last_seq(self, run_id: str) -> int:
        counter = self._memory.get(run_pk(run_id), "seq")
        return counter.counters.get("seq", 0) if counter else 0
