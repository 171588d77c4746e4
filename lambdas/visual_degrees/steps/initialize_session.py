"""S0: validate and normalise the two names, create the run in memory (with TTL), announce it.

A continuation (segment 1, 2, …: lifecycle/continuation.py made the run `running` again and announced
it) creates nothing and announces nothing twice: it notes when its segment started (its runtime
budget counts from there) and keeps the search position the last segment ended at. Either way, a
hint (`via`) becomes the user's hunches, checked first (search/hints.py).
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.records import RunMeta
from visual_degrees.domain.requests import validate_pair
from visual_degrees.domain.wording import plural
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search import hints
from visual_degrees.search.strategies import begin


def run(state: RunState, ctx: StepContext) -> RunState:
    if state.segment:
        return _continue(state, ctx)
    a, b = validate_pair(state.person_a.name, state.person_b.name)
    now = ctx.clock.now()
    state = state.model_copy(update={"person_a": a, "person_b": b})
    _, scope = begin(ctx, state)
    scope.control.create(
        RunMeta(
            run_id=state.run_id,
            person_a=a.name,
            person_b=b.name,
            options=state.options,
            created_at=now,
            status="running",
            web=ctx.providers.web,
        )
    )
    # A re-run keeps the first attempt's start: the runtime budget counts from there.
    meta = scope.control.meta()
    started = meta.created_at if meta is not None and meta.created_at is not None else now
    state = state.model_copy(update={"started_at": started})
    scope.state = state
    scope.evidence.remember_person(a)
    scope.evidence.remember_person(b)
    scope.emit(
        "run_started",
        {"personA": a.name, "personB": b.name, "options": state.options.dump()},
        key="run_started",
    )
    scope.status(f"Looking for one photo of {a.name} with {b.name}")
    hints.take(scope)
    return state.advanced(frontier=a.key, path=[a.key], side="A", hop=0, round=0)


def _continue(state: RunState, ctx: StepContext) -> RunState:
    _, scope = begin(ctx, state)
    started = scope.decide("startedAt", ctx.clock.now)  # a re-run keeps the first attempt's start
    state = scope.state = state.model_copy(update={"started_at": started})
    links = len(scope.evidence.edges())
    scope.status(
        f"Picking up where the run stopped: {plural(links, 'link')} proven so far, "
        f"{plural(len(scope.leads.pages()), 'page')} of results already read"
    )
    hints.take(scope)
    return state.advanced()
