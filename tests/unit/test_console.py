"""The terminal's words: counted nouns agree with their count, and sandbox time says it is simulated."""

from __future__ import annotations

import itertools

from visual_degrees.domain.models import RunEvent
from visual_degrees.domain.wording import plural
from visual_degrees_tools.local.console import describe, summary


def final(hops: int, searches: int, llm_calls: int) -> RunEvent:
    path = [f"P{i}" for i in range(hops + 1)]
    evidence = {"confidenceA": 90.0, "confidenceB": 95.0, "imageUrl": "https://x.invalid/1.svg"}
    return RunEvent.model_validate(
        {
            "runId": "r",
            "seq": 9,
            "type": "final",
            "ts": "2026-01-01T00:00:00Z",
            "data": {
                "path": path,
                "hops": hops,
                "edges": [
                    {"from": a, "to": b, "confidence": 90.0, "evidence": evidence}
                    for a, b in itertools.pairwise(path)
                ],
                "bottleneckConfidence": 90.0,
                "cumulativeConfidence": 0.9,
                "usage": {"searches": searches, "recognitions": 1, "llmCalls": llm_calls, "costUsd": 0.01},
                "simSeconds": 6.5,
            },
        }
    )


def test_plural() -> None:
    assert [plural(1, "hop"), plural(2, "hop"), plural(0, "hop")] == ["1 hop", "2 hops", "0 hops"]
    assert plural(1, "person", "people") == "1 person" and plural(3, "person", "people") == "3 people"


def test_one_of_anything_is_singular() -> None:
    event = final(hops=1, searches=1, llm_calls=1)
    assert describe(event).endswith("P0 → P1  (1 hop)")
    text = summary(event, simulated=True)
    assert text.startswith("Path (1 hop): P0 → P1")
    assert "Spent: 1 search · 1 recognition · 1 LLM call · $0.0100 · simulated 6.5 s" in text


def test_many_are_plural_and_live_time_is_plain() -> None:
    event = final(hops=2, searches=3, llm_calls=0)
    assert describe(event).endswith("(2 hops)")
    assert "Spent: 3 searches · 1 recognition · 0 LLM calls · $0.0100 · 6.5 s" in summary(event)


def test_a_link_from_an_earlier_run_says_when_it_was_proven() -> None:
    # Given a photo an earlier run proved, shown as an evidence event and as a hop of the answer
    card = RunEvent.model_validate(
        {
            "runId": "r",
            "seq": 3,
            "type": "evidence",
            "ts": "2026-01-01T00:00:00Z",
            "data": {
                "imageUrl": "https://x.invalid/1.svg",
                "people": [{"name": "P0", "confidence": 99.0}, {"name": "P1", "confidence": 98.0}],
                "earlierRun": True,
                "provenAt": "2025-12-30T10:00:00Z",
            },
        }
    )
    answer = final(1, 0, 0)
    answer.data["edges"][0]["evidence"].update(earlierRun=True, provenAt="2025-12-30T10:00:00Z")
    # Then both say it was proven then by an earlier run; a link proven now says nothing of the kind
    assert describe(card).endswith("(proven 2025-12-30T10:00:00Z by an earlier run)")
    assert "proven 2025-12-30T10:00:00Z by an earlier run" in summary(answer)
    assert "earlier run" not in summary(final(1, 0, 0))
