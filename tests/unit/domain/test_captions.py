"""Reading titles as leads: who a caption names, whether it shows more people, which event."""

from __future__ import annotations

import pytest

from visual_degrees.domain.captions import (
    MAX_NAMES,
    event_in_title,
    event_words,
    keys_in_title,
    names_in_title,
    same_event,
    sentence_cased,
    shows_unnamed,
    unnamed_faces,
)
from visual_degrees.domain.models import MAX_TITLE_CHARS, ImageHit


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("Kevin Bacon and Tom Hanks at the premiere of Apollo 13 (1995)", ["Kevin Bacon", "Tom Hanks"]),
        (
            "Roy Evans, Rock Brynner and Leon Lissek on the red carpet at the premiere of "
            "Where's Jack? (1969)",
            ["Roy Evans", "Rock Brynner", "Leon Lissek"],
        ),
        (
            "'Snub' Pollard with Harley Luse on the set of Rollin' Plains (1938)",
            ["'Snub' Pollard", "Harley Luse"],
        ),
        (
            "The cast of Homeward Bound: The Incredible Journey (1993) at its premiere: Frank Welker, "
            "Sally Field, Mark L. Taylor and others",
            ["Frank Welker", "Sally Field", "Mark L. Taylor"],
        ),
        (
            "Cheech Marin with George 'Buck' Flower at the premiere of "
            "The Magic of the Golden Bear: Goldy III (1994)",
            ["Cheech Marin", "George 'Buck' Flower"],
        ),
        (
            "Ken Swofford, Martika, Julie Whitman and a guest at a photocall for Annie (1982)",
            ["Ken Swofford", "Martika", "Julie Whitman"],
        ),
        ("Ludwig van Beethoven and Bobby Van at a gala", ["Ludwig van Beethoven", "Bobby Van"]),
        (
            "Actors Kevin Bacon and Kyra Sedgwick attend the premiere of 'Footloose' at the Ziegfeld Theatre "
            "on May 1, 2011 in New York City.",
            ["Kevin Bacon", "Kyra Sedgwick"],
        ),
        # agencies' left-to-right marker is no person; an unnamed guest mid-list does not end the list
        (
            "(L-R) Actor John Carradine, a guest and director Sam Finn attend the premiere of Gog (1954)",
            ["John Carradine", "Sam Finn"],
        ),
        ("(l to r) Tom Hanks, Meg Ryan and guests at the premiere of Big (1988)", ["Tom Hanks", "Meg Ryan"]),
        ("From left: Tom Hanks and Meg Ryan at a gala", ["Tom Hanks", "Meg Ryan"]),
        # a page about one person: the page's words are not part of the name
        ("Kevin Bacon Photos", ["Kevin Bacon"]),
        ("Kevin Bacon - Pictures and Photos", ["Kevin Bacon"]),
        ("photo of a sunset over the sea", []),
        ("", []),
    ],
)
def test_names_are_read_from_the_part_of_a_title_that_names_people(title, names):
    assert list(names_in_title(title)) == names


