"""What the planner (an LLM) is asked, what it may answer, how we check it, and the fallback.

The planner only orders candidates it was offered and picks queries from our templates; anything
else is a validation error fed back to it, and after bounded attempts the deterministic fallback
decides. Names reach the planner as data (see `PlannerContext.as_prompt_data`).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.names import MAX_NAME_LENGTH, name_key, validate_name
from visual_degrees.domain.queries import allowed_pair_queries
from visual_degrees.domain.shown_text import shown_text

MAX_NARRATION = 280
MAX_QUOTED = 60  # characters of a refused value quoted back to the planner
PLAIN_TEXT = "plain words only (no markup, links, phone numbers, control or direction characters)"
MAX_NEXT_CANDIDATES = 5
MAX_QUERIES = 5


class _Wire(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class CandidateSummary(_Wire):
    name: str
    count: int = Field(ge=0)
    best_confidence: float = Field(ge=0, le=100)


class PlannerContext(_Wire):
    target: str
    frontier: str
    path: list[str] = Field(default_factory=list)
    candidates: list[CandidateSummary]
    remaining_searches: int = 0
    feedback: list[str] = Field(default_factory=list)

    def as_prompt_data(self) -> str:
        """The context as one JSON document: the prompt quotes it, never interpolates names into prose."""
        return json.dumps(self.model_dump(by_alias=True, exclude={"feedback"}), ensure_ascii=False)


class PlannerReply(_Wire):
    """The LLM's answer (also the Gemini response schema). Token counts are filled by the adapter."""

    next_candidates: list[str] = Field(default_factory=list)
    search_queries: list[str] = Field(default_factory=list)
    narration: str = ""
    tokens_in: int = Field(default=0, exclude=True)
    tokens_out: int = Field(default=0, exclude=True)


class Plan(_Wire):
    """A validated plan: candidates in the order to try, each with the query to verify it."""

    candidates: list[str]  # display names, all from the context
    queries: dict[str, str] = Field(default_factory=dict)  # candidate name -> verification query
    narration: str = ""
    source: str = "fallback"  # "planner" or "fallback"


def validate_reply(reply: PlannerReply, context: PlannerContext) -> tuple[Plan | None, list[str]]:
    """A Plan when the reply is acceptable, else the list of problems (fed back to the planner)."""
    offered = {name_key(c.name): c.name for c in context.candidates}
    errors: list[str] = []
    chosen: list[str] = []
    for raw in reply.next_candidates[: MAX_NEXT_CANDIDATES + 1]:
        key = name_key(raw) if isinstance(raw, str) and len(raw) <= MAX_NAME_LENGTH else ""
        if key not in offered:
            errors.append(f"nextCandidates: {quoted(raw)} is not one of the offered candidates")
        elif offered[key] not in chosen:
            chosen.append(offered[key])
    if not reply.next_candidates:
        errors.append("nextCandidates: choose at least one of the offered candidates")
    if len(reply.next_candidates) > MAX_NEXT_CANDIDATES:
        errors.append(f"nextCandidates: at most {MAX_NEXT_CANDIDATES} names")
    if len(reply.search_queries) > MAX_QUERIES:
        errors.append(f"searchQueries: at most {MAX_QUERIES} queries")
    queries: dict[str, str] = {}
    for q in reply.search_queries[:MAX_QUERIES]:
        owner = next((c for c in chosen if q in allowed_pair_queries(context.frontier, c)), None)
        if owner is None:
            errors.append(
                f"searchQueries: {quoted(q)} is not a template query for the frontier and a chosen candidate"
            )
        else:
            queries.setdefault(owner, q)
    narration = reply.narration
    if len(narration) > MAX_NARRATION:
        errors.append(f"narration: at most {MAX_NARRATION} characters")
    elif (shown := shown_text(narration, MAX_NARRATION)) is None:
        errors.append(f"narration: {PLAIN_TEXT}")
    elif echoes(shown, context.as_prompt_data()):
        errors.append("narration: say why in your own words; do not repeat the data")
    if errors:
        return None, errors
    return Plan(candidates=chosen, queries=queries, narration=shown, source="planner"), []


def fallback_order(candidates: list[CandidateSummary]) -> list[CandidateSummary]:
    """Deterministic order: best confidence, then co-appearance count, then name."""
    return sorted(candidates, key=lambda c: (-c.best_confidence, -c.count, name_key(c.name), c.name))


def fallback_plan(context: PlannerContext) -> Plan:
    ordered = fallback_order(context.candidates)
    return Plan(candidates=[c.name for c in ordered[:MAX_NEXT_CANDIDATES]], source="fallback")


def reply_schema() -> dict[str, Any]:
    """JSON schema of the planner's answer, for providers that take one."""
    return PlannerReply.model_json_schema(by_alias=True)


# ---- matching the two sides: which pairs met, and who connects them ------------------------------

MAX_SIDE = 20  # people of each side shown to the planner
MAX_LINKS = 12  # pairs one answer may propose
MAX_NAME = 100
MAX_FILM = 120


