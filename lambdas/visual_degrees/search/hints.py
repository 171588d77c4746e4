"""A user's hint (issue 13): `via`, a person they believe connects A and B.

A hint is a lead, never a link. It becomes two hunches, A–via and via–B, kept with source "user"
over anything the planner said about those pairs; the chain agenda prices a user's hunch below
every other lead (chains.pair_cost), so the run checks those two pairs first, with pair searches
and photos like any lead. If they fail, the expansion reads via's own page first
(caption_leads/expansion.unsearched_hint), so via's co-stars can bridge the side that failed. Only
photos make links: the ending says whether the hint was confirmed (a chain through via, or a photo of via with
each end), citing the photos that show via with A, with B and with their neighbours on the chain.
"""

from __future__ import annotations

from typing import Any

from visual_degrees.domain.models import Person
from visual_degrees.domain.requests import validate_hint
from visual_degrees.search.evidence import announce
from visual_degrees.search.scope import SearchScope


def take(scope: SearchScope) -> Person | None:
    """Record the run's hint, if it has one, as the user's hunches, and say so (S0)."""
    via = scope.options.via
    if not via:
        return None
    a, b = scope.state.person_a, scope.state.person_b
    hint = validate_hint(via, a, b)
    scope.evidence.remember_person(hint)
    for x, y in ((a, hint), (hint, b)):
        scope.leads.add_user_hunch(x.key, y.key, {"nameA": x.name, "nameB": y.name, "film": ""})
    pending = [(x, y) for x, y in ((a, hint), (hint, b)) if scope.graph.confidence(x.key, y.key) is None]
    if pending:
        pairs = " and of ".join(f"{x.name} with {y.name}" for x, y in pending)
        said = (
            f"Your hint first: does {hint.name} connect {a.name} and {b.name}? "
            f"Looking for a photo of {pairs}."
        )
    else:
        said = f"Your hint: photos already show {hint.name} with {a.name} and with {b.name}."
    scope.status(said, hint=hint.name)
    return hint


def report(scope: SearchScope, chain: list[str] | None = None) -> dict[str, Any] | None:
    """What became of the hint, for the run's ending (None: the run has none): `confirmed` when
    the chain goes through via or photos show via with both ends; `links`, the photos showing via
    with A, with B and with their neighbours on the chain (each announced, so each has its card);
    `message`, in words."""
    via = scope.options.via
    if not via:
        return None
    a, b = scope.state.person_a, scope.state.person_b
    hint = Person.of(via)
    key = hint.key
    others = [a.key, b.key]
    if chain and key in chain:
        at = chain.index(key)
        others += [k for k in chain[max(0, at - 1) : at + 2] if k != key]
    links = []
    for other in dict.fromkeys(others):
        edge = scope.evidence.shown_edge(key, other)
        if edge is None:
            continue
        edge = edge.oriented(a.key if other == a.key else key)  # read from A towards B
        announce(scope, edge)
        links.append(
            {
                "from": edge.name_a,
                "to": edge.name_b,
                "imageUrl": edge.evidence.image_url,
                "pageUrl": edge.evidence.page_url,
                "event": edge.evidence.event,
                "confidence": round(edge.confidence, 2),
            }
        )
    with_a = scope.evidence.shown_edge(key, a.key) is not None
    with_b = scope.evidence.shown_edge(key, b.key) is not None
    on_chain = bool(chain) and key in (chain or [])
    confirmed = on_chain or (with_a and with_b)
    if on_chain:
        message = f"Confirmed: the chain goes through {hint.name}."
    elif confirmed:
        message = f"Confirmed: photos show {hint.name} with {a.name} and with {b.name}."
    elif with_a or with_b:
        seen, unseen = (a, b) if with_a else (b, a)
        message = (
            f"Partly: a photo shows {hint.name} with {seen.name}; none was found of {hint.name} "
            f"with {unseen.name}."
        )
    else:
        message = f"Not confirmed: no photo was found of {hint.name} with {a.name} or {b.name}."
    return {"name": hint.name, "confirmed": confirmed, "links": links, "message": message}
