"""Which event a link's photo comes from, read from its caption or page title: the shapes agencies,
galleries and news pages write, hostile titles, long ones, and titles that name no event."""

from __future__ import annotations

import pytest

from visual_degrees.domain.models import MAX_TITLE_CHARS, Evidence, ImageHit
from visual_degrees.domain.photo_event import MAX_EVENT_CHARS, photo_event
from visual_degrees.domain.shown_text import shown_text


@pytest.mark.parametrize(
    ("title", "event"),
    [
        # agency captions: names, then where
        ("Kevin Bacon and Tom Hanks at the premiere of Apollo 13 (1995)", "the premiere of Apollo 13 (1995)"),
        (
            "Roy Evans, Rock Brynner and Leon Lissek on the red carpet at the premiere of "
            "Where's Jack? (1969)",
            "the premiere of Where's Jack? (1969)",
        ),
        (
            "'Snub' Pollard with Harley Luse on the set of Rollin' Plains (1938)",
            "the set of Rollin' Plains (1938)",
        ),
        ("Kevin Bacon and Kyra Sedgwick at the 1998 Awards Gala", "the 1998 Awards Gala"),
        (
            "A Bee and C Dee at a charity event at the 1998 Awards Gala",
            "a charity event at the 1998 Awards Gala",
        ),
        (
            "A Bee and C Dee at a premiere during the 2001 Berlin Festival",
            "a premiere during the 2001 Berlin Festival",
        ),
        ("A Bee, C Dee and other guests on stage at the 1998 Awards Gala", "the 1998 Awards Gala"),
        (
            "The cast of Homeward Bound: The Incredible Journey (1993) at its premiere: Frank Welker, "
            "Sally Field and others",
            "the premiere of Homeward Bound: The Incredible Journey (1993)",
        ),
        (
            "(L-R) Actor A Bee, director C Dee and a guest attend the premiere of Balto (1995)",
            "the premiere of Balto (1995)",
        ),
        ("Actor A Bee attends the 1998 Awards Gala", "the 1998 Awards Gala"),
        (
            "A Bee and guests pose on the red carpet at the premiere of Balto (1995)",
            "the premiere of Balto (1995)",
        ),
        ("A Bee poses with guests at the premiere of Balto (1995)", "the premiere of Balto (1995)"),
        ("Guests arrive at the 1998 Awards Gala", "the 1998 Awards Gala"),
        ("Cast and crew attend the premiere of Balto (1995)", "the premiere of Balto (1995)"),
        (
            "Kevin Bacon and Kyra Sedgwick attend the 2019 Met Gala in New York City",
            "the 2019 Met Gala in New York City",
        ),
        # a site's name after the event goes; a film's own dash stays
        (
            "Tom Cruise at the premiere of Mission: Impossible - Fallout (2018) | Getty Images",
            "the premiere of Mission: Impossible - Fallout (2018)",
        ),
        ("Kevin Bacon at the 1998 Awards Gala - Getty Images", "the 1998 Awards Gala"),
        # a caption that starts with the place, the names after a colon
        ("At the premiere of Balto (1995): A Bee, C Dee and others", "the premiere of Balto (1995)"),
        ("On the set of Jaws (1975): Roy Scheider and Robert Shaw", "the set of Jaws (1975)"),
        ("At the Oscars: Tom Hanks and Meryl Streep pose together", "the Oscars"),
        ("On the set of Mission: Impossible (1996): Tom Cruise", "the set of Mission: Impossible (1996)"),
        # a headline capitalises every word: the event is read after its names, as written
        ("Kevin Bacon And Kyra Sedgwick Attend The Premiere Of Footloose", "the Premiere Of Footloose"),
        ("Madonna Performs At The Super Bowl", "the Super Bowl"),
        ("TOM HANKS AND RITA WILSON AT THE PREMIERE OF ELVIS", "the Premiere Of Elvis"),
        ("At The Oscars: Tom Hanks And Meryl Streep Pose Together", "the Oscars"),
        ("Kevin Bacon at Sundance 2019", "Sundance 2019"),
        # an agency's dateline first (Getty Images' style): its place and date are not the event
        (
            "HOLLYWOOD, CA - MARCH 27: Actors Kevin Bacon and Tom Hanks arrive at the 67th Academy Awards",
            "the 67th Academy Awards",
        ),
        # ... and its credit, which names the photographer
        (
            "LOS ANGELES, CA - JUNE 22: Kevin Bacon, left, and Tom Hanks attend the premiere of Apollo 13 "
            "(1995) (Photo by Dana Whitcombe/Getty Images)",
            "the premiere of Apollo 13 (1995)",
        ),
        (
            "Kevin Bacon at the premiere of Apollo 13 (1995). (AP Photo/Chris Pizzello)",
            "the premiere of Apollo 13 (1995)",
        ),
        # film stills
        ("Kevin Bacon and Tom Hanks in Apollo 13 (1995)", "Apollo 13 (1995)"),
        ("Still from Jaws (1975)", "a still from Jaws (1975)"),
        ("Jaws (1975) film still", "a still from Jaws (1975)"),
        ("Roy Scheider and Robert Shaw, movie still", "a film still"),
        # galleries and news pages about the event
        ("Balto (1995) - Photo Gallery", "Balto (1995)"),
        ("Balto (1995): premiere photos", "Balto (1995)"),
        ("Photos: the Balto (1995) red carpet", "the Balto (1995) red carpet"),
        ("Balto (1995) (gallery)", "Balto (1995)"),
        ("1998 Awards Gala - Photo Gallery", "1998 Awards Gala"),
        ("A Bee at Balto (1995): see the photos", "Balto (1995)"),
    ],
)
def test_the_event_a_title_names(title: str, event: str) -> None:
    assert photo_event(title) == event


