"""What a language model plausibly knows of a world's credits, for the simulated planner.

A model learns filmographies from text about them: the leads of a prominent film are written about
everywhere, a bit player of an obscure one almost nowhere. So each credit (person, event) is known
with a probability that rises with the event's prominence and, for everyone but its leads, with the
person's own fame; a model asked about obscure people also confabulates: it "remembers" plausible
collaborations that never happened, and says so less confidently than what it really knows.

Every figure is in docs/sandbox.md with its reasoning; all are assumptions (no published measure of
LLM recall of film credits by prominence exists that we know of). `recall` scales every recall
probability: the benchmark reports its figures at 1.0 and at 0.3 (a model that knows far less).
The credits have no billing order, so "leads" are an event's most credited people, the same rule the
photo web uses for whom agencies photograph (photos.py). Pure: every answer is a function of the
seed, the world and the question.
"""

from __future__ import annotations

import math
import weakref
from collections import deque
from dataclasses import dataclass
from functools import lru_cache

from visual_degrees_tools.sandbox.hashing import combine, stable_hash, unit
from visual_degrees_tools.sandbox.photos import DEFAULT_PHOTOS, PhotoParameters
from visual_degrees_tools.sandbox.world import World


@dataclass(frozen=True)
class KnowledgeModel:
    recall: float = 1.0  # scales every recall probability below (the benchmark's knob)
    lead_base: float = 0.30  # a lead's credit in an event of prominence 0 ...
    lead_per_prominence: float = 0.65  # ... rising to 0.95 at prominence 1
    other_base: float = 0.03  # anyone else's credit, times the event's prominence: a bit player ...
    other_per_fame: float = 0.45  # ... rising with their fame (0..1) to 0.48
    fame_events: int = 50  # credits at which a person counts as fully famous (fame 1)
    prominence_credits: int = 100  # summed credits of an event's leads at which it is fully prominent
    max_recall: float = 0.97
    # P(it believes in a collaboration of two people that never happened), for two people of fame 0;
    # none between two fully famous people.
    confabulation: float = 0.04
    known_confidence: tuple[float, float] = (0.55, 0.95)  # stated confidence of a real memory: low..high
    confabulated_confidence: tuple[float, float] = (0.25, 0.6)  # ... of a confabulation


DEFAULT_KNOWLEDGE = KnowledgeModel()


