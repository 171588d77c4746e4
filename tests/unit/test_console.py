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


def test_a_links_event_is_shown_when_its_evidence_names_one() -> None:
    # Given a chain whose links' evidence names the event of its photo (as a name, or an object)
    event = final(hops=3, searches=1, llm_calls=0)
    edges = event.data["edges"]
    edges[0]["evidence"] = {**edges[0]["evidence"], "event": "Apollo 13 premiere (1995)"}
    edges[1]["evidence"] = {**edges[1]["evidence"], "event": {"title": "Tremors", "year": 1990}}
    edges[2]["event"] = {"name": "Cannes Film Festival 2001"}

    # Then each link names its event
    text = summary(event)
    assert [line.strip() for line in text.splitlines() if line.strip().startswith("event ")] == [
        "event Apollo 13 premiere (1995)",
        "event Tremors (1990)",
        "event Cannes Film Festival 2001",
    ]
    # And without one, the link says plainly that no event is named
    plain = summary(final(hops=1, searches=1, llm_calls=0))
    assert "      event not named by the photo's caption or page\n" in plain


def test_a_link_remembered_from_before_events_were_shown_reads_its_event_from_its_title() -> None:
    # Given a chain kept by an earlier version: evidence with a title and no event
    event = final(hops=2, searches=1, llm_calls=0)
    titled = "P0 and P1 at the premiere of Balto (1995)"
    event.data["edges"][0]["evidence"] = {**event.data["edges"][0]["evidence"], "title": titled}
    # And a link whose evidence says no event is named
    event.data["edges"][1]["evidence"] = {**event.data["edges"][1]["evidence"], "event": None, "title": "P1"}

    # Then the first names the event its title gives, the second says none is named
    events = [line.strip() for line in summary(event).splitlines() if line.strip().startswith("event ")]
    assert events == ["event the premiere of Balto (1995)", "event not named by the photo's caption or page"]


def test_a_chain_explains_its_confidences_and_what_a_photo_shows() -> None:
    # Given a chain of two links, the second the weaker
    event = final(hops=2, searches=1, llm_calls=0)
    event.data["edges"][1]["confidence"] = 85.5
    event.data |= {"bottleneckConfidence": 85.5, "cumulativeConfidence": 0.7696}

    # Then the summary says what each figure means, and what a photo does not prove
    lines = summary(event).splitlines()
    at = lines.index(
        "Bottleneck 85.5: the least sure link: P1 — P2; a chain is as sure as its weakest photo."
    )
    assert lines[at + 1] == (
        "Cumulative 0.770: how sure every link is at once, taking them as independent (90.0% × 85.5%)."
    )
    assert lines[at + 2] == "A photo shows two people in the same place, not a relationship."
    # And a chain of one link says its one confidence is the whole
    one = summary(final(hops=1, searches=1, llm_calls=0))
    assert "Cumulative 0.900: the one link's confidence." in one


def test_endings_name_no_codes() -> None:
    def ending(type_: str, data: dict) -> RunEvent:
        return RunEvent.model_validate({"runId": "r", "seq": 3, "type": type_, "ts": "t", "data": data})

    failed = ending(
        "error", {"code": "provider_unavailable", "message": "search failed (provider_unavailable)"}
    )
    assert describe(failed).endswith("search failed (the service did not answer)")
    assert summary(failed) == "Run failed: search failed (the service did not answer)"
    spent = ending(
        "no_path", {"reason": "budget", "exhausted": "llmCalls", "message": "The llmCalls budget ran out."}
    )
    assert summary(spent) == "No path: The LLM calls budget ran out before a chain was proven."


def test_event_lines_are_labelled_in_words() -> None:
    def line(type_: str, data: dict) -> str:
        return describe(
            RunEvent.model_validate({"runId": "r", "seq": 1, "type": type_, "ts": "t", "data": data})
        )

    assert line("run_started", {"personA": "A", "personB": "B"}) == "[  1] started     A → B"
    assert line("run_continued", {"message": "Continuing"}) == "[  1] continued   Continuing"
    assert line("path_update", {"path": ["A", "C"]}) == "[  1] path so far A → C"
    assert line("no_path", {"message": "No chain."}) == "[  1] no path     No chain."
    photo = {"people": [{"name": "A", "confidence": 99.0}], "imageUrl": "https://x.invalid/p.svg"}
    assert line("evidence", photo).startswith("[  1] photo       A 99.0%")
    at_gala = {**photo, "event": "the 1998 Awards Gala"}
    assert line("evidence", at_gala).endswith(
        "A 99.0%  (event: the 1998 Awards Gala)  https://x.invalid/p.svg"
    )
    assert line("evidence", {**photo, "event": None}).endswith("(no event named)  https://x.invalid/p.svg")


def test_the_degrees_follow_the_path_in_the_servers_words_with_what_looking_for_fewer_cost() -> None:
    # Given a final whose degrees say one degree is ruled out and what was tried for two
    event = final(hops=3, searches=3, llm_calls=1)
    lines = ["Degrees: 3 — fewer not ruled out", "1 degree ruled out: …", "2 degrees not ruled out: …"]
    event.data["degrees"] = {"degrees": 3, "lines": lines, "spentUsd": 0.002, "allowanceUsd": 0.005}
    # Then they come after the confidences, before the caveat and the spend, with the cost of looking
    text = summary(event).splitlines()
    at = text.index(lines[0])
    assert text[at - 1].startswith("Cumulative") and text[at : at + 3] == lines
    assert text[at + 3] == "Looking for a shorter chain cost $0.0020 of $0.0050 allowed"
    assert text[at + 4] == "A photo shows two people in the same place, not a relationship."
    assert text[at + 5].startswith("Spent:")


def test_a_final_without_degrees_or_with_nothing_spent_on_fewer_shows_no_such_line() -> None:
    assert "Degrees" not in summary(final(hops=2, searches=3, llm_calls=0))
    event = final(hops=2, searches=3, llm_calls=0)
    event.data["degrees"] = {"lines": ["Degrees: 2"], "spentUsd": 0.0, "allowanceUsd": 0.005}
    assert "Looking for" not in summary(event) and "Degrees: 2" in summary(event)


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