@pytest.mark.parametrize(
    ("title", "names"),
    [
        # an agency's dateline names a place and a date, not a person (Getty Images' style)
        (
            "LOS ANGELES, CA - JUNE 22: Actors Kevin Bacon and Tom Hanks attend the premiere of Apollo 13",
            ["Kevin Bacon", "Tom Hanks"],
        ),
        (
            "HOLLYWOOD - MARCH 3: Kevin Bacon and Tom Hanks arrive at the Academy Awards",
            ["Kevin Bacon", "Tom Hanks"],
        ),
        ("NEW YORK, NY - MAY 01, 2011: Kevin Bacon attends the Met Gala", ["Kevin Bacon"]),
        # a site's name after a bar, a stock site's words after the names
        ("Kevin Bacon and Tom Hanks | Getty Images", ["Kevin Bacon", "Tom Hanks"]),
        ("Kevin Bacon and Tom Hanks Stock Photos and Pictures", ["Kevin Bacon", "Tom Hanks"]),
        ("Barbara Stock and Tom Hanks at a gala", ["Barbara Stock", "Tom Hanks"]),
        # where each stands, as news captions say it
        ("Kevin Bacon, left, and Tom Hanks arrive at the premiere", ["Kevin Bacon", "Tom Hanks"]),
        ("Tom Hanks (left) and Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        ("Tom Hanks, far right, with Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        ("Tom Hanks and Kevin Bacon, right", ["Tom Hanks", "Kevin Bacon"]),
        # who someone is to the one before, or a word for the lot of them
        ("Tom Hanks and wife Rita Wilson with Kevin Bacon", ["Tom Hanks", "Rita Wilson", "Kevin Bacon"]),
        ("Tom Hanks and his co-star Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        ("Celebrities Tom Hanks and Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        # a news label, a page's "Photo of", names joined by a slash
        ("EXCLUSIVE: Tom Hanks and Kevin Bacon spotted in LA", ["Tom Hanks", "Kevin Bacon"]),
        ("Photo of Kevin Bacon and Tom Hanks", ["Kevin Bacon", "Tom Hanks"]),
        ("Tom Hanks/Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        # a file's name as its title (Wikimedia Commons), "L-R:" without parentheses, a stock site's words
        ("File:Tom_Hanks_and_Kevin_Bacon_1995.jpg", ["Tom Hanks", "Kevin Bacon"]),
        ("L-R: Tom Hanks, Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        (
            "Tom Hanks, Kevin Bacon Editorial Stock Photo - Stock Image | Shutterstock",
            ["Tom Hanks", "Kevin Bacon"],
        ),
        # "a guest" is nobody; Guest after a name is a surname
        ("Christopher Guest and Jamie Lee Curtis attend a gala", ["Christopher Guest", "Jamie Lee Curtis"]),
        ("(L-R) Actor Lance Guest, a guest and actor Dan Jones attend a gala", ["Lance Guest", "Dan Jones"]),
        ("Tom Hanks, A Guest and Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        # a credit names who took or sells the photo, not who is in it
        ("Kevin Bacon and Tom Hanks (Photo by Kevin Winter/Getty Images)", ["Kevin Bacon", "Tom Hanks"]),
        ("Kevin Bacon and Tom Hanks. (AP Photo/Chris Pizzello)", ["Kevin Bacon", "Tom Hanks"]),
        ("Kevin Bacon and Tom Hanks. Photo: Getty Images", ["Kevin Bacon", "Tom Hanks"]),
        ("Kevin Bacon and Tom Hanks, Reuters", ["Kevin Bacon", "Tom Hanks"]),
        ("Credit: Alamy", []),
        # a sentence's full stop is not part of a name; an initial's or "Jr."'s is
        ("Sammy Davis Jr. and Mark L. Taylor", ["Sammy Davis Jr.", "Mark L. Taylor"]),
        # one word and a number is a film, not a person; a name and a year stays a name
        ("Apollo 13 premiere: Tom Hanks and Kevin Bacon", ["Tom Hanks", "Kevin Bacon"]),
        ("Tom Hanks 2019", ["Tom Hanks"]),
        # an age after a name, whom someone poses with, a nationality before a role: the list goes on
        (
            "Kevin Bacon, 64, and Kyra Sedgwick, 57, attend the premiere of Footloose",
            ["Kevin Bacon", "Kyra Sedgwick"],
        ),
        ("Kevin Bacon (64) and Kyra Sedgwick (57) arrive", ["Kevin Bacon", "Kyra Sedgwick"]),
        ("Sammy Davis Jr., 60, and Dean Martin", ["Sammy Davis Jr.", "Dean Martin"]),
        (
            "Kevin Bacon (C) poses with Kyra Sedgwick (L) and Tom Hanks (R)",
            ["Kevin Bacon", "Kyra Sedgwick", "Tom Hanks"],
        ),
        ("Kevin Bacon poses with guests at the premiere", ["Kevin Bacon"]),
        (
            "US actor Tom Hanks (L) and his wife US actress Rita Wilson arrive for the premiere",
            ["Tom Hanks", "Rita Wilson"],
        ),
        ("South Korean director Bong Joon-ho and actor Song Kang-ho pose", ["Bong Joon-ho", "Song Kang-ho"]),
        ("Kevin Bacon and Tom Hanks star in Apollo 13 (1995)", ["Kevin Bacon", "Tom Hanks"]),
        # whose relation someone is: the possessive ends a name, the list goes on
        ("Kevin Bacon's wife Kyra Sedgwick attends the premiere", ["Kevin Bacon", "Kyra Sedgwick"]),
        (
            "Tom Hanks' son Chet Hanks and Rita Wilson attend the gala",
            ["Tom Hanks", "Chet Hanks", "Rita Wilson"],
        ),
        ("Kevin Bacon's co-star Lori Singer", ["Kevin Bacon", "Lori Singer"]),
        ("Eva Robin's and Dario Argento attend a gala", ["Eva Robin's", "Dario Argento"]),
        # a title in capitals is a headline
        ("TOM HANKS AND RITA WILSON AT THE PREMIERE OF ELVIS", ["Tom Hanks", "Rita Wilson"]),
        (
            "LOS ANGELES, CA - JUNE 22: TOM HANKS AND RITA WILSON ATTEND THE PREMIERE",
            ["Tom Hanks", "Rita Wilson"],
        ),
        # a headline capitalises every word: its small words and verbs end the names, as in lower case
        (
            "Kevin Bacon And Kyra Sedgwick Attend The Premiere Of Footloose",
            ["Kevin Bacon", "Kyra Sedgwick"],
        ),
        ("Meryl Streep, Tom Hanks Pose At 'The Post' Premiere", ["Meryl Streep", "Tom Hanks"]),
        ("Tom Hanks & Rita Wilson Celebrate 34th Wedding Anniversary", ["Tom Hanks", "Rita Wilson"]),
        (
            "Photos: Tom Hanks, Meryl Streep Attend The Post Premiere In Washington",
            ["Tom Hanks", "Meryl Streep"],
        ),
        ("Tom Hanks Talks 'Elvis' At Cannes", ["Tom Hanks"]),
        ("Madonna Performs At The Super Bowl", ["Madonna"]),
        ("Don Was And Keith Richards Attend The Grammys", ["Don Was", "Keith Richards"]),
        ("Charles Dance Attends The BAFTAs", ["Charles Dance"]),
        (
            "(L-R) Actor Tom Hanks, A Guest And Actor Will Ferrell Arrive On The Red Carpet",
            ["Tom Hanks", "Will Ferrell"],
        ),
        ("Cast And Crew Attend The Premiere", []),
        ("Amanda Crew Arrives At A Photocall For Final Destination 3 (2006)", ["Amanda Crew"]),
        ("Nicholas Guest At A Press Event For Children Of A Lesser God (1986)", ["Nicholas Guest"]),
        ("Kim Director At A Press Event For Bamboozled (2000)", ["Kim Director"]),
        ("(L-R) Rachel Weisz, The Rock And Tom Fisher Attend A Gala", ["Rachel Weisz", "Rock", "Tom Fisher"]),
        ("Bruno Ganz Arrives At The Premiere Of Der Himmel über Berlin (1987)", ["Bruno Ganz"]),
        ("Tom Hanks And Kevin Bacon At The Premiere Of Apollo 13 (1995)", ["Tom Hanks", "Kevin Bacon"]),
        ("At The Oscars: Tom Hanks And Meryl Streep Pose Together", ["Tom Hanks", "Meryl Streep"]),
        # ... but a page about a person and a name with a small word are read as written
        ("Kevin Bacon Photos", ["Kevin Bacon"]),
        ("Larry The Cable Guy Photos", ["Larry The Cable Guy"]),
        ("Jesse Merle Speaks - Fan Gallery", ["Jesse Merle Speaks"]),
        ("Larry The Cable Guy and Bill Engvall attend a gala", ["Larry The Cable Guy", "Bill Engvall"]),
    ],
)
def test_names_are_read_from_captions_as_the_web_writes_them(title, names):
    assert list(names_in_title(title)) == names


@pytest.mark.parametrize(
    ("title", "read"),
    [
        # a headline: its names and the words that end them as a sentence writes them, the rest as is
        (
            "Kevin Bacon And Kyra Sedgwick Attend The Premiere Of Footloose",
            "Kevin Bacon and Kyra Sedgwick attend the Premiere Of Footloose",
        ),
        (
            "At The Oscars: Tom Hanks And Meryl Streep Pose Together",
            "At the Oscars: Tom Hanks and Meryl Streep pose together",
        ),
        # not headlines: a sentence, a page about a person, a film's title with its year
        (
            "Kevin Bacon and Kyra Sedgwick attend the premiere",
            "Kevin Bacon and Kyra Sedgwick attend the premiere",
        ),
        ("Larry The Cable Guy Photos", "Larry The Cable Guy Photos"),
        ("Return Of The Jedi (1983) - Photo Gallery", "Return Of The Jedi (1983) - Photo Gallery"),
        (
            "So I Married an Axe Murderer (1993) - Photo Gallery",
            "So I Married an Axe Murderer (1993) - Photo Gallery",
        ),
    ],
)
def test_a_headline_is_read_in_a_sentences_case_and_nothing_else_is(title, read):
    assert sentence_cased(title) == read


def test_keys_are_name_keys_without_repeats():
    assert keys_in_title("Zoë Saldaña and ZOE SALDANA with Sam Worthington at a gala") == (
        "zoe saldana",
        "sam worthington",
    )


@pytest.mark.parametrize(
    ("title", "unnamed"),
    [
        ("A, B and a guest at the premiere of X (1999)", True),
        ("A, B and guests at the X Awards", True),
        ("The cast of X (1999) at its premiere: A, B, C and others", True),
        ("Ann Lee and Bob Ray at the premiere of X (1999)", False),
        ("Cast and crew attend the premiere of X (1999)", True),
        ("Ann Lee and the cast attend the premiere of X (1999)", True),
        ("Tom Hanks at the premiere of Cast Away (2000)", False),
    ],
)
def test_a_title_saying_it_shows_more_people_than_it_names(title, unnamed):
    assert shows_unnamed(title) is unnamed


@pytest.mark.parametrize(
    ("title", "rank"),
    [
        ("Cast and crew attend the premiere of X (1999)", 2),
        ("The cast of X (1999) at its premiere: A, B, C and others", 2),
        ("A, B and guests at the X Awards", 1),
        ("A, B and a guest at the premiere of X (1999)", 0),
        ("Ann Lee and Bob Ray at the premiere of X (1999)", 0),
    ],
)
def test_a_crowd_promises_more_unnamed_faces_than_guests_and_guests_more_than_one(title, rank):
    assert unnamed_faces(title) == rank


def test_two_captions_of_one_event_share_its_words_and_another_event_does_not():
    one = event_words("Ann Lee and Bob Ray at the premiere of Mary Poppins (1964)")
    same = event_words("Cat Wu, Dan Oz and a guest on the set of Mary Poppins (1964)")
    other = event_words("Ann Lee at the premiere of The Sound of Music (1965)")
    assert "poppins" in one and "ann" not in one and "premiere" not in one
    assert same_event(one, same)
    assert not same_event(one, other)
    assert not same_event(frozenset(), one)


@pytest.mark.parametrize(
    ("title", "event"),
    [
        ("Kevin Bacon and Tom Hanks at the premiere of Apollo 13 (1995)", "Apollo 13 (1995)"),
        (
            "A with B on the red carpet at the premiere of Night at the Museum (2006)",
            "Night at the Museum (2006)",
        ),
        (
            "The cast of The Tigger Movie (2000) at its premiere: Jim Cummings and others",
            "The Tigger Movie (2000)",
        ),
        (
            "Ann Lee, Bob Ray and other guests on stage at the Academy Awards, USA (1990)",
            "Academy Awards, USA (1990)",
        ),
        ("Ann Lee at a charity event at the Golden Gala (1990)", "Golden Gala (1990)"),
        ("Bob Ray on the set of The Wiz (1978 I)", "The Wiz (1978 I)"),
        ("Ann Lee at a premiere during the Cannes Film Festival (1999)", "Cannes Film Festival (1999)"),
        ("Ann Lee at home", None),  # no dated event
        ("IMG_2041.jpg", None),
        ("Ann Lee at the premiere of <script>x</script> (1999)", None),  # markup is never searched
        ("Ann Lee at the premiere of " + "Long " * 40 + "(1999)", None),  # nor an endless "title"
        # A title saying "at the" thousands of times is read as far as an event could reach
        ("Ann Lee at the " * 5_000 + "premiere of Apollo 13 (1995)", "Apollo 13 (1995)"),
        ("Ann Lee at the " * 5_000 + "x" * 200 + " (1995)", None),
    ],
)
def test_the_event_a_caption_names_is_read_with_its_year(title, event):
    assert event_in_title(title) == event


def test_a_title_naming_thousands_yields_its_first_names_only():
    # Given a title listing 5,000 different people
    people = [f"Ann{chr(97 + i % 26)}{chr(97 + i // 26 % 26)} Lee{i // 676}" for i in range(5_000)]
    title = ", ".join(people) + " at the premiere of Apollo 13 (1995)"
    # Then the first MAX_NAMES of them are read, in order
    assert names_in_title(title) == tuple(people[:MAX_NAMES])


def test_a_search_hit_keeps_only_the_start_of_an_endless_title():
    # Given a result whose page title runs to 100 KB (a hostile page)
    hit = ImageHit(image_url="https://example.org/a.jpg", title="Kevin Bacon, Tom Hanks, " * 4_000)
    # Then the hit keeps the title's start, which still names who is in it
    assert len(hit.title) == MAX_TITLE_CHARS
    assert names_in_title(hit.title)[:2] == ("Kevin Bacon", "Tom Hanks")


def test_a_dateline_and_a_credit_are_not_event_words():
    plain = "Kevin Bacon and Tom Hanks at the premiere of Apollo 13 (1995)"
    wire = f"LOS ANGELES, CA - JUNE 22: {plain} (Photo by Dana Whitcombe/Getty Images)"
    assert event_words(wire) == event_words(plain) == frozenset({"apollo", "13", "1995"})
