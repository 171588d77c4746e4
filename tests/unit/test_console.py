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


def test_the_degrees_follow_the_path_in_the_servers_words_with_what_looking_for_fewer_cost() -> None:
    # Given a final whose degrees say one degree is ruled out and what was tried for two
    event = final(hops=3, searches=3, llm_calls=1)
    lines = ["Degrees: 3 — fewer not ruled out", "1 degree ruled out: …", "2 degrees not ruled out: …"]
    event.data["degrees"] = {"degrees": 3, "lines": lines, "spentUsd": 0.002, "allowanceUsd": 0.005}
    # Then they come after the confidences, before the spend, with the cost of looking
    text = summary(event).splitlines()
    at = text.index(lines[0])
    assert text[at - 1].startswith("Bottleneck") and text[at : at + 3] == lines
    assert text[at + 3] == "Looking for a shorter chain cost $0.0020 of $0.0050 allowed"
    assert text[at + 4].startswith("Spent:")


def test_a_final_without_degrees_or_with_nothing_spent_on_fewer_shows_no_such_line() -> None:
    assert "Degrees" not in summary(final(hops=2, searches=3, llm_calls=0))
    event = final(hops=2, searches=3, llm_calls=0)
    event.data["degrees"] = {"lines": ["Degrees: 2"], "spentUsd": 0.0, "allowanceUsd": 0.005}
    assert "Looking for" not in summary(event) and "Degrees: 2" in summary(event)
