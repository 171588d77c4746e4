"""What a run keeps about itself (domain/records.py): typed, and stored exactly as items were before."""

from __future__ import annotations

from visual_degrees.domain.journal import CandidatePlan, Expansion, PageToRead, RoundPlan
from visual_degrees.domain.models import RunOptions
from visual_degrees.domain.records import Position, RunMeta, Segment, Usage

# A meta item as an ending of a run's first segment wrote it before the records were typed.
STORED = {
    "runId": "20261201T100000-abc123",
    "personA": "Kevin Bacon",
    "personB": "Julie Andrews",
    "options": RunOptions(strategy="seed").dump(),
    "createdAt": 1_767_225_600.0,
    "status": "no_path",
    "web": "sandbox:cast.G",
    "lastStep": 17,
    "position": {"hop": 1, "side": "A", "frontier": "gary sinise", "path": ["kevin bacon"], "round": 2},
    "clockAt": 1_767_225_700.5,
    "segments": [
        {
            "segment": 0,
            "budgets": {"searches": 20, "recognitions": 120, "llmCalls": 12, "runtimeSeconds": 120.0},
            "usageAtStart": {},
            "usage": {"searches": 20, "costUsd": 0.1},
            "seconds": 100.5,
            "outcome": "no_path",
        }
    ],
    "reason": "budget",
}


def test_an_item_written_before_the_types_reads_back_as_it_was() -> None:
    meta = RunMeta.model_validate(STORED)
    assert (meta.status, meta.last_step, meta.segment) == ("no_path", 17, 0)
    assert meta.position is not None and meta.position.frontier == "gary sinise"
    assert meta.segments[0].usage == Usage(searches=20, cost_usd=0.1)
    assert RunMeta.model_validate(meta.stored()) == meta
    # the keys written are the keys stored: nothing added that was never written
    assert set(meta.stored()) == set(STORED)


def test_an_update_replaces_the_fields_it_names_and_keeps_the_rest() -> None:
    meta = RunMeta.model_validate(STORED).updated(status="running", segment=1, last_step=30)
    stored = meta.stored()
    assert (stored["status"], stored["segment"], stored["lastStep"]) == ("running", 1, 30)
    assert stored["clockAt"] == STORED["clockAt"] and stored["reason"] == "budget"


def test_keys_this_version_does_not_know_are_kept() -> None:
    meta = RunMeta.model_validate({**STORED, "fromAnotherVersion": {"x": 1}}).updated(status="running")
    assert meta.stored()["fromAnotherVersion"] == {"x": 1}


def test_a_segments_spend_is_what_was_spent_since_it_began() -> None:
    start = Usage(searches=3, recognitions=10, cost_usd=0.025)
    now = Usage(searches=5, recognitions=14, llm_calls=1, cost_usd=0.0371234567)
    assert now.since(start) == Usage(searches=2, recognitions=4, llm_calls=1, cost_usd=0.012123)
    assert now.since(None) == now.model_copy(update={"cost_usd": 0.037123})
    assert Usage().dump() == {
        "searches": 0,
        "recognitions": 0,
        "llmCalls": 0,
        "llmTokensIn": 0,
        "llmTokensOut": 0,
        "costUsd": 0.0,
        "failedSearches": 0,
        "throttledSearches": 0,
        "throttledRecognitions": 0,
        "throttledLlmCalls": 0,
    }


def test_a_continuation_starts_from_the_position_without_the_pick() -> None:
    position = Position(side="B", frontier="x", hop=2, path=["b", "x"], round=1, selected="y")
    assert position.carried() == {"side": "B", "frontier": "x", "hop": 2, "path": ["b", "x"], "round": 1}
    assert Segment(segment=1).stored() == {"segment": 1}


def test_journalled_plans_keep_the_keys_they_always_had() -> None:
    page = PageToRead(query="Kevin Bacon Julie Andrews", subjects=["kevin bacon"], side="A", depth=1)
    assert page.dump() == {"query": page.query, "subjects": ["kevin bacon"], "side": "A", "depth": 1}
    choice = Expansion(side="B", key="julie andrews", depth=0, round=0, query="Julie Andrews cast")
    assert RoundPlan(choice=choice).dump() == {"unseen": None, "choice": choice.dump()}
    assert set(choice.dump()) == {"side", "key", "depth", "round", "query"}
    plan = CandidatePlan(order=["gary sinise"], queries={"gary sinise": "Kevin Bacon Gary Sinise"})
    assert plan.dump() == {"order": plan.order, "queries": plan.queries, "source": "fallback"}
