"""Text from outside shown to users carries no link (issue 17.6): every way a host name or a phone
number was slipped past the old filter is refused, and the names and titles people really have pass."""

from __future__ import annotations

import pytest

from visual_degrees.domain.captions import names_in_title
from visual_degrees.domain.planning import (
    MAX_FILM,
    MAX_NARRATION,
    CandidateSummary,
    ConnectContext,
    ConnectReply,
    PlannerContext,
    PlannerReply,
    ProposedLink,
    SidePerson,
    validate_connect,
    validate_reply,
)
from visual_degrees.domain.shown_text import link_in, shown_text

REFUSED = [
    ("evil.ru/chain", "a web address"),
    ("bit.ly/3xYz", "a web address"),
    ("t.me/visual_degrees_free", "a web address"),
    ("evil．com", "a web address"),  # full-width dot
    ("evil。com", "a web address"),  # ideographic full stop
    ("evil｡com", "a web address"),  # half-width ideographic full stop
    ("evil︒com", "a web address"),  # vertical ideographic full stop
    ("evil.co.uk", "a web address"),
    ("EVIL.COM", "a web address"),
    ("ｅｖｉｌ．ｃｏｍ", "a web address"),  # full-width letters too
    ("пример.рф", "a web address"),  # an IDN host
    ("例子.中国", "a web address"),
    ("evil.xn--p1ai", "a web address"),  # punycode
    ("see https://x", "a web address"),
    ("ftp://files", "a web address"),
    ("www.example", "a web address"),
    ("mail me at a@evil.io", "a web address"),
    ("45.33.2.1/chain", "a web address"),
    ("call +1 (555) 010-4477", "a phone number"),
    ("555 0100 77", "a phone number"),
    ("+44 20 7946 0958", "a phone number"),
    ("０２０ ７９４６ ０９５８", "a phone number"),  # full-width digits
    ("555.010.4477", "a phone number"),
]
NAMES = ["J.J. Abrams", "Robert Downey Jr.", "Dr. Dre", "A.R. Rahman", "Björk Guðmundsdóttir", "章子怡"]
TITLES = [
    "Mr. & Mrs. Smith (2005)",
    "Ocean's Eleven",
    "2001: A Space Odyssey (1968)",
    "E.T. the Extra-Terrestrial (1982)",
    "St. Elmo's Fire",
    "1917 (2019)",
    "Blade Runner 2049 (2017)",
    "The Taking of Pelham 1 2 3 (2009)",
    "Mission: Impossible",
    "Face/Off (1997)",
    "They worked together 1995-2001, e.g. on Apollo 13 (1995).",
]


@pytest.mark.parametrize(("text", "kind"), REFUSED)
def test_a_link_in_any_disguise_is_found(text: str, kind: str) -> None:
    assert link_in(text) == kind
    assert shown_text(f"Both were in {text} together", MAX_NARRATION) is None


@pytest.mark.parametrize("text", NAMES + TITLES)
def test_names_and_titles_people_really_have_are_shown(text: str) -> None:
    assert link_in(text) is None
    assert shown_text(text, MAX_FILM) == text


def test_shown_text_is_nfkc() -> None:
    # Full-width letters are shown as the letters they are
    assert shown_text("Ｋｅｖｉｎ Ｂａｃｏｎ", 40) == "Kevin Bacon"


def planner_contexts() -> tuple[PlannerContext, ConnectContext]:
    plan = PlannerContext(
        target="Bob Ray",
        frontier="Ann Lee",
        candidates=[CandidateSummary(name="Cat Wu", count=2, best_confidence=99.0)],
    )
    side = [SidePerson(name="Ann Lee", distance=0), SidePerson(name="Cat Wu", distance=1)]
    connect = ConnectContext(
        person_a="Ann Lee", person_b="Bob Ray", side_a=side, side_b=[SidePerson(name="Bob Ray", distance=0)]
    )
    return plan, connect


@pytest.mark.parametrize(("text", "kind"), REFUSED)
def test_no_planner_text_shown_to_users_carries_a_link(text: str, kind: str) -> None:
    plan, connect = planner_contexts()
    # The narration of a plan, and of a match of the sides
    assert validate_reply(PlannerReply(next_candidates=["Cat Wu"], narration=text), plan)[0] is None
    assert validate_connect(ConnectReply(narration=text), connect)[0] is None
    # A hunch's people and its film
    for link in (
        ProposedLink(a="Cat Wu", b=text),
        ProposedLink(a=f"Eve {text}", b="Cat Wu"),
        ProposedLink(a="Cat Wu", b="Eve Fox", film=text),
    ):
        links, problems = validate_connect(ConnectReply(links=[link]), connect)
        assert links is None and problems


@pytest.mark.parametrize(("name", "title"), list(zip(NAMES * 2, TITLES, strict=False)))
def test_planner_text_without_links_is_kept(name: str, title: str) -> None:
    plan, connect = planner_contexts()
    assert validate_reply(PlannerReply(next_candidates=["Cat Wu"], narration=title), plan)[1] == []
    links, problems = validate_connect(
        ConnectReply(links=[ProposedLink(a="Cat Wu", b=name, film=title)], narration=title), connect
    )
    assert problems == [] and links is not None and (links[0].b, links[0].film) == (name, title)


def test_a_name_read_from_a_title_never_holds_a_host() -> None:
    # Given a crafted image-search title naming a host as a person
    title = "Evil.ru and Tom Hanks at the premiere of Apollo 13 (1995)"
    # Then only the person is read from it
    assert names_in_title(title) == ("Tom Hanks",)
