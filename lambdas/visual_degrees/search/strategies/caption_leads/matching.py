"""Asking the planner to match the two sides: which people of A's side and of B's side met, and
through whom. Its answer becomes hunches (leads), checked by photos like any other lead; a hunch is
shown as a hunch ("might have worked with"), never as a fact.

The planner is asked when the sides have changed since it last was (a new person on either side, a
new unseen end, a pair that failed), at most once per step, within the LLM budget, with bounded
attempts (a rejected answer is fed back); an unusable answer leaves the run to its own leads.
"""

from __future__ import annotations

import hashlib
import json

from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import (
    MAX_SIDE,
    ConnectContext,
    ProposedLink,
    SidePerson,
    validate_connect,
)
from visual_degrees.ports import Planner
from visual_degrees.search.asking import ask_with_feedback
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies.caption_leads.expansion import sides, unlinked_ends
from visual_degrees.search.strategies.caption_leads.leads import LeadBook

# Each attempt is one LLM call, reserved against the LLM budget. The budget alone bounds how often a
# run asks: a question is asked only when the sides changed since the last, and capping the asks
# below the budget (at 8 of 12) left runs that had not found their chain to search without hunches.
MAX_ATTEMPTS = 2
MAX_FAILED_SHOWN = 20


def context_for(scope: SearchScope, book: LeadBook, max_hops: int | None = None) -> ConnectContext:
    state = scope.state
    people = []
    ends = {state.person_a.key, state.person_b.key}
    for end, depth in zip((state.person_a.key, state.person_b.key), sides(scope, book).values(), strict=True):
        if max_hops is not None:
            # A question for fewer pairs than the run's chain (search/shortening): each end with the
            # people seen next to it, not the chain that already joins the two sides.
            depth = {k: d for k, d in depth.items() if d <= 1 and (k == end or k not in ends)}
        ranked = sorted(depth, key=lambda k: (depth[k], -book.named_count(k), k))[:MAX_SIDE]
        people.append(
            [
                SidePerson(name=book.name(k), distance=depth[k], photos_seen=book.named_count(k))
                for k in ranked
            ]
        )
    failed = sorted(book.nolink)[:MAX_FAILED_SHOWN]
    return ConnectContext(
        person_a=state.person_a.name,
        person_b=state.person_b.name,
        side_a=people[0],
        side_b=people[1],
        unseen=[book.name(k) for k in unlinked_ends(scope, book)],
        failed=[[book.name(k) for k in pair.split("|")] for pair in failed],
        max_hops=scope.options.max_hops if max_hops is None else max_hops,
        remaining_searches=scope.budget.remaining("searches"),
    )


def signature(context: ConnectContext) -> str:
    data = context.model_dump(by_alias=True, exclude={"remaining_searches", "feedback"})
    for side in ("sideA", "sideB"):
        data[side] = sorted(p["name"] for p in data[side])  # photos_seen grows with every page
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def can_consult(scope: SearchScope, book: LeadBook) -> bool:
    """Is there a planner that matches sides (planner_matching), and budget to ask it?"""
    planner = scope.ctx.providers.planner
    return (
        book.knobs.planner_matching
        and planner is not None
        and hasattr(planner, "connect")
        and scope.budget.remaining("llmCalls") > 0
    )


def worth_asking(scope: SearchScope, book: LeadBook, max_hops: int | None = None) -> ConnectContext | None:
    """The question to ask the planner (for chains of at most `max_hops`, the run's unless given),
    if there is a planner to ask and the sides changed since it was last asked (the same question
    gets the same answer)."""
    if not can_consult(scope, book):
        return None
    context = context_for(scope, book, max_hops)
    mark = signature(context)
    if any(entry.get("signature") == mark for entry in scope.leads.asks()):
        return None
    return context


def consult(
    scope: SearchScope, book: LeadBook, max_hops: int | None = None, attempts: int = MAX_ATTEMPTS
) -> int:
    """Ask the planner if it is worth asking now (in at most `attempts` calls); keep its hunches.
    How many new hunches."""
    context = worth_asking(scope, book, max_hops)
    planner = scope.ctx.providers.planner
    if context is None or planner is None:
        return 0
    asked = scope.leads.asks()
    mark = signature(context)
    links = ask_planner(scope, planner, context, attempts, mark)
    scope.leads.record_ask(len(asked), {"signature": mark, "links": len(links or [])})
    return keep_hunches(scope, links or [])


def ask_planner(
    scope: SearchScope, planner: Planner, context: ConnectContext, attempts: int, mark: str
) -> list[ProposedLink] | None:
    """The planner's validated links; with the shared cache, an earlier run's answer to the very
    same request on this photo web (a question asked again) is used instead of paying for it."""
    shared = scope.rules.shared_cache
    if shared and (known := scope.shared.planner_links(mark)) is not None:
        return [ProposedLink.model_validate(link) for link in known]
    links = ask_with_feedback(
        scope,
        attempts,
        lambda feedback: planner.connect(context.model_copy(update={"feedback": feedback})),
        lambda reply: validate_connect(reply, context),
    )
    if shared and links is not None:
        scope.shared.keep_planner_links(mark, [link.model_dump(by_alias=True) for link in links])
    return links


def keep_hunches(scope: SearchScope, links: list[ProposedLink]) -> int:
    added = []
    for link in links:
        a, b = name_key(link.a), name_key(link.b)
        data = {"nameA": link.a, "nameB": link.b, "film": link.film, "confidence": link.confidence}
        if a and b and scope.leads.add_hunch(a, b, {**data, "source": "planner"}):
            added.append(link)
    if added:
        said = "; ".join(
            f"{link.a} might have worked with {link.b}" + (f" ({link.film})" if link.film else "")
            for link in added[:4]
        )
        more = f"; and {len(added) - 4} more" if len(added) > 4 else ""
        scope.status(
            f"Hunches to check with photos: {said}{more}",
            source="planner",
            hunches=[{"a": link.a, "b": link.b, "film": link.film} for link in added],
        )
    return len(added)
