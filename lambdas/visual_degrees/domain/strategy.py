"""Strategies: the same S0–S7 states and evidence rule, different choices inside the steps.

`seed` is the spec's behaviour as the baseline: one-sided expansion from A, one image at a time, and
every candidate re-verified with a fresh pair search. `default` is what we ship; each of its knobs is
one idea from issue 6, measured on its own in docs/benchmarks/ (the ablation table there).

A run's knobs are its strategy's row of the table below with the switches its options name
(`RunOptions.knobs`, validated by `with_changes`). Two of them choose which implementation of the
search port runs the steps (search/strategies: `caption_leads`, else `both_ends`, else the seed's
rounds); that implementation reads the others it owns, and passes what they say about observing
and keeping evidence to the search core as its `Rules` (search/scope.py). Nothing reads a
module-level table: benchmarks switch single knobs off per run, and two runs with different knobs in
one process never see each other's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Literal

from visual_degrees.domain.errors import InvalidInput

Strategy = Literal["seed", "default"]


@dataclass(frozen=True)
class Knobs:
    # Every photo showing two people at >= threshold joins the run's verified graph, and the run
    # finishes the moment that graph connects A and B (same evidence rule, no extra search).
    record_all_edges: bool
    # S4 accepts a photo already in hand that shows frontier and candidate, before paying to search.
    reuse_evidence: bool
    # Fetch and recognise a search's images concurrently (latency of the slowest, not the sum).
    parallel_images: bool
    # Meet in the middle: S2 expands, best first, whichever node of A's or B's side is shallowest
    # (the smaller side first, then the best connected), backtracking to any open node of either.
    both_ends: bool = False
    # Discovery asks for group and cast photos first ("X cast", "X with"): a portrait proves nothing.
    group_queries_first: bool = False
    # S3 asks the planner which candidate leads towards the far end (else the deterministic order).
    planner_ranking: bool = True
    # A result whose title reads as a portrait of the searched person ("X at the premiere of …") is
    # not recognised: one face proves no link (titles.py).
    skip_portraits: bool = False
    # S5 tries the new person against the best connected person of the other side, not the far end
    # (a minor far end's photos rarely show anyone famous; a hub of its side is a likelier link).
    bridge_to_other_side: bool = False
    # If an end appears in no photo at all after its own discovery search, stop: every chain needs a
    # photo of it, and searching around it blindly is what burns the budget of unsolved runs.
    stop_when_end_unseen: bool = False
    # A pair whose best photo shows a face below STRONG_CONFIDENCE joins a chain only once a second
    # photo shows it too: a lookalike (someone else's face matched at 80–92 %) almost never repeats in
    # another photo, while a real co-appearance often does. Stricter than the evidence rule, never
    # looser: every edge shown is still one photo of both at >= the threshold.
    corroborate_weak_edges: bool = False
    # Reuse what providers answered in earlier runs (search results, image bytes' sha256, faces per
    # image sha256) where the memory outlives a run; a hit is not a paid call.
    shared_cache: bool = False
    # Keep every verified edge (with its photo) across runs; a run first looks for a chain there.
    evidence_graph: bool = False
    # Read every title of a full page of results (one paid request: Brave returns up to 200) as
    # leads: who captions name together. Recognise only photos whose leads serve a chain, and move
    # along the cheapest chain of links, leads and hunches (search/strategies/caption_leads/). Off:
    # the discovery rounds of issue 6 (five images per query, recognised blind).
    caption_leads: bool = False
    # Ask the planner which people of A's side and of B's side met, and through whom (names nobody
    # has seen yet included); its hunches are leads, checked by pair searches
    # (search/strategies/caption_leads/matching.py).
    planner_matching: bool = False
    # With caption_leads: a pair one title names may be proven by a photo of one of them "with a
    # guest" at an event the other was at (or was said to be at): how an end no title names is found.
    guest_photos: bool = False
    # With caption_leads: read pages about one open person of each side at once ("X Y": photos of
    # both first, then of either), instead of one person a page.
    pair_expansion: bool = False
    # With caption_leads: before giving up on an end no photo links to anyone, search the events a
    # caption saw them at or the planner placed them in, and recognise that event's crowd shots,
    # where people no caption names stand (search/strategies/caption_leads/rescue.py).
    event_search: bool = False

    @property
    def strong_confidence(self) -> float | None:
        """The confidence a single photo needs for its pair to join a chain (None: the threshold)."""
        return STRONG_CONFIDENCE if self.corroborate_weak_edges else None


KNOBS: dict[Strategy, Knobs] = {
    "seed": Knobs(
        record_all_edges=False,
        reuse_evidence=False,
        parallel_images=False,
        planner_ranking=True,
    ),
    "default": Knobs(
        record_all_edges=True,
        reuse_evidence=True,
        parallel_images=True,
        both_ends=True,
        group_queries_first=True,
        skip_portraits=True,
        planner_ranking=True,
        bridge_to_other_side=True,
        stop_when_end_unseen=True,
        corroborate_weak_edges=True,
        shared_cache=True,
        evidence_graph=True,
        caption_leads=True,
        planner_matching=True,
        guest_photos=True,
        pair_expansion=True,
        event_search=True,
    ),
}

# Rekognition's MatchConfidence for a clear, correctly matched face is mostly >= 95; lookalike and
# poor-quality matches sit below it.
STRONG_CONFIDENCE = 95.0


def knob_names() -> list[str]:
    return [f.name for f in fields(Knobs)]


def with_changes(strategy: Strategy, changes: Mapping[str, bool]) -> Knobs:
    """The strategy's knobs with some switched; InvalidInput names an unknown knob."""
    return _resolved(strategy, tuple(sorted(changes.items())))


@cache
def _resolved(strategy: Strategy, changes: tuple[tuple[str, bool], ...]) -> Knobs:
    unknown = sorted({name for name, _ in changes} - set(knob_names()))
    if unknown:
        raise InvalidInput(f"unknown strategy knob(s) {', '.join(unknown)}; known: {', '.join(knob_names())}")
    knobs = replace(KNOBS[strategy], **dict(changes))
    if (knobs.both_ends or knobs.caption_leads) and not knobs.record_all_edges:
        # Meeting in the middle walks the run graph: without every co-appearance in it, it has nowhere to go.
        raise InvalidInput("both_ends and caption_leads need record_all_edges (switch them off together)")
    return knobs


def parse_knob_changes(text: str) -> dict[str, bool]:
    """`both_ends=off,planner_ranking=on` -> {"both_ends": False, "planner_ranking": True}."""
    truth = {"on": True, "true": True, "1": True, "off": False, "false": False, "0": False}
    changes: dict[str, bool] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        if not sep or value.strip().lower() not in truth:
            raise InvalidInput(f"knob setting {part!r} must look like name=on or name=off")
        changes[name.strip()] = truth[value.strip().lower()]
    return changes
