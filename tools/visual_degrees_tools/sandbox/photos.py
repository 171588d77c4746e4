"""How each event's photos are drawn: kinds, people (caption order), caption contexts and keywords.

Pure and deterministic: one world, one seed (`base`) and PhotoParameters give the same photos every
time. PhotoWeb keeps the table; docs/sandbox.md gives every figure's reason.
"""

from __future__ import annotations

import math
import random
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, chain, islice

from visual_degrees_tools.sandbox.captions import CONTEXTS, MAX_NAMED, EventKind, Kind, caption_keywords
from visual_degrees_tools.sandbox.hashing import combine
from visual_degrees_tools.sandbox.world import World


@dataclass(frozen=True)
class PhotoParameters:
    """How many photos an event produces and of whom. `star` below is log2(events a person is in)."""

    leads_base: int = 2  # an event's leads: its most famous people, at least two ...
    leads_per_cast: int = 10  # ... plus one per ten credited people ...
    leads_max: int = 8  # ... up to eight
    portrait_base: float = 0.1  # solo portraits per person per event: base + per_star * star
    portrait_per_star: float = 0.3
    lead_slots_base: float = 1.0  # appearances in photos among leads: base + per_star * star
    lead_slots_per_star: float = 0.7
    cover_slots_base: float = 2.0  # appearances of everyone else: base + per_star * star
    cover_slots_per_star: float = 1.0
    group_sizes: tuple[tuple[int, float], ...] = ((2, 0.5), (3, 0.3), (4, 0.2))
    crowd_min_cast: int = 8  # crowd shots only at events with at least this many people
    crowd_chance: float = 0.2  # share of coverage photos that are crowd shots
    crowd_min: int = 5
    crowd_max: int = 12

    def __post_init__(self) -> None:
        if self.lead_slots_base < 1 or self.cover_slots_base < 1:
            raise ValueError("slot bases must be >= 1: everyone credited is photographed at least once")
        if max(len(contexts) for contexts in CONTEXTS.values()) > 8:
            raise ValueError("the keyword table assumes at most eight caption contexts per event kind")


DEFAULT_PHOTOS = PhotoParameters()


@dataclass(frozen=True)
class PhotoTable:
    """Every photo of a web in flat arrays: photo i's people are people[start[i]:start[i + 1]]."""

    kind: bytearray
    context: bytearray
    keywords: bytearray
    start: array[int]
    people: array[int]
    event_start: array[int]  # event e's photos are event_start[e] .. event_start[e + 1] - 1
    named_in: list[list[int]]  # per person: the photos whose caption names them


