"""Every caption the simulated photo sites write names its event as a link shows it."""

from __future__ import annotations

import pytest

from visual_degrees.domain.photo_event import photo_event
from visual_degrees_tools.sandbox.captions import CONTEXTS, EventKind, Kind, caption

TITLES = {
    EventKind.FILM: "Where's Jack? (1969)",
    EventKind.GALA: "1998 Awards Gala",
    EventKind.FESTIVAL: "2001 Berlin Film Festival",
}
PEOPLE = (["Roy Evans", "Rock Brynner"], ["Roy Evans", "Rock Brynner", "Leon Lissek"])


@pytest.mark.parametrize("event", list(EventKind))
def test_every_caption_of_two_or_more_names_its_event(event: EventKind) -> None:
    title = TITLES[event]
    for context in range(len(CONTEXTS[event])):
        for named in PEOPLE:
            for unnamed in (0, 1, 2):
                text = caption(Kind.GROUP, named, unnamed, title, event, context)
                found = photo_event(text)
                assert found is not None and title in found, text
                assert not any(name in found for name in named), text  # the place, not the people
        crowd = caption(Kind.CROWD, PEOPLE[1], 2, title, event, 0)
        found = photo_event(crowd)
        assert found is not None and title in found, crowd


def test_a_film_caption_reads_as_the_place_at_the_film() -> None:
    shown = {
        photo_event(caption(Kind.GROUP, PEOPLE[0], 0, TITLES[EventKind.FILM], EventKind.FILM, c))
        for c in range(len(CONTEXTS[EventKind.FILM]))
    }
    assert shown == {
        "the premiere of Where's Jack? (1969)",
        "the set of Where's Jack? (1969)",
        "a press event for Where's Jack? (1969)",
        "a photocall for Where's Jack? (1969)",
    }