class SidePerson(_Wire):
    name: str
    distance: int = Field(ge=0)  # links/leads from their end (0: the end itself)
    photos_seen: int = Field(default=0, ge=0)  # titles read so far that name them


class ConnectContext(_Wire):
    """Two sides of a meet-in-the-middle search: the planner is asked which people of A's side and
    of B's side met, worked or were photographed together, and through whom (people nobody has seen
    yet may be named: they are only ever searched for, never taken as links)."""

    person_a: str
    person_b: str
    side_a: list[SidePerson]
    side_b: list[SidePerson]
    unseen: list[str] = Field(default_factory=list)  # ends no photo has shown with anyone yet
    failed: list[list[str]] = Field(default_factory=list)  # pairs no photo could prove
    max_hops: int = Field(default=6, ge=1, le=10)  # the longest chain the run accepts
    remaining_searches: int = 0
    feedback: list[str] = Field(default_factory=list)

    def as_prompt_data(self) -> str:
        return json.dumps(self.model_dump(by_alias=True, exclude={"feedback"}), ensure_ascii=False)

    def offered(self) -> dict[str, str]:
        people = [
            self.person_a,
            self.person_b,
            *(p.name for p in self.side_a),
            *(p.name for p in self.side_b),
        ]
        return {name_key(n): n for n in people}


class ProposedLink(_Wire):
    a: str
    b: str
    film: str = ""  # where they met, if the planner says
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)


class ConnectReply(_Wire):
    """The planner's answer: pairs it believes met (a route between the sides, or a direct match)."""

    links: list[ProposedLink] = Field(default_factory=list)
    narration: str = ""
    tokens_in: int = Field(default=0, exclude=True)
    tokens_out: int = Field(default=0, exclude=True)


ECHO_CHARS = 40  # a narration sharing this many characters in a row with the prompt data echoes it


def echoes(text: str, prompt: str) -> bool:
    """Does `text` repeat a stretch of the prompt's data (beyond the names it may quote)?"""
    return any(text[i : i + ECHO_CHARS] in prompt for i in range(max(0, len(text) - ECHO_CHARS + 1)))


def validate_connect(
    reply: ConnectReply, context: ConnectContext
) -> tuple[list[ProposedLink] | None, list[str]]:
    """The usable links (names spelled as offered where they were), else the problems to feed back.

    A link needs two different plausible names, one of them offered or shared with another link (a
    route has to start where the run stands)."""
    offered = context.offered()
    errors: list[str] = []
    if len(reply.links) > MAX_LINKS:
        errors.append(f"links: at most {MAX_LINKS}")
    cleaned: list[ProposedLink] = []
    for i, link in enumerate(reply.links[:MAX_LINKS]):
        a, b = hunch_name(link.a, f"links[{i}].a"), hunch_name(link.b, f"links[{i}].b")
        film = shown_text(link.film, MAX_FILM) if link.film else ""
        if isinstance(a, InvalidInput) or isinstance(b, InvalidInput):
            errors.extend(problem.message for problem in (a, b) if isinstance(problem, InvalidInput))
        elif film is None:
            errors.append(f"links[{i}].film: at most {MAX_FILM} characters of {PLAIN_TEXT}")
        elif name_key(a) == name_key(b):
            errors.append(f"links[{i}]: a and b must be two different people")
        else:
            a, b = offered.get(name_key(a), a), offered.get(name_key(b), b)
            cleaned.append(ProposedLink(a=a, b=b, film=film, confidence=link.confidence))
    mentions: dict[str, int] = {}
    for link in cleaned:
        for person in (link.a, link.b):
            mentions[name_key(person)] = mentions.get(name_key(person), 0) + 1
    for link in cleaned:
        keys = (name_key(link.a), name_key(link.b))
        if not any(k in offered or mentions[k] > 1 for k in keys):
            errors.append(
                f"links: {link.a} — {link.b} involves nobody offered and chains on to no other pair"
            )
    if (narration := shown_text(reply.narration, MAX_NARRATION)) is None:
        errors.append(f"narration: at most {MAX_NARRATION} characters of {PLAIN_TEXT}")
    elif echoes(narration, context.as_prompt_data()):
        errors.append("narration: say why in your own words; do not repeat the data")
    if errors:
        return None, errors
    return cleaned, []


def hunch_name(raw: str, field: str) -> str | InvalidInput:
    """A name a hunch proposes, held to the rules of a user's name (domain/names.validate_name) and
    shown only as plain words of at most MAX_NAME characters; else the problem, to feed back."""
    try:
        name = validate_name(raw, field=field)
    except InvalidInput as exc:
        return exc
    shown = shown_text(name, MAX_NAME)
    if shown is None or not any(ch.isalpha() for ch in shown):
        return InvalidInput(f"{field}: a person's name of at most {MAX_NAME} characters of {PLAIN_TEXT}")
    return shown


def quoted(value: object) -> str:
    """A refused value as fed back to the planner: its start only (a reply may be any length)."""
    text = value if isinstance(value, str) else repr(value)
    return repr(text[:MAX_QUOTED] + ("…" if len(text) > MAX_QUOTED else ""))
