"""What a result's title says about its photo before anyone pays to look at it: a portrait shows
one person and can prove no link (domain/titles.py)."""

from __future__ import annotations

import pytest

from visual_degrees.domain.titles import portrait


@pytest.mark.parametrize(
    "title",
    [
        "Actor Kevin Bacon arrives at the premiere of Footloose (1984)",
        "Kevin Bacon at the premiere of Apollo 13 (1995)",
        "Kevin Bacon on the red carpet at the premiere of Apollo 13 (1995)",
        "A guest attends the premiere of Apollo 13 (1995)",
        "Arrivals at the premiere of Apollo 13 (1995)",
    ],
)
def test_a_title_saying_its_photo_shows_one_person_is_a_portrait(title):
    assert portrait(title)


@pytest.mark.parametrize(
    "title",
    [
        "Kevin Bacon and Tom Hanks at the premiere of Apollo 13 (1995)",
        "Kevin Bacon poses with guests at the premiere of Apollo 13 (1995)",
        "Guests attend the premiere of Apollo 13 (1995)",
        "Cast and crew attend the premiere of Apollo 13 (1995)",
        # pages about someone say nothing of who is in their photo
        "Kevin Bacon - Pictures and Photos",
        "Kevin Bacon news and photos",
        "Kevin Bacon at Apollo 13 (1995): see the photos",
        "IMG_0001.jpg",
        "",
    ],
)
def test_a_title_that_may_show_several_people_is_not_a_portrait(title):
    assert not portrait(title)
