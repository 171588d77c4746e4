"""Candidate discovery (S2): who appears with the people the search is about, round by round.

Both ways end the same: the run's graph connects A and B (`reached`), someone new turned up
(`found` untried candidates of the frontier), a budget refused (`last.exhausted`), or nobody and no
template is left (`exhausted`). Each round's choice and outcome is journalled (RunScope.decide), so a
re-run of the step replays the rounds its first attempt made.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from visual_degrees.domain.queries import GROUP_FIRST, discovery_query
from visual_degrees.domain.wording import plural
from visual_degrees.lifecycle.scope import RunScope
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import graph_connects, record, search
from visual_degrees.search.known_edges import import_known
from visual_degrees.search.observe import Observed
from visual_degrees.search.strategies.both_ends import trees as both_ends
from visual_degrees.search.strategies.seed.selection import untried_candidates


@dataclass
class Discovered:
    reached: bool
    found: int  # untried candidates of the (new) frontier
    last: Observed  # the last observation: which budget, if any, ended the spending
    round: int  # the frontier's next discovery round
    exhausted: bool  # nobody (meeting in the middle) or no template (one-sided) is left
    expansion: both_ends.Expansion | None = None  # meeting in the middle: the frontier now


def around_frontier(scope: RunScope) -> Discovered:
    """One-sided (the seed's way): search about the frontier, round after round, until someone new
    turns up, the templates run out, a budget refuses, or the graph connects A and B. The strategy's
    own (reuse_evidence) first uses people already seen near the frontier."""
    state = scope.state
    knobs = scope.knobs
    order = GROUP_FIRST if knobs.group_queries_first else None
    frontier = scope.person(state.frontier or state.person_a.key)
    round_no = state.round
    last = Observed()
    reached = searched = False
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
        scope.status(
            f"{plural(len(found), 'person', 'people')} seen with {frontier.name}", candidates=len(found)
        )
    return Discovered(
        reached=reached,
        found=len(found),
        last=last,
        round=round_no,
        exhausted=discovery_query(frontier.name, round_no, order) is None,
    )


def from_both_ends(scope: RunScope) -> Discovered:
    """Meeting in the middle: each round searches the best open person of either side
    (both_ends.py), until someone new turns up, nobody is left, a budget refuses, or the graph
    connects A and B. `expansion` is where the search stands (None: discovery is over)."""
    state = scope.state
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
            if not last.exhausted and not last.failed:
                complete = last.hits < state.options.images_per_search
                scope.frontier.mark_expanded(person.key, expansion.round, hits=last.hits, complete=complete)
            record(scope, last, frontier=person.key, focus={person.key})
        reached, confirming = settle(scope, f"r{attempt}")
        if confirming.exhausted:
            last = confirming
        found = scope.decide(f"found.{attempt}", partial(_found, scope, person.key, expansion.side))
        attempt += 1
    if expansion is not None and found:
        person = scope.person(expansion.key)
        scope.status(
            f"{plural(found, 'person', 'people')} seen with {person.name}",
            candidates=found,
            side=expansion.side,
        )
    return Discovered(
        reached=reached,
        found=found,
        last=last,
        round=expansion.round + 1 if expansion else state.round,
        exhausted=expansion is None,
        expansion=expansion,
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
