"""A simulated LLM planner: partial, noisy knowledge of who worked with whom (knowledge.py).

Like a language model, it remembers the credits of famous people and prominent films far better
than those of bit players, sometimes believes in a collaboration that never happened (and says so
less confidently), and now and then answers outside the rules (a name it was not offered, a query
that is not one of our templates, a pair of strangers), so the caller's validation, feedback and
fallback paths are exercised. It knows nothing of the photo web: credits are not photos. Every
answer is a pure function of the seed and the context.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from itertools import pairwise

from visual_degrees.domain.errors import TransientProviderError
from visual_degrees.domain.planning import (
    MAX_LINKS,
    MAX_NARRATION,
    ConnectContext,
    ConnectReply,
    PlannerContext,
    PlannerReply,
    ProposedLink,
)
from visual_degrees.domain.queries import PAIR_TEMPLATES
from visual_degrees_tools.sandbox.captions import display_title
from visual_degrees_tools.sandbox.clock import LATENCIES, Latencies, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultInjector
from visual_degrees_tools.sandbox.hashing import combine, stable_hash, unit
from visual_degrees_tools.sandbox.knowledge import DEFAULT_KNOWLEDGE, KnowledgeModel, knowledge_for
from visual_degrees_tools.sandbox.world import World

# Instructions + response schema, as the live prompts carry them (adapters/live/planner_prompt.py).
_SYSTEM_PROMPT_TOKENS = 420
_CONNECT_PROMPT_TOKENS = 560


@dataclass(frozen=True)
class PlannerBehaviour:
    knowledge: KnowledgeModel = field(default=DEFAULT_KNOWLEDGE)
    off_list: float = 0.06  # P(it names someone it was not offered / a pair of strangers)
    off_template: float = 0.06  # P(it writes a query that is not a template)
    after_feedback: float = 0.25  # both error rates are multiplied by this once told what was wrong
    max_candidates: int = 3
    direct_pairs: int = 4  # pairs across the two sides it names at most, besides its route
    unseen_costars: int = 3  # co-stars it names for an end nobody has seen


DEFAULT_BEHAVIOUR = PlannerBehaviour()


def with_recall(recall: float) -> PlannerBehaviour:
    """The documented behaviour with every recall probability scaled by `recall`."""
    if not 0.0 <= recall <= 1.0:
        raise ValueError(f"planner recall must be between 0 and 1, not {recall!r}")
    if recall == DEFAULT_KNOWLEDGE.recall:
        return DEFAULT_BEHAVIOUR
    return replace(DEFAULT_BEHAVIOUR, knowledge=replace(DEFAULT_KNOWLEDGE, recall=recall))


class SimulatedPlanner:
    """The Planner port. Charges `latencies.llm` per answer."""

    def __init__(
        self,
        world: World,
        *,
        seed: int = 0,
        clock: VirtualClock | None = None,
        faults: FaultInjector | None = None,
        latencies: Latencies = LATENCIES,
        behaviour: PlannerBehaviour = DEFAULT_BEHAVIOUR,
    ) -> None:
        self.world = world
        self.seed = seed
        self.clock = clock or VirtualClock()
        self.faults = faults or FaultInjector()
        self.latencies = latencies
        self.behaviour = behaviour
        self.calls = 0
        self.knowledge = knowledge_for(world, seed, behaviour.knowledge)

    def plan(self, context: PlannerContext) -> PlannerReply:
        h = self._call(context.as_prompt_data(), context.feedback)
        reply = self._answer(context, h)
        return reply.model_copy(update=self._tokens(context.as_prompt_data(), context.feedback, reply))

    def connect(self, context: ConnectContext) -> ConnectReply:
        """Which people of the two sides met, and through whom, as far as it remembers."""
        h = self._call(context.as_prompt_data(), context.feedback)
        reply = self._match(context, h)
        tokens = self._tokens(context.as_prompt_data(), context.feedback, reply)
        tokens["tokens_in"] += _CONNECT_PROMPT_TOKENS - _SYSTEM_PROMPT_TOKENS
        return reply.model_copy(update=tokens)

    def _call(self, prompt: str, feedback: list[str]) -> int:
        self.calls += 1
        identity = f"{prompt}\x1f{'|'.join(feedback)}"
        if self.faults.strikes("planner_error", identity):
            self.clock.advance(self.latencies.throttled)
            raise TransientProviderError("planner unavailable (HTTP 503)")
        self.clock.advance(self.latencies.llm)
        return stable_hash("planner", self.seed, identity)

    @staticmethod
    def _tokens(prompt: str, feedback: list[str], reply: PlannerReply | ConnectReply) -> dict[str, int]:
        tokens_in = _SYSTEM_PROMPT_TOKENS + (len(prompt) + sum(len(f) for f in feedback)) // 4
        tokens_out = len(json.dumps(reply.model_dump(by_alias=True), ensure_ascii=False)) // 4 + 12
        return {"tokens_in": tokens_in, "tokens_out": tokens_out}

    # ---- belief ---------------------------------------------------------------------------------

    def belief(self, candidate: str, target: str, h: int = 0) -> tuple[float, str]:
        """How close the planner believes `candidate` is to `target` (higher: closer), and why:
        "worked with" (it remembers a shared credit, rightly or not), "shared co-star", or ""."""
        noise = 0.8 * unit(combine(h, stable_hash(candidate)))
        c, t = self._person(candidate), self._person(target)
        if c is None:
            return noise, ""
        knowledge = self.knowledge
        score = knowledge.fame(c) + noise
        if t is None:
            return score, ""
        if t in knowledge.costars(c):
            return score + 1.0 + 2.0 * knowledge.confidence(c, t, true=True), "worked with"
        if knowledge.confabulates(c, t):
            return score + 1.0 + 2.0 * knowledge.confidence(c, t, true=False), "worked with"
        if not set(knowledge.costars(c)).isdisjoint(knowledge.costars(t)):
            return score + 1.5, "shared co-star"
        return score, ""

    def _person(self, name: str) -> int | None:
        found = self.world.find(name)
        return found[0] if found else None

    # ---- the answer -----------------------------------------------------------------------------

    def _answer(self, context: PlannerContext, h: int) -> PlannerReply:
        b = self.behaviour
        damping = b.after_feedback if context.feedback else 1.0
        offered = [c.name for c in context.candidates]
        beliefs = {name: self.belief(name, context.target, h) for name in offered}
        ranked = sorted(offered, key=lambda name: (-beliefs[name][0], name))
        chosen = ranked[: b.max_candidates]
        if unit(combine(h, 1)) < b.off_list * damping:
            stranger = self._stranger(context, offered)
            chosen.insert(int(unit(combine(h, 2)) * (len(chosen) + 1)), stranger)
        queries = []
        for i, name in enumerate(chosen):
            template = PAIR_TEMPLATES[combine(h, 10 + i) % len(PAIR_TEMPLATES)]
            queries.append(template.format(a=context.frontier, b=name))
        if queries and unit(combine(h, 3)) < b.off_template * damping:
            queries[0] = f"{context.frontier} {chosen[0]} photos together at an event"
        return PlannerReply(
            next_candidates=chosen,
            search_queries=queries,
            narration=self._narration(context, chosen, beliefs),
        )

    def _stranger(self, context: PlannerContext, offered: list[str]) -> str:
        """Someone it was not offered: a famous co-star of the frontier, else the target itself."""
        frontier = self._person(context.frontier)
        names = {name.casefold() for name in offered}
        if frontier is not None:
            costars = sorted(self.knowledge.costars(frontier), key=lambda p: (-self.world.fame[p], p))
            for person in costars[:20]:
                name = self.world.name(person)
                if name.casefold() not in names and name != context.target:
                    return name
        return context.target

    def _narration(
        self, context: PlannerContext, chosen: list[str], beliefs: dict[str, tuple[float, str]]
    ) -> str:
        if not chosen:
            return "None of the candidates looks promising; nothing to try."
        first = chosen[0]
        reason = beliefs.get(first, (0.0, ""))[1]
        if reason == "worked with":
            text = f"{first} might have worked with {context.target}; trying them first."
        elif reason == "shared co-star":
            text = f"{first} and {context.target} may have worked with the same people; trying them first."
        else:
            text = f"{first} looks best connected towards {context.target}; trying them first."
        return _plain(text)

    # ---- matching the two sides -----------------------------------------------------------------

    def _match(self, context: ConnectContext, h: int) -> ConnectReply:
        b, knowledge = self.behaviour, self.knowledge
        side_a = self._people([context.person_a, *(p.name for p in context.side_a)], context)
        side_b = self._people([context.person_b, *(p.name for p in context.side_b)], context)
        banned = frozenset(
            (min(x, y), max(x, y))
            for pair in context.failed
            if len(pair) == 2
            and (x := self._person(pair[0])) is not None
            and (y := self._person(pair[1])) is not None
        )
        links: list[ProposedLink] = []
        route = knowledge.route(side_a, side_b, context.max_hops, banned)
        if route is not None:
            links += [self._link(x, y, true=True) for x, y in pairwise(route)]
        for x in list(side_a)[:10]:
            for y in list(side_b)[:10]:
                if len(links) >= MAX_LINKS or len(links) >= len(route or []) + b.direct_pairs:
                    break
                if x == y or (min(x, y), max(x, y)) in banned:
                    continue
                if y in knowledge.costars(x):
                    links.append(self._link(x, y, true=True))
                elif knowledge.confabulates(x, y):
                    links.append(self._link(x, y, true=False))
        for name in context.unseen:
            person = self._person(name)
            if person is None:
                continue
            costars = sorted(knowledge.costars(person), key=lambda p: -self.world.fame[p])
            links += [self._link(person, c, true=True) for c in costars[: b.unseen_costars]]
        damping = b.after_feedback if context.feedback else 1.0
        if unit(combine(h, 4)) < b.off_list * damping:  # a pair of strangers, anchored to nothing
            links.append(ProposedLink(a="Somebody Else", b="Another Stranger", confidence=0.3))
        unique: dict[tuple[str, str], ProposedLink] = {}
        for link in links:
            unique.setdefault(tuple(sorted((link.a, link.b))), link)  # type: ignore[arg-type]
        kept = list(unique.values())[:MAX_LINKS]
        narration = (
            f"{len(kept)} pairs I believe worked together; check them with photos."
            if kept
            else "I cannot place any of these people together."
        )
        return ConnectReply(links=kept, narration=narration)

    def _people(self, names: list[str], context: ConnectContext) -> dict[int, int]:
        """Offered names as people, with their distance from their end (first spelling wins)."""
        distance = {context.person_a: 0, context.person_b: 0}
        for p in [*context.side_a, *context.side_b]:
            distance.setdefault(p.name, p.distance)
        found: dict[int, int] = {}
        for name in names:
            person = self._person(name)
            if person is not None and person not in found:
                found[person] = distance.get(name, 0)
        return found

    def _link(self, x: int, y: int, *, true: bool) -> ProposedLink:
        knowledge, world = self.knowledge, self.world
        event = knowledge.costars(x).get(y) if true else None
        film = display_title(world.titles[event]) if event is not None else ""
        return ProposedLink(
            a=world.name(x), b=world.name(y), film=film, confidence=knowledge.confidence(x, y, true=true)
        )


def _plain(text: str) -> str:
    text = "".join(ch for ch in text if ch not in "<>" and (ord(ch) >= 32 or ch in "\n\t"))
    return text if len(text) <= MAX_NARRATION else text[: MAX_NARRATION - 1] + "…"
