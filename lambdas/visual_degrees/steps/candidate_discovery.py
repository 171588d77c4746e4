"""S2: expand the frontier with discovery queries; collect who appears with them.

Discovery rounds continue inside the step until someone new turns up, the templates run out, a
budget refuses, or the run's graph already connects A and B. Meeting in the middle (the default),
each round searches the best open person of either side (services/both_ends.py), so the frontier moves, and
the side switches, whenever another person is the better bet.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from visual_degrees.domain.models import RunState
from visual_degrees.domain.queries import GROUP_FIRST, discovery_query
from visual_degrees.services import both_ends
from visual_degrees.services.confirm import settle
from visual_degrees.services.context import StepContext
from visual_degrees.services.evidence import budget_flags, graph_connects, record, search
from visual_degrees.services.known_edges import import_known
from visual_degrees.services.observe import Observed
from visual_degrees.services.scope import RunScope
from visual_degrees.services.selection import untried_candidates


def run(state: RunState, ctx: StepContext) -> RunState:
    scope = RunScope(ctx, state)
    if scope.knobs.both_ends:
        return _both_ends(state, scope)
    return _one_side(state, scope)


def _one_side(state: RunState, scope: RunScope) -> RunState:
    knobs = scope.knobs
    order = GROUP_FIRST if knobs.group_queries_first else None
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
        query = discovery_query(frontier.name, round_no, order)
        if query is None:
            break
        scope.status(f"Who appears with {frontier.name}? Searching {query!r}")
        last = search(scope, query, skip_portraits_of=[frontier.name])
        record(scope, last, frontier=frontier.key, focus={frontier.key})
        round_no += 1
        searched = True
        reached, confirming = settle(scope, f"o{round_no}")
        last = confirming if confirming.exhausted else last
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
        discovery_exhausted=discovery_query(frontier.name, round_no, order) is None,
        **budget_flags(scope, last),
    )


def _both_ends(state: RunState, scope: RunScope) -> RunState:
    last = Observed()
    reached: bool = graph_connects(scope)
    found = 0
    expansion: both_ends.Expansion | None = None
    attempt = 0
    # Each round's choice and outcome is journalled: a re-run of this step must replay the rounds its
    # first attempt made, not re-decide them from the graph those rounds already changed.
    while not reached and not found and not last.exhausted and not scope.runtime_exceeded():
        plan = scope.decide(f"expand.{attempt}", partial(_plan_round, scope))
        if plan["unseen"] is not None:
            scope.control.update_meta(unseenEnd=plan["unseen"])
            scope.status(f"No photo shows {plan['unseen']} with anyone; every chain would need one")
            expansion = None
            break
        if plan["choice"] is None:
            expansion = None
            break
        expansion = both_ends.Expansion(**plan["choice"])
        person = scope.person(expansion.key)
        # Evidence from earlier runs may already show who appears with them: no search needed.
        known = scope.decide(f"known.{attempt}", partial(_known_in_hand, scope, person.key, expansion.side))
        if known:
            scope.status(f"Earlier runs already show who appears with {person.name}")
        else:
            scope.status(
                f"Who appears with {person.name}? Searching {expansion.query!r}", side=expansion.side
            )
            last = search(scope, expansion.query, skip_portraits_of=[person.name])
            if not last.exhausted:
                complete = last.hits < state.options.images_per_search
                scope.frontier.mark_expanded(person.key, expansion.round, hits=last.hits, complete=complete)
            record(scope, last, frontier=person.key, focus={person.key})
        reached, confirming = settle(scope, f"r{attempt}")
        if confirming.exhausted:
            last = confirming
        found = scope.decide(f"found.{attempt}", partial(_found, scope, person.key, expansion.side))
        attempt += 1
    if expansion is None:
        return state.advanced(
            reached=reached,
            candidates_found=False,
            candidates_left=False,
            discovery_exhausted=True,
            **budget_flags(scope, last),
        )
    if found:
        person = scope.person(expansion.key)
        scope.status(f"{found} people seen with {person.name}", candidates=found, side=expansion.side)
    return state.advanced(
        side=expansion.side,
        frontier=expansion.key,
        hop=expansion.depth,
        path=both_ends.tree_path(scope, expansion.side, expansion.key),
        round=expansion.round + 1,
        reached=reached,
        candidates_found=bool(found),
        candidates_left=bool(found),
        discovery_exhausted=False,
        **budget_flags(scope, last),
    )


def _known_in_hand(scope: RunScope, key: str, side: str) -> bool:
    return bool(import_known(scope, key)) and bool(untried_candidates(scope, key, side))


def _found(scope: RunScope, key: str, side: str) -> int:
    return len(untried_candidates(scope, key, side))


def _plan_round(scope: RunScope) -> dict[str, Any]:
    """Stop (an end no search can find) or the next person to search about (None: nobody left)."""
    gone = both_ends.unseen_end(scope)
    if gone is not None:
        return {"unseen": scope.person(gone).name, "choice": None}
    nxt = both_ends.next_expansion(scope)
    if nxt is None:
        return {"unseen": None, "choice": None}
    choice = {"side": nxt.side, "key": nxt.key, "depth": nxt.depth, "round": nxt.round, "query": nxt.query}
    return {"unseen": None, "choice": choice}
