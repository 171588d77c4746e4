"""Strategies: the same S0–S7 states and evidence rule, different choices inside the steps.

`seed` is the spec's behaviour as the baseline: one-sided expansion from A, one image at a time, and
every candidate re-verified with a fresh pair search. `default` is what we ship.
"""

from __future__ import annotations

from dataclasses import dataclass

from visual_degrees.domain.models import Strategy


@dataclass(frozen=True)
class Knobs:
    # Every photo showing two people at >= threshold joins the run's verified graph, and the run
    # finishes the moment that graph connects A and B (same evidence rule, no extra search).
    record_all_edges: bool
    # S4 accepts a photo already in hand that shows frontier and candidate, before paying to search.
    reuse_evidence: bool
    # Fetch and recognise a search's images concurrently (latency of the slowest, not the sum).
    parallel_images: bool


KNOBS: dict[Strategy, Knobs] = {
    "seed": Knobs(record_all_edges=False, reuse_evidence=False, parallel_images=False),
    "default": Knobs(record_all_edges=True, reuse_evidence=True, parallel_images=True),
}


def knobs_for(strategy: Strategy) -> Knobs:
    return KNOBS[strategy]
