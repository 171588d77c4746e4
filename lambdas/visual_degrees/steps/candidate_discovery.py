"""S2: expand the frontier with discovery queries; collect who appears with them.

Discovery rounds continue inside the step until someone new turns up, the templates run out, a
budget refuses, or the run's graph already connects A and B.
"""

from __future__ import annotations

from visual_degrees.domain.models import RunState
from visual_degrees.domain.queries import discovery_query
from visual_degrees.services.context import StepContext
from visual_degrees.services.observe import Observed, observe
from visual_degrees.services.scope import RunScope
from visual_degrees.steps.evidence import budget_flags, graph_connects, record
from visual_degrees.steps.selection import untried_candidates
from visual_degrees.steps.strategy import knobs_for


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    knobs = knobs_for(state.options.strategy)
    frontier = scope.person(state.frontier or state.person_a.key)
    round_no = state.round
    last = Observed()
    reached = searched = False
    # The seed strategy always searches once; ours first uses people already seen near the frontier.
    in_hand = scope.decide(
        "in_hand", lambda: knobs.reuse_evidence and bool(untried_candidates(scope, frontier.key))
    )
    while not in_hand:
        if searched and untried_candidates(scope, frontier.key):
            break
        query = discovery_query(frontier.name, round_no)
        if query is None:
            break
        scope.status(f"Who appears with {frontier.name}? Searching {query!r}")
        last = observe(scope, query, parallel=knobs.parallel_images)
        record(scope, last, frontier=frontier.key)
        round_no += 1
        searched = True
        reached = graph_connects(scope)
        if reached or last.exhausted:
            break
    found = untried_candidates(scope, frontier.key)
    if found:
        scope.status(f"{len(found)} people seen with {frontier.name}", candidates=len(found))
    return state.advanced(
        round=round_no,
        reached=reached,
        candidates_found=bool(found),
        candidates_left=bool(found),
        discovery_exhausted=discovery_query(frontier.name, round_no) is None,
        **budget_flags(scope, last),
    )