def generate_photos(world: World, base: int, event_kinds: bytes, params: PhotoParameters) -> PhotoTable:
    fame = world.fame
    neg_fame = [-f for f in fame]
    star = [math.log2(f) if f > 1 else 0.0 for f in range(max(fame) + 1)]
    photo_kind = bytearray()
    photo_context = bytearray()
    photo_keywords = bytearray()
    photo_start = array("I", [0])
    photo_people = array("I")
    event_start = array("I", [0])
    named: list[list[int]] = [[] for _ in range(world.size)]
    sizes = [size for size, _ in params.group_sizes]
    cumulative = []
    total = 0.0
    for _, weight in params.group_sizes:
        total += weight
        cumulative.append(total)
    # keyword bits by event kind, then by code = kind * 32 + context * 4 + people named
    keywords = {
        ek: [
            caption_keywords(Kind(code // 32), code % 4, ek, code // 4 % 8)
            if code % 4 and code // 4 % 8 < len(CONTEXTS[ek])
            else 0
            for code in range(3 * 32)
        ]
        for ek in EventKind
    }

    for event, cast in enumerate(world.members):
        ek = EventKind(event_kinds[event])
        table = keywords[ek]
        kinds, groups, contexts = _event_photos(
            combine(base, event),
            cast,
            fame,
            neg_fame,
            star,
            params,
            sizes,
            cumulative,
            len(CONTEXTS[ek]),
        )
        index = len(photo_kind)
        photo_kind.extend(kinds)
        photo_context.extend(contexts)
        photo_keywords.extend(
            [
                table[kind * 32 + context * 4 + (len(people) if len(people) < MAX_NAMED else MAX_NAMED)]
                for kind, people, context in zip(kinds, groups, contexts, strict=True)
            ]
        )
        photo_people.extend(chain.from_iterable(groups))
        photo_start.extend(islice(accumulate(map(len, groups), initial=photo_start[-1]), 1, None))
        for people in groups:
            for person in people[:MAX_NAMED]:
                named[person].append(index)
            index += 1
        event_start.append(index)

    return PhotoTable(
        kind=photo_kind,
        context=photo_context,
        keywords=photo_keywords,
        start=photo_start,
        people=photo_people,
        event_start=event_start,
        named_in=named,
    )


def _event_photos(
    rng_seed: int,
    cast: tuple[int, ...],
    fame: list[int],
    neg_fame: list[int],
    star: list[float],
    params: PhotoParameters,
    sizes: list[int],
    cumulative: list[float],
    contexts: int,
) -> tuple[list[Kind], list[tuple[int, ...]], list[int]]:
    """The photos of one event: their kinds, people (caption order) and caption contexts."""
    rand = random.Random(rng_seed).random
    # Caption order and leads: most appearances first, ties in credit order.
    ranked = sorted(cast, key=neg_fame.__getitem__)  # stable: ties keep credit order
    rank = {person: r for r, person in enumerate(ranked)}.__getitem__
    n = len(ranked)
    n_leads = min(n, params.leads_max, params.leads_base + n // params.leads_per_cast)
    leads = ranked[:n_leads]
    kinds: list[Kind] = []
    groups: list[tuple[int, ...]] = []
    size_total = cumulative[-1]

    base, per_star = params.portrait_base, params.portrait_per_star
    portraits = [int(base + per_star * star[fame[p]] + rand()) for p in ranked]
    for person, count in zip(ranked, portraits, strict=True):
        if count:
            kinds += [Kind.PORTRAIT] * count
            groups += [(person,)] * count

    def shuffled(slots: list[int]) -> list[int]:
        keys = [rand() for _ in slots]  # random() only: its sequence is stable across Pythons
        return [slots[i] for i in sorted(range(len(slots)), key=keys.__getitem__)]

    def close(people: list[int]) -> None:
        size = len(people)
        kinds.append(Kind.PORTRAIT if size == 1 else Kind.GROUP if size <= 4 else Kind.CROWD)
        groups.append(tuple(sorted(people, key=rank)))

    if n_leads >= 2:  # the leads photographed together
        base, per_star = params.lead_slots_base, params.lead_slots_per_star
        slots = [p for p in leads for _ in range(int(base + per_star * star[fame[p]] + rand()))]
        pending = shuffled(slots)
        while pending:
            people = _take(pending, [], sizes[bisect_right(cumulative, rand() * size_total)])
            if len(people) == 1:  # a lead left over with nobody else: photograph them with the top lead
                people.append(leads[0] if people[0] != leads[0] else leads[1])
            close(people)
    elif not groups:  # a one-person event still has its photo
        kinds.append(Kind.PORTRAIT)
        groups.append((ranked[0],))

    rest = ranked[n_leads:]
    if rest:  # everyone else: with one lead in a small group, now and then in a crowd shot
        base, per_star = params.cover_slots_base, params.cover_slots_per_star
        slots = [p for p in rest for _ in range(int(base + per_star * star[fame[p]] + rand()))]
        lead_edges: list[float] = []
        total = 0.0
        for person in leads:  # leads are picked in proportion to 1 + star
            total += 1.0 + star[fame[person]]
            lead_edges.append(total)
        pending = shuffled(slots)
        crowd_chance = params.crowd_chance if n >= params.crowd_min_cast else -1.0
        span = params.crowd_max - params.crowd_min + 1
        while pending:
            lead = leads[bisect_right(lead_edges, rand() * total)]
            if rand() < crowd_chance:
                people = [lead]
                if n_leads > 1 and rand() < 0.5:
                    second = leads[bisect_right(lead_edges, rand() * total)]
                    if second != lead:
                        people.append(second)
                close(_take(pending, people, params.crowd_min + int(rand() * span)))
                continue
            # the common case, inlined: one lead and one to three others (leads outrank the rest)
            want = sizes[bisect_right(cumulative, rand() * size_total)] - 1
            drawn = pending[-want:]
            del pending[-want:]
            if len(drawn) > 1:
                unique = list(dict.fromkeys(drawn))
                if len(unique) < len(drawn):  # someone drawn twice: the spare slot waits
                    for person in unique:
                        drawn.remove(person)
                    pending += drawn
                    drawn = unique
                drawn.sort(key=rank)
            kinds.append(Kind.GROUP)
            groups.append((lead, *drawn))
    return kinds, groups, [int(rand() * contexts) for _ in kinds]


def _take(pending: list[int], people: list[int], size: int) -> list[int]:
    """Fill `people` up to `size` from the end of `pending` (already shuffled). Anyone drawn twice
    (a person with several slots) goes back to wait for a later photo."""
    want = size - len(people)
    if want <= 0 or not pending:
        return people
    drawn = pending[-want:]
    del pending[-want:]
    merged = list(dict.fromkeys(people + drawn))
    if len(merged) < len(people) + len(drawn):
        seen = set(people)
        for person in drawn:
            if person in seen:
                pending.append(person)
            else:
                seen.add(person)
    return merged