@pytest.mark.parametrize(
    "title",
    [
        "",
        "   ",
        "Kevin Bacon",
        "Kevin Bacon news and photos",
        "Kevin Bacon: latest news, pictures and videos",
        "Everything we know about Kevin Bacon's next project",
        "Kevin Bacon - Pictures and Photos",
        "Kevin Bacon - Biography, Movies and Photos",
        "Kevin Bacon Photos",
        "Kevin Bacon - Fan Gallery",
        "IMG_20190512_123456.jpg",
        # news words that read like a place but name no event
        "Kevin Bacon on why he still dances to Footloose",
        "Kevin Bacon at home with his family",
        "Kevin Bacon at 60: the actor looks back",
        "Kevin Bacon: 2019 interview",
    ],
)
def test_a_title_about_a_person_or_nothing_names_no_event(title: str) -> None:
    assert photo_event(title) is None


@pytest.mark.parametrize(
    "title",
    [
        "A Bee and C Dee at the premiere of evil.ru/win (1995)",
        "A Bee and C Dee at the 1998 Awards Gala, call +1 555 123 4567",
        "A Bee and C Dee at the https://bit.ly/3xYz gala",
        "A Bee and C Dee at the <script>alert(1)</script>",
        "A Bee and C Dee at the premiere of <b>Balto</b> (1995)",
        "A Bee and C Dee at the premiere of \u202eBalto (1995)",  # a bidi override
        "A Bee and C Dee at the premiere of Balto\u0000 (1995)",
        "A Bee and C Dee at the gala of www\uff0eevil\uff0ecom",  # fullwidth dots are dots
    ],
)
def test_a_hostile_title_names_no_event_we_show(title: str) -> None:
    # A title hiding a link, markup or invisible characters gives no event: the reader is told none
    # is named rather than shown a way to reach someone
    assert photo_event(title) is None


def test_a_long_title_gives_an_event_cut_at_a_word_within_the_bound() -> None:
    # Given a caption whose event runs on for hundreds of characters
    title = "A Bee and C Dee at the " + "very " * 200 + "long gala"

    # When its event is read
    event = photo_event(title)

    # Then it is cut at a word, says so, and passes the rules of shown text
    assert event is not None and event.startswith("the very very")
    assert len(event) <= MAX_EVENT_CHARS and event.endswith("very...")
    assert shown_text(event, MAX_EVENT_CHARS) == event


def test_a_title_of_thousands_of_anchors_gives_a_bounded_event() -> None:
    # A page title saying "at the" thousands of times is cut like every stored title, and still
    # gives an event within the bound
    hit = ImageHit(image_url="https://x.invalid/1.jpg", title="A Bee at the " * 5000)
    assert len(hit.title) == MAX_TITLE_CHARS
    event = photo_event(hit.title)
    assert event is not None and len(event) <= MAX_EVENT_CHARS


def test_evidence_reads_its_event_from_its_title_unless_given() -> None:
    base = {"imageUrl": "https://x.invalid/1.jpg", "confidenceA": 90.0, "confidenceB": 91.0}
    titled = {**base, "title": "A Bee and C Dee at the premiere of Balto (1995)"}

    # Evidence kept before events were shown (no `event`) reads it from its title
    assert Evidence.model_validate(titled).event == "the premiere of Balto (1995)"
    # Evidence that says it names none keeps that; so does evidence with no title
    assert Evidence.model_validate({**titled, "event": None}).event is None
    assert Evidence.model_validate(base).event is None
    # An event given goes through the rules of shown text too
    assert Evidence.model_validate({**titled, "event": "the gala at evil.ru"}).event is None
    # And it round-trips on the wire
    evidence = Evidence.model_validate(titled)
    assert Evidence.model_validate(evidence.dump()) == evidence
    assert evidence.dump()["event"] == "the premiere of Balto (1995)"
