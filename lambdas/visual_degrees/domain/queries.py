"""Search query templates. Every query the system sends is one of these, filled with known names or
an event title read by domain/captions.event_in_title (plain words and a year, at most 120
characters), so a planner (or a hostile name or caption) can never make us search for arbitrary text."""

from __future__ import annotations

# Proving that two people met: {a} and {b} are display names.
PAIR_TEMPLATES: tuple[str, ...] = (
    "{a} {b}",
    "{a} and {b}",
    "{a} with {b}",
    "{a} {b} premiere",
    "{a} {b} together",
)

# Discovering who a person appears with, one template per discovery round.
DISCOVERY_TEMPLATES: tuple[str, ...] = (
    "{a}",
    "{a} with",
    "{a} premiere",
    "{a} cast",
    "{a} red carpet",
    "{a} event",
)


# The same templates asked group shots first: a name alone mostly brings up portraits, which prove
# no link; "cast" and "with" bring up photos of several people.
GROUP_FIRST: tuple[int, ...] = (3, 1, 2, 4, 5, 0)


# Finding everyone photographed at an event (a film's premiere, a gala): {event} is a title with its
# year as a caption wrote it (domain/captions.event_in_title) or the planner named it; "cast" brings
# up the crowd shots, where people no caption names stand among the named.
EVENT_TEMPLATE = "{event} cast"


def event_query(event: str) -> str:
    return EVENT_TEMPLATE.format(event=event)


def pair_query(a: str, b: str, template: str = PAIR_TEMPLATES[0]) -> str:
    return template.format(a=a, b=b)


def discovery_query(a: str, round_no: int, order: tuple[int, ...] | None = None) -> str | None:
    """The discovery query for round `round_no` (0-based), or None when the templates are used up.
    `order` (a permutation of the template indices) changes which template each round uses."""
    if round_no >= len(DISCOVERY_TEMPLATES):
        return None
    return DISCOVERY_TEMPLATES[order[round_no] if order else round_no].format(a=a)


def allowed_pair_queries(a: str, b: str) -> set[str]:
    """All pair queries for a and b, in either order."""
    return {t.format(a=x, b=y) for t in PAIR_TEMPLATES for x, y in ((a, b), (b, a))}
