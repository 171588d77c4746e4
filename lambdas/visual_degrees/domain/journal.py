"""The decisions a step journals (lifecycle/scope.RunScope.decide_as) and the plans it keeps, typed:
a re-run of the step (after a crash) reads them back instead of deciding again from memory its first
attempt changed. Stored as each model's JSON, the keys they always had."""

from __future__ import annotations

from pydantic import Field

from visual_degrees.domain.models import Model, Side


class PageToRead(Model):
    """The caption-lead strategy's next page (S2): its query, whom it is about, and where they stand."""

    query: str
    subjects: list[str]
    side: Side
    depth: int


class Expansion(Model):
    """Meeting in the middle, the next person to search about (S2): their side and depth, the round
    about them this is, and its query."""

    side: Side
    key: str
    depth: int
    round: int
    query: str


class RoundPlan(Model):
    """One round of meeting in the middle: stop for an end no search can find (`unseen`, its name),
    or search about `choice` (None and no `unseen`: nobody is left)."""

    unseen: str | None = None
    choice: Expansion | None = None


class CandidatePlan(Model):
    """The seed's plan for a frontier's discovery round (S3): everyone untried in the order to try
    them, the query to prove each one with (by person key), and who ordered them."""

    order: list[str] = Field(default_factory=list)
    queries: dict[str, str] = Field(default_factory=dict)
    source: str = "fallback"
