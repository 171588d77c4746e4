"""The seed strategy (the spec's baseline): one-sided expansion from A, round after round.

S1 searches "A B"; S2 searches about the frontier until someone new appears with them; S3 asks the
planner which of them leads towards the far end (validated, else the deterministic order); S4 proves
frontier — candidate (a photo in hand first, with reuse_evidence); S5 moves the frontier to the
person proven and tries them against B. Meeting in the middle (search/strategies/both_ends) is the
same walk over both ends' trees; it changes the hooks below, never the walk.
"""

from __future__ import annotations

from visual_degrees.domain.journal import CandidatePlan
from visual_degrees.domain.models import Edge, Side
from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import Plan, PlannerContext, fallback_plan
from visual_degrees.domain.queries import GROUP_FIRST, discovery_query, pair_query
from visual_degrees.domain.records import Position
from visual_degrees.domain.strategy import Knobs
from visual_degrees.domain.wording import plural
from visual_degrees.lifecycle.run_memory import Candidate
from visual_degrees.ports import Planner
from visual_degrees.search.answer_chain import standing
from visual_degrees.search.confirm import settle
from visual_degrees.search.evidence import find_pair, record, search
from visual_degrees.search.known_edges import earlier_chain
from visual_degrees.search.observe import Observed
from visual_degrees.search.port import StepResult
from visual_degrees.search.scope import Rules, SearchScope
from visual_degrees.search.strategies.seed.selection import ask_planner, plan_order, summaries

MAX_OFFERED = 20  # candidates shown to the planner (the best by the fallback order)


