"""A simulated LLM planner: partial, noisy knowledge of who worked with whom.

Like a language model, it knows the credits of famous people far better than those of bit-part
players, sometimes believes in a collaboration that never happened, and now and then answers
outside the rules (a name it was not offered, a query that is not one of our templates), so the
caller's validation, feedback and fallback paths are exercised. It knows nothing of the photo web:
credits are not photos. Every answer is a pure function of the seed and the context.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache

from visual_degrees.domain.errors import TransientProviderError
from visual_degrees.domain.planning import MAX_NARRATION, PlannerContext, PlannerReply
from visual_degrees.domain.queries import PAIR_TEMPLATES
from visual_degrees.sandbox.clock import LATENCIES, Latencies, VirtualClock
from visual_degrees.sandbox.faults import FaultInjector
from visual_degrees.sandbox.hashing import combine, stable_hash, unit
from visual_degrees.sandbox.world import World

_SYSTEM_PROMPT_TOKENS = 420  # instructions + response schema, as the live prompt would carry


@dataclass(frozen=True)
class PlannerBehaviour:
    know_unknowns: float = 0.15  # P(it knows two obscure people worked together)
    know_famous: float = 0.95  # ... two people with `famous_events` credits or more
    famous_events: int = 20
    false_belief: float = 0.02  # P(it believes in a collaboration that never happened)
    off_list: float = 0.06  # P(it names someone it was not offered)
    off_template: float = 0.06  # P(it writes a query that is not a template)
    after_feedback: float = 0.25  # both error rates are multiplied by this once told what was wrong
    max_candidates: int = 3


DEFAULT_BEHAVIOUR = PlannerBehaviour()


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
        self._costars = lru_cache(maxsize=64)(self._costars_of)

    def plan(self, context: PlannerContext) -> PlannerReply:
        self.calls += 1
        prompt = context.as_prompt_data()
        identity = f"{prompt}\x1f{'|'.join(context.feedback)}"
        if self.faults.strikes("planner_error", identity):
            self.clock.advance(self.latencies.throttled)
            raise TransientProviderError("planner unavailable (HTTP 503)")
        self.clock.advance(self.latencies.llm)
        h = stable_hash("planner", self.seed, identity)
        reply = self._answer(context, h)
        tokens_in = _SYSTEM_PROMPT_TOKENS + (len(prompt) + sum(len(f) for f in context.feedback)) // 4
        tokens_out = len(json.dumps(reply.model_dump(by_alias=True), ensure_ascii=False)) // 4 + 12
        return reply.model_copy(update={"tokens_in": tokens_in, "tokens_out": tokens_out})

    # ---- belief ---------------------------------------------------------------------------------

    def belief(self, candidate: str, target: str, h: int = 0) -> tuple[float, str]:
        """How close the planner believes `candidate` is to `target` (higher: closer), and why:
        "worked with" (it recalls a shared credit, rightly or not), "shared co-star", or ""."""
        world, b = self.world, self.behaviour
        noise = 0.8 * unit(combine(h, stable_hash(candidate)))
        c, t = self._person(candidate), self._person(target)
        if c is None:
            return noise, ""
        score = min(1.0, math.log1p(world.fame[c]) / math.log1p(b.famous_events)) + noise
        if t is None:
            return score, ""
        pair = stable_hash("knows", self.seed, min(c, t), max(c, t))
        knows = unit(pair) < self._know_rate(c, t)
        costars = self._costars(t)
        if c in costars:
            return (score + 3.0, "worked with") if knows else (score, "")
        if unit(combine(pair, 1)) < b.false_belief:
            return score + 3.0, "worked with"  # a collaboration it is sure of, and wrong about
        if knows and any(not costars.isdisjoint(world.members[e]) for e in world.person_events[c]):
            return score + 1.5, "shared co-star"
        return score, ""

    def _know_rate(self, a: int, b: int) -> float:
        fame = self.world.fame
        cap = math.log(self.behaviour.famous_events)
        scale = min(1.0, (math.log(fame[a]) + math.log(fame[b])) / (2 * cap))
        return (
            self.behaviour.know_unknowns + (self.behaviour.know_famous - self.behaviour.know_unknowns) * scale
        )

    def _costars_of(self, person: int) -> frozenset[int]:
        world = self.world
        return frozenset(p for e in world.person_events[person] for p in world.members[e] if p != person)

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
            costars = sorted(self._costars(frontier), key=lambda p: (-self.world.fame[p], p))
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
            text = f"{first} worked with {context.target}, as far as I recall; trying them first."
        elif reason == "shared co-star":
            text = f"{first} and {context.target} have worked with the same people; trying them first."
        else:
            text = f"{first} looks best connected towards {context.target}; trying them first."
        return _plain(text)


def _plain(text: str) -> str:
    text = "".join(ch for ch in text if ch not in "<>" and (ord(ch) >= 32 or ch in "\n\t"))
    return text if len(text) <= MAX_NARRATION else text[: MAX_NARRATION - 1] + "…"
