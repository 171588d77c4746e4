"""A hand-made world small enough to reason about: two namesakes called Kevin Bacon, a connected
group of five people, and one person alone in a world of her own."""

from __future__ import annotations

import pytest

from visual_degrees_tools.sandbox import PhotoWeb, World

EVENTS = [
    ("Film One (2001)", ["Bacon, Kevin (I)", "Hanks, Tom", "Ryan, Meg"]),
    ("Film Two (2002)", ["Bacon, Kevin (II)", "Cruise, Tom"]),
    ("Film Three (2003)", ["Ryan, Meg", "Cruise, Tom", "Loner, Lou"]),
    ("Solo Show (2004)", ["Island, Ivy"]),
]


@pytest.fixture(scope="session")
def web() -> PhotoWeb:
    return PhotoWeb(World.from_events(EVENTS, source="bench-test"), seed=0)
