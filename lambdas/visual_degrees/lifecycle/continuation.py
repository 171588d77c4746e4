"""Continuing a run that stopped on a budget (issue 13): a new execution of the same state machine over
the same run, picking up where the last one stopped.

Everything a run knows lives in its run memory, and the default strategy re-derives its next move
from that memory at every step, so a new execution over the same run id resumes by itself: pages
read are cached (no search is made twice), photos looked at are remembered (none is recognised
twice), and the verified graph, the leads and the pairs already tried stay as they were. What a
continuation adds:

- a *segment* number (1, 2, …): its execution is `<run id>--c<segment>` (domain/ids.py), its steps
  count on from the run's last step (step outputs and journalled decisions are keyed by step, so no
  number is ever reused), and it ends once more (domain/outcomes.final_key);
- budgets: the run's ceilings become what it spent so far plus what the segment may spend (the
  run's own budgets again, unless told otherwise), so the budget ledger keeps counting the run's
  total; the runtime budget counts from the segment's start;
- the run's meta: `status` back to `running`, `segment`, and `segments` (per segment: what it was
  given, what the run had spent when it began, and when it ends what it spent and how it ended);
- one `run_continued` event, appended to the same log (seq goes on, subscribers keep following).

Only a run that ended on a budget can be continued as it is; domain/continuation.judge says which
endings can and why the others cannot. Three steps, so a use case can reply between them:
`prepare` (read-only checks: the run, its ending, the budgets, its memory's remaining life),
`claim` (the segment, atomically: two continuations racing cannot both start) and `announce`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from visual_degrees.domain.continuation import START_AGAIN, judge
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.errors import InvalidInput, NotContinuable, RunInProgress, RunNotFound
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, Budgets, EventType, Person, RunEvent, RunState
from visual_degrees.domain.outcomes import FINISHED_STATUSES, TERMINAL_EVENTS, final_key
from visual_degrees.domain.records import RunMeta, Segment, Usage
from visual_degrees.domain.requests import describe_validation_error, parse_options, validate_hint
from visual_degrees.domain.wording import plural
from visual_degrees.lifecycle.budget import Budget
from visual_degrees.lifecycle.event_log import EventLog, run_pk
from visual_degrees.lifecycle.run_memory import RunControl
from visual_degrees.ports import EventSink, Memory, Put

MAX_SEGMENTS = 20  # continuations of one run (its meta lists them all)
SETTLE_POLLS, SETTLE_POLL_SECONDS = 40, 0.05  # how long to wait for an ending's meta (2 s at most)
# A continuation must be able to finish before the run's memory expires: its oldest items (the event
# log's counter, the first pages) were written when the run began and live `ttlSeconds` from then.
EXPIRY_MARGIN_SECONDS = 120.0
_BUDGET_MAXIMA = {
    name: next(m.le for m in Budgets.model_fields[name].metadata if hasattr(m, "le"))
    for name in Budgets.model_fields
}


@dataclass(frozen=True)
class Continuation:
    run_id: str
    segment: int
    state: RunState  # the new execution's input
    budgets: Budgets  # what this segment may spend
    usage: Usage  # the run's usage when the segment begins
    spent: dict[str, float]  # ... as Budgets' wire names (runtime: the seconds its segments took)
    via: str | None  # a hint given for this segment
    ttl: int


def segment_ended(memory: Memory, run_id: str, meta: RunMeta | None = None) -> bool:
    """Whether the run's current segment has its ending (stored before the meta says so: a client
    told the run ended may ask to continue it at once)."""
    meta = meta if meta is not None else RunControl(memory, run_id, DEFAULT_TTL_SECONDS).meta()
    if meta is None:
        return False
    return EventLog(memory).has(run_id, final_key(meta.segment))


def latest_ending(memory: Memory, run_id: str) -> RunEvent | None:
    """The run's last event if it is an ending (None: the run is going)."""
    log = EventLog(memory)
    last_seq = log.last_seq(run_id)
    last = log.read(run_id, last_seq, limit=1) if last_seq else []
    return last[0] if last and last[0].type in TERMINAL_EVENTS else None


