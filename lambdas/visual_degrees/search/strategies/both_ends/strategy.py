"""Meeting in the middle (knob `both_ends`): the seed's walk over two trees, A's side and B's side
of one verified graph (trees.py).

S2 searches, round after round, the best open person of either side, so the frontier moves (and
the side switches) whenever another person is the better bet; S3 orders the frontier's proven
neighbours one level further from its end, best connected first; S5 tries the new person against
the best connected person of the other side, not only the far end.
"""

from __future__ import annotations

from functools import partial

from visual_degrees.domain.journal import Expansion, RoundPlan
from visual_degrees.domain.models import Side
from visual_degrees.domain.planning import Plan, PlannerContext
from visual_degrees.domain.records import Position
from visual_degrees.domain.wording import plural
from visual_degrees.lifecycle.run_memory import Candidate
from visual_degrees.ports import Planner
from visual_degrees.search.confirm import settle, stands
from visual_degrees.search.evidence import record, search
from visual_degrees.search.known_edges import import_known
from visual_degrees.search.observe import Observed
from visual_degrees.search.port import StepResult
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.both_ends import trees
from visual_degrees.search.strategies.seed.strategy import Seed

# A plan is made after every discovery round: a shorter list keeps each prompt (and its price)
# small, and the best connected ten are where a useful link usually is.
MAX_OFFERED = 10
FALLBACK_CANDIDATES = 5


class BothEnds(Seed):
    offered = MAX_OFFERED

    def discover(self, scope: SearchScope) -> StepResult:
        """Each round searches the best open person of either side (trees.py), until someone new
        turns up, nobody is left, a budget refuses, or the graph connects A and B. The frontier
        moves to the person searched; without one, discovery is over."""
        state = scope.state
        last = Observed()
        # A chain held already (its reused photos re-checked: a step may have found more gone than
        # it could withdraw) ends the run before any search.
        reached = stands(scope, "r")
        found = 0
        expansion: Expansion | None = None
        attempt = 0
        # Each round's choice and outcome is journalled: a re-run of this step must replay the rounds
        # its first attempt made, not re-decide them from the graph those rounds already changed.
        while not reached and not found and not last.exhausted and not scope.runtime_exceeded():
            plan = scope.decide_as(f"expand.{attempt}", RoundPlan, partial(self._plan_round, scope))
            if plan is not None and plan.unseen is not None:
                scope.control.update_meta(unseen_end=plan.unseen)
                scope.status(f"No photo shows {plan.unseen} with anyone; every chain would need one")
                expansion = None
                break
            if plan is None or plan.choice is None:
                expansion = None
                break
            expansion = plan.choice
            person = scope.person(expansion.key)
            # Evidence from earlier runs may already show who appears with them: no search needed.
            known = scope.decide(
                f"known.{attempt}", partial(self._known_in_hand, scope, person.key, expansion.side)
            )
            if known:
                scope.status(f"Earlier runs already show who appears with {person.name}")
            else:
                scope.status(
                    f"Who appears with {person.name}? Searching {expansion.query!r}", side=expansion.side
                )
                last = search(scope, expansion.query, skip_portraits_of=[person.name])
                if not last.exhausted and not last.failed:
                    complete = last.hits < state.options.images_per_search
                    scope.frontier.mark_expanded(
                        person.key, expansion.round, hits=last.hits, complete=complete
                    )
                record(scope, last, frontier=person.key, focus={person.key})
            reached, confirming = settle(scope, f"r{attempt}")
            if confirming.exhausted:
                last = confirming
            found = scope.decide(f"found.{attempt}", partial(self._found, scope, person.key, expansion.side))
            attempt += 1
        if expansion is None:
            return StepResult(reached=reached, exhausted=True, observed=(last,))
        if found:
            person = scope.person(expansion.key)
            scope.status(
                f"{plural(found, 'person', 'people')} seen with {person.name}",
                candidates=found,
                side=expansion.side,
            )
        moved = Position.of(state).moved(
            side=expansion.side,
            frontier=expansion.key,
            hop=expansion.depth,
            path=trees.tree_path(scope, expansion.side, expansion.key),
            round=expansion.round + 1,
        )
        return StepResult(reached=reached, found=bool(found), position=moved, observed=(last,))

    def _known_in_hand(self, scope: SearchScope, key: str, side: Side) -> bool:
        return bool(import_known(scope, key)) and bool(self.untried(scope, key, side))

    def _found(self, scope: SearchScope, key: str, side: Side) -> int:
        return len(self.untried(scope, key, side))

    def _plan_round(self, scope: SearchScope) -> RoundPlan:
        """Stop (an end no search can find) or the next person to search about (None: nobody left)."""
        gone = trees.unseen_end(scope, self.knobs)
        if gone is not None:
            return RoundPlan(unseen=scope.person(gone).name)
        return RoundPlan(choice=trees.next_expansion(scope, self.knobs, self.discovery_order))

    def untried(self, scope: SearchScope, frontier: str, side: Side | None = None) -> list[Candidate]:
        """The frontier's proven neighbours one level further from its end (a shallower one is
        already someone else's candidate); `count` is how many people the run has seen with them,
        a sign of how well connected they are."""
        tried = scope.frontier.tried(frontier)
        state = scope.state
        on_path = set(state.path)
        ends = {state.person_a.key, state.person_b.key}
        root = state.end(side or state.side).key
        graph = scope.graph
        depth = graph.depths(root, scope.options.max_hops)
        level = depth.get(frontier, 0) + 1
        return [
            Candidate(
                key=key,
                name=scope.person(key).name,
                count=graph.degree(key),
                best_confidence=confidence,
                proven=True,
                evidence=[],
            )
            for key, confidence in sorted(graph.neighbors(frontier).items())
            if key not in tried and key not in on_path and key not in ends and depth.get(key) == level
        ]

    def ranked(self, candidates: list[Candidate]) -> list[Candidate]:
        """The best connected first (every proof is >= the threshold, so confidence says little
        about where a person leads)."""
        return sorted(candidates, key=lambda c: (-c.count, -c.best_confidence, c.key))

    def planner_for(self, scope: SearchScope, context: PlannerContext) -> Planner | None:
        """None with one candidate: it leaves nothing to rank, so no call to pay for."""
        return super().planner_for(scope, context) if len(context.candidates) >= 2 else None

    def fallback(self, context: PlannerContext) -> Plan:
        """The first few in the best connected order."""
        return Plan(candidates=[c.name for c in context.candidates[:FALLBACK_CANDIDATES]], source="fallback")

    def discovery_over(self, frontier: str, round_no: int) -> bool:
        """Meeting in the middle, S2 decides when discovery is over (nobody open on either side)."""
        return False

    def bridge_target(self, scope: SearchScope) -> str | None:
        """A person of the other side whose depth keeps the chain within max hops (trees.py)."""
        state = scope.state
        return scope.decide(
            "target",
            lambda: trees.bridge_target(scope, self.knobs, state.side, state.frontier or "", state.hop),
        )

    def bridged(self, scope: SearchScope, key: str, target: str) -> None:
        scope.frontier.mark_bridged(key, target)
