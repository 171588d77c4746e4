"""The planner router: chosen per run by name, each provider built only when first chosen."""

from __future__ import annotations

import pytest

from visual_degrees.adapters.live.planner_router import PlannerRouter
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.planning import (
    CandidateSummary,
    ConnectContext,
    ConnectReply,
    PlannerContext,
    PlannerReply,
    ProposedLink,
    SidePerson,
)

CONTEXT = PlannerContext(
    target="B", frontier="A", candidates=[CandidateSummary(name="C", count=1, best_confidence=90)]
)
SIDES = ConnectContext(
    person_a="A",
    person_b="B",
    side_a=[SidePerson(name="A", distance=0)],
    side_b=[SidePerson(name="B", distance=0)],
    feedback=["links: at most 12"],
)


class Named:
    def __init__(self, name: str) -> None:
        self.name = name
        self.seen: list[ConnectContext] = []

    def plan(self, context: PlannerContext) -> PlannerReply:
        return PlannerReply(next_candidates=[context.candidates[0].name], narration=self.name)

    def connect(self, context: ConnectContext) -> ConnectReply:
        self.seen.append(context)
        return ConnectReply(
            links=[ProposedLink(a="A", b="C")], narration=self.name, tokens_in=7, tokens_out=3
        )


def router(built: list[str]) -> PlannerRouter:
    def factory(name: str):
        def build() -> Named:
            built.append(name)
            return Named(name)

        return build

    return PlannerRouter(
        {"gemini": factory("gemini"), "bedrock": factory("bedrock"), "openai": factory("openai")},
        default="gemini",
    )


def test_the_default_provider_plans_and_the_other_is_never_built() -> None:
    built: list[str] = []
    assert router(built).plan(CONTEXT).narration == "gemini"
    assert built == ["gemini"]


def test_a_run_can_choose_another_provider_by_name() -> None:
    built: list[str] = []
    r = router(built)
    assert r.for_run("bedrock").plan(CONTEXT).narration == "bedrock"
    assert r.for_run("openai").plan(CONTEXT).narration == "openai"
    assert r.for_run(None).plan(CONTEXT).narration == "gemini"
    assert sorted(built) == ["bedrock", "gemini", "openai"]


def test_each_provider_is_built_once() -> None:
    built: list[str] = []
    r = router(built)
    assert r.for_run("bedrock") is r.for_run("bedrock")
    assert built == ["bedrock"]


def test_unknown_names_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="unknown planner 'ollama'"):
        router([]).for_run("ollama")
    with pytest.raises(ConfigurationError):
        PlannerRouter({"gemini": lambda: Named("g")}, default="bedrock")


def test_connect_is_forwarded_to_the_default_provider_as_it_is() -> None:
    built: list[str] = []
    r = router(built)
    reply = r.connect(SIDES)
    assert (reply.narration, reply.tokens_in, reply.tokens_out) == ("gemini", 7, 3)
    assert built == ["gemini"]
    forwarded = r.for_run("gemini")
    assert isinstance(forwarded, Named) and forwarded.seen == [SIDES]  # feedback included


def test_connect_follows_the_provider_chosen_for_the_run() -> None:
    built: list[str] = []
    r = router(built)
    assert r.for_run("openai").connect(SIDES).narration == "openai"
    assert built == ["openai"]
