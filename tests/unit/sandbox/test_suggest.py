"""Name suggestions (sandbox/suggest.py, World.suggest / name_index / example_pair): completions as
a name is typed, corrections for a name nobody has, namesakes once, the most seen first; and the
example pair a world offers a newcomer."""

from __future__ import annotations

import pytest

from visual_degrees_tools.sandbox.synthetic import EXAMPLE_PAIR
from visual_degrees_tools.sandbox.world import World

EVENTS = [
    ("Footloose (1984)", ["Bacon, Kevin (I)", "Singer, Lori", "Lithgow, John"]),
    ("Tremors (1990)", ["Bacon, Kevin (I)", "Ward, Fred", "Hanks, Tom"]),
    ("Apollo 13 (1995)", ["Bacon, Kevin (I)", "Hanks, Tom", "Paxton, Bill"]),
    ("Mary Poppins (1964)", ["Andrews, Julie (I)", "Van Dyke, Dick"]),
    ("A Gala (1999)", ["Lithgow, John", "Van Dyke, Dick", "Kline, Kevin"]),
    ("Another Gala (2001)", ["Costner, Kevin", "Kline, Kevin", "Ward, Fred"]),
    ("Namesakes (2003)", ["Jones, Tom (I)", "Jones, Tom (II)", "Cruz, Penélope"]),
    ("Hankies (2004)", ["Hankin, Larry", "Jones, Tom (I)"]),
]


@pytest.fixture(scope="module")
def world() -> World:
    return World.from_events(EVENTS)


def test_completion_finds_names_that_start_with_the_text_most_seen_first(world: World) -> None:
    index = world.name_index()
    assert index.complete("kev") == ["Kevin Bacon", "Kevin Kline", "Kevin Costner"]
    assert index.complete("Kevin K") == ["Kevin Kline"]
    # a word of the name counts too: the surname, or the first name typed second
    assert index.complete("hank") == ["Tom Hanks", "Larry Hankin"]
    assert index.complete("BACON") == ["Kevin Bacon"]


def test_completion_ignores_accents_case_and_punctuation_and_lists_namesakes_once(world: World) -> None:
    index = world.name_index()
    assert index.complete("penelope") == ["Penélope Cruz"]
    assert index.complete("tom jo") == ["Tom Jones"]  # Jones, Tom (I) and (II): one display name
    assert index.complete("") == [] and index.complete("  ,, ") == []
    assert index.complete("kev", limit=2) == ["Kevin Bacon", "Kevin Kline"]


def test_correction_finds_the_closest_names_for_typos_and_swapped_words(world: World) -> None:
    index = world.name_index()
    assert index.correct("Kevin Bacn")[0] == "Kevin Bacon"
    assert index.correct("Bacon Kevin")[0] == "Kevin Bacon"
    assert index.correct("Tom Hnks")[0] == "Tom Hanks"
    assert index.correct("Zzyzx Qwrtp") == []


def test_suggest_completes_and_corrects_only_what_begins_no_name(world: World) -> None:
    index = world.name_index()
    assert index.suggest("Julie Andr") == ["Julie Andrews"]  # a completion: nothing else offered
    assert index.suggest("Kevin Bacn")[0] == "Kevin Bacon"  # no completion: the corrections


def test_did_you_mean_offers_a_clear_winner_alone(world: World) -> None:
    assert world.suggest("Kevin Bacn") == ["Kevin Bacon"]
    assert world.suggest("Julie Andrew") == ["Julie Andrews"]  # the start of a name: completed
    assert world.suggest("Zzyzx Qwrtp") == []
    assert len(world.suggest("Kevin")) == 3  # three Kevins, equally good


def test_the_index_is_built_once_per_world(world: World) -> None:
    assert world.name_index() is world.name_index()


def test_the_example_pair_is_two_shared_events_apart_and_stable(world: World) -> None:
    # Given the world's example pair
    pair = world.example_pair()
    assert pair is not None
    a, b = (world.find(name)[0] for name in pair)

    # Then the first is among the most seen, and the two never shared an event but share a partner
    assert world.fame[a] == max(world.fame)
    assert world.coappearance_distance(a, b) == 2
    assert World.from_events(EVENTS).example_pair() == pair


def test_a_world_without_two_events_in_a_row_has_no_example() -> None:
    assert World.from_events([("Solo (2000)", ["Alone, Al"])]).example_pair() is None
    assert World.from_events([("Duo (2000)", ["One, A", "Two, B"])]).example_pair() is None


def test_the_bundled_world_offers_the_documented_pair(default_web) -> None:
    from visual_degrees_tools.local.world_info import example_pair

    assert example_pair(default_web) == EXAMPLE_PAIR


# "Did you mean" calibration: what was typed, the name it is measured against, rapidfuzz's
# similarity of the two (the index's own score), and whether it is offered. Real typos of a name
# the world has are corrected; another person whose name merely looks alike is not.
CALIBRATION = [
    # typed            a name in the world      score  offered
    ("Kevin Bacn", "Kevin Bacon", 95.2, True),
    ("Ann Hathway", "Anne Hathaway", 91.7, True),
    ("Kevn Bcon", "Kevin Bacon", 90.0, True),
    ("merly strep", "Meryl Streep", 87.0, True),
    ("Jon Travolta", "John Travolta", 96.0, True),
    ("Tom Hnks", "Tom Hanks", 94.1, True),
    ("Meryl Streep", "Mary Treen", 72.7, False),
    ("Morgan Freeman", "Frank Morgan", 84.6, False),  # the words swapped, still someone else
    ("Samuel Jackson", "Sammy Jackson", 81.5, False),
    ("Robert DeNiro", "Robert Adler", 80.0, False),
    ("Nicole Kidman", "Kim Nicholas", 72.0, False),
]


@pytest.mark.parametrize(("typed", "name", "score", "offered"), CALIBRATION)
def test_did_you_mean_offers_real_typos_and_not_far_names(typed, name, score, offered) -> None:
    # Given a world in which `name` is the closest to what was typed
    world = World.from_events([("A Film (2000)", [_world_spelling(name), "Nobody, Else"])])
    assert world.name_index().scored(typed, limit=1) == [(name, pytest.approx(score, abs=0.05))]

    # Then it is offered exactly when it is a typo of that name
    assert world.suggest(typed) == ([name] if offered else [])


def _world_spelling(name: str) -> str:
    first, last = name.rsplit(" ", 1)
    return f"{last}, {first}"


def test_the_floor_sits_between_the_typos_and_the_far_names() -> None:
    from visual_degrees_tools.sandbox.suggest import DID_YOU_MEAN_FLOOR

    typos = [score for *_, score, offered in CALIBRATION if offered]
    far = [score for *_, score, offered in CALIBRATION if not offered]
    assert max(far) < DID_YOU_MEAN_FLOOR <= min(typos)