def prepare(
    memory: Memory,
    run_id: str,
    *,
    budgets: dict[str, Any] | None = None,
    via: str | None = None,
    now: float,
    strict: bool = True,
    sleep: Callable[[float], object] = time.sleep,
) -> Continuation:
    """Check that the run can be continued now and build the continuation's first state. Raises
    RunNotFound (no such run, or its memory expired), RunInProgress, NotContinuable (why), or
    InvalidInput (a bad budget or hint). `budgets`: this segment's, by wire name, over the run's
    own; `now`: wall time (run memory expires by it)."""
    meta = _settled_meta(memory, run_id, sleep)
    options = meta.options or parse_options(None)
    ttl = options.ttl_seconds
    ending = latest_ending(memory, run_id) if meta.status in FINISHED_STATUSES else None
    if ending is None:
        raise RunInProgress(f"run {run_id} is still going; it can be continued once it has ended")
    a, b = Person.of(str(meta.person_a)), Person.of(str(meta.person_b))
    hint = validate_hint(via, a, b).name if via is not None else None
    verdict = judge(ending.type, ending.data)
    if not verdict.continuable and not (verdict.with_hint and hint):
        raise NotContinuable(
            f"run {run_id} cannot be continued: {verdict.why}",
            ending=ending.type,
            with_hint=verdict.with_hint,
        )
    if hint is not None and options.strategy == "seed":
        raise InvalidInput("via is a hint for the default strategy; the seed strategy takes none")
    segment = meta.segment + 1
    if segment > MAX_SEGMENTS:
        raise NotContinuable(
            f"This run has been continued {MAX_SEGMENTS} times already; {START_AGAIN}", ending=ending.type
        )
    given = _segment_budgets(options.budgets, budgets, strict=strict)
    _check_memory_lasts(memory, run_id, given.runtime_seconds, now, ending.type)
    ledger = Budget(memory, run_id, options.budgets, DEFAULT_COSTS, ttl)
    usage = ledger.usage()
    spent: dict[str, float] = {
        "searches": usage.searches,
        "recognitions": usage.recognitions,
        "llmCalls": usage.llm_calls,
        "runtimeSeconds": round(sum(s.seconds or 0.0 for s in meta.segments), 3),
    }
    total = Budgets(
        searches=min(spent["searches"] + given.searches, _BUDGET_MAXIMA["searches"]),
        recognitions=min(spent["recognitions"] + given.recognitions, _BUDGET_MAXIMA["recognitions"]),
        llm_calls=min(spent["llmCalls"] + given.llm_calls, _BUDGET_MAXIMA["llm_calls"]),
        runtime_seconds=given.runtime_seconds,  # counted from the segment's start
        shorten_share=given.shorten_share,
        shorten_min_usd=given.shorten_min_usd,
    )
    run_options = options.model_copy(update={"budgets": total, "via": hint or options.via})
    last_step = meta.last_step
    if last_step is None:
        last_step = RunControl(memory, run_id, ttl).last_step()
    position = meta.position.carried() if meta.position is not None else {}
    state = RunState.model_validate(
        {
            "runId": run_id,
            "personA": a.dump(),
            "personB": b.dump(),
            "options": run_options.dump(),
            "step": last_step + 1,
            "segment": segment,
            **position,
        }
    )
    return Continuation(run_id, segment, state, given, usage, spent, hint, ttl)


def _settled_meta(memory: Memory, run_id: str, sleep: Callable[[float], object]) -> RunMeta:
    """The run's meta, once it tells the ending of the segment that has one: an ending is stored
    (and sent) a moment before the meta records it, with what a continuation starts from (the last
    step, the search position), so a client told the run ended may be quicker than the meta."""
    control = RunControl(memory, run_id, DEFAULT_TTL_SECONDS)
    for _ in range(SETTLE_POLLS):
        meta = control.meta()
        if meta is None:
            raise RunNotFound(f"no run {run_id!r} (or its memory has expired)")
        if meta.status in FINISHED_STATUSES or not segment_ended(memory, run_id, meta):
            return meta
        sleep(SETTLE_POLL_SECONDS)
    raise RunInProgress(f"run {run_id} is just ending; ask again in a moment")


