"""S7: an honest `no_path`: how far the search got, which limit ended it, whether the run can be
continued (only a budget's end can: domain/continuation.py says why not the others) and what became
of the user's hint."""

from __future__ import annotations

from itertools import chain

from visual_degrees.domain.continuation import no_path_verdict
from visual_degrees.domain.models import RunState
from visual_degrees.domain.paths import graph_summary
from visual_degrees.domain.wording import budget_words, plural
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.search import hints
from visual_degrees.search.known_edges import remember_unsolved
from visual_degrees.search.progress import partial_paths, partial_paths_payload
from visual_degrees.search.strategies import begin

REASONS = {
    "hop_limit": "No chain within {max_hops}: every further link would make the chain too long.",
    "budget": "The {exhausted} budget ran out before a chain was proven.",
    "candidates_exhausted": "Nobody new could be found to try next.",
}


def run(state: RunState, ctx: StepContext) -> RunState:
    _, scope = begin(ctx, state)
    reason = state.stop_reason or ("budget" if state.budget_exhausted else "candidates_exhausted")
    message = REASONS.get(reason, "No chain was proven.").format(
        max_hops=plural(state.options.max_hops, "hop"), exhausted=budget_words(state.exhausted or "searches")
    )
    meta = scope.control.meta()
    unseen = meta.unseen_end if meta is not None else None
    if reason == "candidates_exhausted" and unseen:
        message = f"No photo could be found showing {unseen} with anyone, and every chain needs one."
    else:
        unseen = None
    verdict = no_path_verdict(
        reason, exhausted=state.exhausted, unseen=unseen, max_hops=state.options.max_hops
    )
    hint = hints.report(scope)
    remember_unsolved(scope, reason)
    paths = partial_paths(scope)
    scope.finish(
        "no_path",
        {
            "reason": reason,
            "exhausted": state.exhausted,
            "message": message,
            "hopsTried": state.hop,
            "maxHops": state.options.max_hops,
            **({"unseenEnd": unseen} if unseen else {}),
            **verdict.payload(),
            **({"hint": hint} if hint else {}),
            **partial_paths_payload(scope, paths),
            "usage": scope.budget.usage().dump(),
            "simSeconds": round(ctx.clock.now() - state.started_at, 3),
            # Bounded (an event must fit one WebSocket message): around A, B and the partial chain.
            "graph": graph_summary(
                scope.evidence.shown_edges(),
                scope.evidence.names(),
                [state.person_a.key, state.person_b.key, *chain.from_iterable(paths)],
            ),
        },
        reason=reason,
    )
    return state.advanced(stop_reason=reason)
