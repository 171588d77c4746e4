import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.names import MAX_NAME_LENGTH, display_name, name_key, validate_name


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("Bacon, Kevin (I)", "Kevin Bacon"),
        ("Carey Jr., Harry", "Harry Carey Jr."),
        ("Dakkar", "Dakkar"),
        ("Abba (I)", "Abba"),
        ("  Kevin   Bacon ", "Kevin Bacon"),
        ("Indian People of Utah and Canada, The", "The Indian People of Utah and Canada"),
    ],
)
def test_display_name_turns_world_spelling_into_first_last(raw, shown):
    assert display_name(raw) == shown


def test_name_key_matches_the_spellings_of_one_person():
    # Given three spellings of one person, when normalised, then they meet at one key
    assert name_key("Depardieu, Gérard") == name_key("gerard depardieu") == name_key("GÉRARD  DEPARDIEU")
    assert name_key("O'Shea, Dick") == name_key("Dick OShea")
    assert name_key("Kevin Bacon") != name_key("Kevin Bacone")


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("", "empty"),
        ("   \t ", "control character"),
        ("   ", "empty"),
        ("x" * (MAX_NAME_LENGTH + 1), "limit is 200"),
        ("Kevin\x00Bacon", "control character"),
        ("Kevin\u202eBacon", "control character"),
        ("!!!", "no letters"),
        (42, "must be a string"),
    ],
)
def test_validate_name_names_the_problem(raw, problem):
    with pytest.raises(InvalidInput, match=problem):
        validate_name(raw)


def test_validate_name_accepts_the_limit_and_returns_the_display_form():
    assert validate_name("a" * MAX_NAME_LENGTH) == "a" * MAX_NAME_LENGTH
    assert validate_name("Bacon, Kevin (I)") == "Kevin Bacon"


@given(st.text(alphabet=string.ascii_letters + string.digits + " ,.'-_()IVX", min_size=1, max_size=40))
def test_the_ascii_shortcut_agrees_with_the_unicode_path(raw):
    # An accent on the first letter forces the full Unicode path; stripping it must give the same key
    accented = raw[0] + "\u0301" + raw[1:] if raw[0].isalpha() else raw
    assert name_key(raw) == name_key(accented)