def _segment_budgets(own: Budgets, given: dict[str, Any] | None, *, strict: bool) -> Budgets:
    if given is None:
        return own
    if not isinstance(given, dict):
        raise InvalidInput("budgets must be an object")
    try:
        return Budgets.model_validate({**own.dump(), **given}, strict=strict)
    except ValidationError as exc:
        raise InvalidInput(describe_validation_error(exc, "budgets")) from None


def _check_memory_lasts(memory: Memory, run_id: str, runtime: float, now: float, ending: str) -> None:
    counter = memory.get(run_pk(run_id), "seq")  # written with the run's first event
    if counter is None or counter.expires_at is None:
        return
    left = counter.expires_at - now
    if left < runtime + EXPIRY_MARGIN_SECONDS:
        raise NotContinuable(
            f"The run's memory expires in {max(0, round(left))} s, too soon for a continuation of up "
            f"to {runtime:g} s; {START_AGAIN}",
            ending=ending,
        )


def claim(memory: Memory, continuation: Continuation, *, at: float) -> None:
    """Take the segment (RunInProgress if another continuation took it first), put the run back to
    `running` with the segment listed in its meta, and clear a cancel request the last segment
    ended before reading."""
    cont = continuation
    pk = run_pk(cont.run_id)
    taken = Put(pk, f"segment#{cont.segment:03d}", {"startedAt": at}, cont.ttl, if_absent=True)
    if not memory.put(taken):
        raise RunInProgress(f"another continuation of run {cont.run_id} has just begun")
    control = RunControl(memory, cont.run_id, cont.ttl)
    segments = list((control.meta() or RunMeta()).segments)
    segments.append(
        Segment(
            segment=cont.segment, budgets=cont.budgets, via=cont.via, usage_at_start=cont.usage, started_at=at
        )
    )
    control.update_meta(status="running", segment=cont.segment, segments=segments)
    memory.delete(pk, "cancel")


def announce(memory: Memory, sink: EventSink | None, continuation: Continuation, *, at: float) -> RunEvent:
    """The `run_continued` event (once per segment, whoever asks again)."""
    cont = continuation
    given = cont.budgets
    more = [
        plural(given.searches, "more search", "more searches"),
        plural(given.recognitions, "more recognition"),
        plural(given.llm_calls, "more LLM call"),
    ]
    message = f"Continuing with {', '.join(more[:-1])} and {more[-1]}"
    if cont.via:
        message += f", trying via {cont.via} first"
    data = {
        "segment": cont.segment,
        "budgets": given.dump(),
        "via": cont.via,
        "usage": cont.usage.dump(),
        "message": message,
    }
    log = EventLog(memory, sink, ttl_seconds=cont.ttl)
    return log.append(cont.run_id, f"continued#c{cont.segment}", "run_continued", data, at=at)


# ---- per-segment spend ------------------------------------------------------------------------


def close_segment(
    meta: RunMeta, segment: int, *, budgets: Budgets, usage: Usage, seconds: float, outcome: EventType
) -> tuple[list[Segment], Usage]:
    """The run's segments with `segment` ended (its spend, time and outcome), and its spend."""
    segments = list(meta.segments)
    if not segments or segments[-1].segment != segment:
        segments.append(Segment(segment=segment, budgets=budgets))
    spent = usage.since(segments[-1].usage_at_start)
    segments[-1] = segments[-1].model_copy(
        update={"usage": spent, "seconds": round(max(0.0, seconds), 3), "outcome": outcome}
    )
    return segments, spent


def segments_summary(segments: list[Segment]) -> list[dict[str, Any]]:
    """Per segment, for clients: its number, what it spent, how it ended and whether it had a hint."""
    shown = []
    for seg in segments:
        usage = seg.usage or Usage()
        shown.append(
            {
                "segment": seg.segment,
                "searches": usage.searches,
                "recognitions": usage.recognitions,
                "llmCalls": usage.llm_calls,
                "costUsd": usage.cost_usd,
                "outcome": seg.outcome,
                **({"via": seg.via} if seg.via else {}),
            }
        )
    return shown