class Seed:
    def __init__(self, knobs: Knobs) -> None:
        self.knobs = knobs
        self.rules = Rules.of(knobs)

    # ---- the five decisions -------------------------------------------------------------------

    def direct(self, scope: SearchScope) -> StepResult:
        known = earlier_chain(scope)
        if known is not None:
            return known
        a, b = scope.state.person_a, scope.state.person_b
        observed = search(scope, pair_query(a.name, b.name), skip_portraits_of=[a.name, b.name])
        record(scope, observed, frontier=a.key, focus={a.key, b.key})
        direct = find_pair(scope, observed, a.key, b.key)
        if direct is not None:
            scope.status(f"Found a photo of {a.name} with {b.name}")
        else:
            scope.status(f"No photo of {a.name} with {b.name} among {len(observed.observations)} images")
        reached, confirming = settle(scope, "s1", claimed=direct is not None)
        return StepResult(reached=reached, observed=(observed, confirming))

    def discover(self, scope: SearchScope) -> StepResult:
        """Search about the frontier, round after round, until someone new turns up, the templates
        run out, a budget refuses, or the graph connects A and B (each round's confirmations are
        journalled under its number). With reuse_evidence, people already seen near the frontier
        come first."""
        state = scope.state
        order = self.discovery_order
        frontier = scope.person(state.frontier or state.person_a.key)
        round_no = state.round
        last = Observed()
        reached = searched = False
        in_hand = scope.decide(
            "in_hand", lambda: self.knobs.reuse_evidence and bool(self.untried(scope, frontier.key))
        )
        while not in_hand:
            if searched and self.untried(scope, frontier.key):
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
        found = self.untried(scope, frontier.key)
        if found:
            scope.status(
                f"{plural(len(found), 'person', 'people')} seen with {frontier.name}", candidates=len(found)
            )
        return StepResult(
            reached=reached,
            found=bool(found),
            exhausted=discovery_query(frontier.name, round_no, order) is None,
            position=Position.of(state).moved(round=round_no),
            observed=(last,),
        )

    def select(self, scope: SearchScope) -> StepResult:
        """The planner orders the frontier's candidates once per discovery round (strictly
        validated, else the fallback order); later visits take the next in line, and only when
        everyone planned has been tried and newcomers remain is a new plan made."""
        state = scope.state
        position = Position.of(state)
        frontier = scope.person(state.frontier or state.person_a.key)
        target = state.far_end()  # B for A's side, A for B's side
        untried = self.untried(scope, frontier.key)
        if not untried:
            return StepResult(position=position.moved(selected=None), observed=None)
        untried_keys = {c.key for c in untried}
        saved = scope.frontier.plan(frontier.key, state.round)
        if saved is None or not untried_keys.intersection(saved.order):
            context = PlannerContext(
                target=target.name,
                frontier=frontier.name,
                path=[scope.person(k).name for k in state.path],
                candidates=summaries(self.ranked(untried)[: self.offered]),
                remaining_searches=scope.budget.remaining("searches"),
            )
            plan = self.choose_plan(scope, context)
            saved = CandidatePlan(
                order=plan_order(plan, self.ranked(untried), target.key),
                queries={name_key(n): q for n, q in plan.queries.items()},
                source=plan.source,
            )
            scope.frontier.save_plan(frontier.key, state.round, saved)
            if plan.narration:
                scope.status(plan.narration, source="planner")
        nxt = next(k for k in saved.order if k in untried_keys)
        scope.status(f"Next: can we prove {frontier.name} — {scope.person(nxt).name}?")
        return StepResult(found=True, position=position.moved(selected=nxt), observed=None)

    def verify(self, scope: SearchScope) -> StepResult:
        """Prove frontier — candidate with one photo of both, re-using a photo in hand first."""
        state = scope.state
        frontier = scope.person(state.frontier or state.person_a.key)
        over = self.discovery_over(frontier.name, state.round)
        if state.selected is None:
            return StepResult(exhausted=over, observed=None)
        candidate = scope.person(state.selected)
        observed = Observed()
        in_hand = scope.decide(
            "in_hand",
            lambda: (
                self.knobs.reuse_evidence and scope.graph.confidence(frontier.key, candidate.key) is not None
            ),
        )
        # A link in hand from an earlier run is walked only if its photo still resolves.
        pair = [frontier.key, candidate.key]
        if in_hand and standing(scope, "in_hand", lambda: pair) is None:
            in_hand = False
        edge: Edge | None = scope.evidence.edge(frontier.key, candidate.key) if in_hand else None
        if edge is not None:
            scope.status(f"Already holding a photo of {frontier.name} with {candidate.name}")
        else:
            saved = scope.frontier.plan(frontier.key, state.round) or CandidatePlan()
            query = saved.queries.get(candidate.key) or pair_query(frontier.name, candidate.name)
            scope.status(f"Verifying {frontier.name} — {candidate.name}: searching {query!r}")
            observed = search(scope, query)
            record(scope, observed, frontier=frontier.key, focus={frontier.key, candidate.key})
            edge = find_pair(scope, observed, frontier.key, candidate.key)
        verified = edge is not None
        scope.frontier.mark_tried(frontier.key, candidate.key, verified)
        if not verified:
            scope.status(f"No photo proves {frontier.name} — {candidate.name}")
        claimed = verified and candidate.key == state.far_end().key
        reached, confirming = settle(scope, "s4", claimed=claimed)
        return StepResult(
            reached=reached,
            verified=verified,
            found=bool(self.untried(scope, frontier.key)),
            exhausted=over,
            position=Position.of(state).moved(selected=candidate.key if verified else None),
            observed=(observed, confirming),
        )

    def bridge(self, scope: SearchScope) -> StepResult:
        """The newly proven person becomes the frontier; try them against the target directly."""
        state = scope.state
        node = scope.person(state.selected or state.frontier or state.person_a.key)
        path = [*state.path, node.key]
        state = scope.state = state.model_copy(
            update={"path": path, "hop": state.hop + 1, "frontier": node.key}
        )
        if standing(scope, "path", lambda: path) is not None:  # its reused links re-checked first
            scope.emit(
                "path_update",
                {"path": [scope.person(k).name for k in path], "hop": state.hop, "side": state.side},
            )
        target_key = self.bridge_target(scope)
        observed = Observed()
        if target_key is not None:
            target = scope.person(target_key)
            scope.status(f"Bridging {node.name} — {target.name}")
            observed = search(
                scope, pair_query(node.name, target.name), skip_portraits_of=[node.name, target.name]
            )
            record(scope, observed, frontier=node.key, focus={node.key, target.key})
            self.bridged(scope, node.key, target.key)
            find_pair(scope, observed, node.key, target.key)
        claimed = (
            target_key == state.person_b.key and scope.graph.confidence(node.key, target_key) is not None
        )
        reached, confirming = settle(scope, "s5", claimed=claimed)
        position = Position.of(state).moved(selected=None, round=0)
        return StepResult(reached=reached, position=position, observed=(observed, confirming))

    # ---- what meeting in the middle changes ----------------------------------------------------

    offered = MAX_OFFERED  # candidates the planner is shown

    @property
    def discovery_order(self) -> tuple[int, ...] | None:
        """The order of the discovery templates (group shots first, or as written)."""
        return GROUP_FIRST if self.knobs.group_queries_first else None

    def untried(self, scope: SearchScope, frontier: str, side: Side | None = None) -> list[Candidate]:
        """Whom the frontier could lead to next: everyone seen with it, not tried, not on the path."""
        tried = scope.frontier.tried(frontier)
        on_path = set(scope.state.path)
        return [c for c in scope.frontier.candidates(frontier) if c.key not in tried and c.key not in on_path]

    def ranked(self, candidates: list[Candidate]) -> list[Candidate]:
        """The deterministic order: best confidence, then co-appearance count, then name (the
        fallback order)."""
        return sorted(candidates, key=lambda c: (-c.best_confidence, -c.count, name_key(c.name), c.name))

    def choose_plan(self, scope: SearchScope, context: PlannerContext) -> Plan:
        """Ask the planner, if there is one worth asking, else fall back."""
        planner = self.planner_for(scope, context)
        plan = ask_planner(scope, planner, context) if planner is not None else None
        return plan if plan is not None else self.fallback(context)

    def planner_for(self, scope: SearchScope, context: PlannerContext) -> Planner | None:
        """The planner to ask (planner_ranking), None: the fallback orders."""
        return scope.ctx.providers.planner if self.knobs.planner_ranking else None

    def fallback(self, context: PlannerContext) -> Plan:
        return fallback_plan(context)

    def discovery_over(self, frontier: str, round_no: int) -> bool:
        """Whether the frontier's discovery templates are used up (S4 then routes to S2 or the end)."""
        return discovery_query(frontier, round_no) is None

    def bridge_target(self, scope: SearchScope) -> str | None:
        """Whom S5 tries the new frontier against: B."""
        return scope.state.person_b.key

    def bridged(self, scope: SearchScope, key: str, target: str) -> None:
        """S5 tried `key` against `target` (nothing to remember one-sided)."""