class Knowledge:
    def __init__(
        self,
        world: World,
        *,
        seed: int = 0,
        model: KnowledgeModel = DEFAULT_KNOWLEDGE,
        photos: PhotoParameters = DEFAULT_PHOTOS,
    ) -> None:
        self.world = world
        self.model = model
        self.photos = photos
        self._seed = stable_hash("knowledge", seed)
        self._leads: dict[int, frozenset[int]] = {}
        self._prominence: dict[int, float] = {}
        self._known_cast: dict[int, tuple[int, ...]] = {}
        self.costars = lru_cache(maxsize=8192)(self._costars)

    # ---- what it knows -------------------------------------------------------------------------

    def leads(self, event: int) -> frozenset[int]:
        found = self._leads.get(event)
        if found is None:
            fame, cast, p = self.world.fame, self.world.members[event], self.photos
            count = min(len(cast), p.leads_max, p.leads_base + len(cast) // p.leads_per_cast)
            found = self._leads[event] = frozenset(sorted(cast, key=lambda x: -fame[x])[:count])
        return found

    def prominence(self, event: int) -> float:
        found = self._prominence.get(event)
        if found is None:
            credits = sum(self.world.fame[p] for p in self.leads(event))
            found = min(1.0, math.log2(1 + credits) / math.log2(1 + self.model.prominence_credits))
            self._prominence[event] = found
        return found

    def fame(self, person: int) -> float:
        events = max(1, self.world.fame[person])
        return min(1.0, math.log2(events) / math.log2(self.model.fame_events))

    def credit_recall(self, person: int, event: int) -> float:
        m = self.model
        prominence = self.prominence(event)
        if person in self.leads(event):
            base = m.lead_base + m.lead_per_prominence * prominence
        else:
            base = (m.other_base + m.other_per_fame * self.fame(person)) * prominence
        return min(m.max_recall, base * m.recall)

    def knows_credit(self, person: int, event: int) -> bool:
        return unit(combine(combine(self._seed, person), event)) < self.credit_recall(person, event)

    def known_cast(self, event: int) -> tuple[int, ...]:
        """Everyone it remembers in `event`."""
        found = self._known_cast.get(event)
        if found is None:
            found = self._known_cast[event] = tuple(
                p for p in self.world.members[event] if self.knows_credit(p, event)
            )
        return found

    def films(self, person: int) -> list[int]:
        """The events it remembers `person` in."""
        return [e for e in self.world.person_events[person] if person in self.known_cast(e)]

    def _costars(self, person: int) -> dict[int, int]:
        """Who it remembers working with `person`, and in which event (the most prominent)."""
        found: dict[int, int] = {}
        for event in sorted(self.films(person), key=lambda e: -self.prominence(e)):
            for other in self.known_cast(event):
                if other != person and other not in found:
                    found[other] = event
        return found

    def confabulates(self, a: int, b: int) -> bool:
        obscurity = 1.0 - 0.5 * (self.fame(a) + self.fame(b))
        h = stable_hash("confabulation", self._seed, min(a, b), max(a, b))
        return unit(h) < self.model.confabulation * obscurity * min(1.0, self.model.recall + 0.5)

    def confidence(self, a: int, b: int, *, true: bool) -> float:
        low, high = self.model.known_confidence if true else self.model.confabulated_confidence
        strength = 0.5 * (self.fame(a) + self.fame(b))
        jitter = unit(stable_hash("confidence", self._seed, min(a, b), max(a, b))) * 0.2
        return round(min(high, low + (high - low) * strength + jitter), 2)

    # ---- a route between two groups of people ---------------------------------------------------

    def route(
        self,
        sources: dict[int, int],
        targets: dict[int, int],
        max_len: int,
        banned: frozenset[tuple[int, int]] = frozenset(),
        fanout: int = 200,
    ) -> list[int] | None:
        """The shortest chain of remembered collaborations from a source to a target, where each
        group maps a person to their distance from their end and the whole chain (those distances
        included) stays within max_len. Breadth first from both groups; famous co-stars first."""
        dist = [dict(sources), dict(targets)]
        parent: list[dict[int, int | None]] = [dict.fromkeys(sources), dict.fromkeys(targets)]
        best: tuple[int, int] | None = None
        for meet in set(sources) & set(targets):
            total = sources[meet] + targets[meet]
            if total <= max_len and (best is None or total < best[0]):
                best = (total, meet)
        queues = [
            deque(sorted(sources, key=sources.__getitem__)),
            deque(sorted(targets, key=targets.__getitem__)),
        ]
        while (queues[0] or queues[1]) and best is None:
            side = 0 if queues[0] and (len(queues[0]) <= len(queues[1]) or not queues[1]) else 1
            for _ in range(len(queues[side])):
                node = queues[side].popleft()
                if dist[side][node] + 1 > max_len:
                    continue
                costars = sorted(self.costars(node), key=lambda p: -self.world.fame[p])[:fanout]
                for other in costars:
                    if (min(node, other), max(node, other)) in banned or other in dist[side]:
                        continue
                    dist[side][other] = dist[side][node] + 1
                    parent[side][other] = node
                    queues[side].append(other)
                    if other in dist[1 - side]:
                        total = dist[0][other] + dist[1][other]
                        if total <= max_len and (best is None or total < best[0]):
                            best = (total, other)
        if best is None:
            return None
        meet = best[1]
        return _walk(parent[0], meet)[::-1] + _walk(parent[1], parent[1].get(meet))


_SHARED: weakref.WeakKeyDictionary[World, dict[tuple[int, KnowledgeModel], Knowledge]] = (
    weakref.WeakKeyDictionary()
)


def knowledge_for(world: World, seed: int, model: KnowledgeModel = DEFAULT_KNOWLEDGE) -> Knowledge:
    """The one Knowledge of (world, seed, model), shared by every run's planner (it is pure)."""
    made = _SHARED.setdefault(world, {})
    found = made.get((seed, model))
    if found is None:
        found = made[seed, model] = Knowledge(world, seed=seed, model=model)
    return found


def _walk(parent: dict[int, int | None], start: int | None) -> list[int]:
    path: list[int] = []
    while start is not None:
        path.append(start)
        start = parent.get(start)
    return path
