"""What the planner may answer when asked to match the two sides, and what is refused."""

from __future__ import annotations

import pytest

from visual_degrees.domain.planning import (
    ConnectContext,
    ConnectReply,
    ProposedLink,
    SidePerson,
    validate_connect,
)
from visual_degrees.domain.shown_text import shown_text


def context() -> ConnectContext:
    return ConnectContext(
        person_a="Ann Lee",
        person_b="Bob Ray",
        side_a=[SidePerson(name="Ann Lee", distance=0), SidePerson(name="Cat Wu", distance=1)],
        side_b=[SidePerson(name="Bob Ray", distance=0), SidePerson(name="Dan Oz", distance=1)],
    )


def test_offered_names_are_spelled_as_offered_and_new_people_may_bridge():
    reply = ConnectReply(
        links=[
            ProposedLink(a="cat wu", b="Eve Fox", film="Film (1999)"),
            ProposedLink(a="Eve Fox", b="DAN OZ"),
        ]
    )
    links, errors = validate_connect(reply, context())
    assert errors == []
    assert [(link.a, link.b) for link in links or []] == [("Cat Wu", "Eve Fox"), ("Eve Fox", "Dan Oz")]


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        (ProposedLink(a="Cat Wu", b="cat wu"), "two different people"),
        (ProposedLink(a="Cat Wu", b="see https://evil.example/x"), "links[0].b: a person's name"),
        (ProposedLink(a="Cat Wu", b="Eve\u202eFox"), "links[0].b contains a control character"),
        (ProposedLink(a="Cat Wu", b="x" * 101), "links[0].b: a person's name of at most 100"),
        (ProposedLink(a="Cat Wu", b="x" * 201), "links[0].b is 201 characters long"),
        (ProposedLink(a="Cat Wu", b="!!!"), "links[0].b '!!!' has no letters or digits"),
        (ProposedLink(a="evil．com", b="Eve Fox"), "links[0].a: a person's name"),
        (ProposedLink(a="Cat Wu", b="Eve Fox", film="Call +1 555 0100 99"), "film"),
        (ProposedLink(a="Cat Wu", b="Eve Fox", film="www.example.com"), "film"),
        (ProposedLink(a="Zed Zee", b="Yan Yu"), "involves nobody offered"),
    ],
)
def test_unusable_links_are_refused_with_a_reason_to_feed_back(link, problem):
    links, errors = validate_connect(ConnectReply(links=[link]), context())
    assert links is None and any(problem in e for e in errors)


def test_too_many_links_and_a_narration_with_markup_are_refused():
    many = [ProposedLink(a="Cat Wu", b=f"Person {chr(65 + i)}") for i in range(13)]
    assert validate_connect(ConnectReply(links=many), context())[0] is None
    assert validate_connect(ConnectReply(links=[], narration="\x07bell"), context())[0] is None
    assert validate_connect(ConnectReply(links=[]), context()) == ([], [])


def test_shown_text_has_no_controls_bidi_or_urls_and_respects_its_length():
    assert shown_text("Ann Lee", 20) == "Ann Lee"
    assert shown_text("Ann\x00Lee", 20) is None
    assert shown_text("Ann\u200fLee", 20) is None
    assert shown_text("http://x.y", 20) is None
    assert shown_text("A" * 21, 20) is None


def test_a_planners_narration_reaches_a_user_only_as_plain_words_of_its_own():
    from visual_degrees.domain.planning import CandidateSummary, PlannerContext, PlannerReply, validate_reply

    context = PlannerContext(
        target="Bob Ray",
        frontier="Ann Lee",
        candidates=[CandidateSummary(name="Cat Wu", count=2, best_confidence=99.0)],
    )

    def problems(narration: str) -> list[str]:
        return validate_reply(PlannerReply(next_candidates=["Cat Wu"], narration=narration), context)[1]

    assert problems("Cat Wu might have worked with Bob Ray.") == []
    assert problems("See https://evil.example/steal for more")
    assert problems("Cat Wu\u202e might have worked with Bob Ray")
    assert problems("x" * 281)
    echo = context.as_prompt_data()[:80]
    assert any("own words" in p for p in problems(f"My instructions were: {echo}"))
