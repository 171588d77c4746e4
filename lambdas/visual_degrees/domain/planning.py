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

from visual_degrees.domain.names import name_key
from visual_degrees.domain.queries import allowed_pair_queries

MAX_NARRATION = 280
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
        key = name_key(raw) if isinstance(raw, str) else ""
        if key not in offered:
            errors.append(f"nextCandidates: {raw!r} is not one of the offered candidates")
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
                f"searchQueries: {q!r} is not a template query for the frontier and a chosen candidate"
            )
        else:
            queries.setdefault(owner, q)
    narration = reply.narration
    if len(narration) > MAX_NARRATION:
        errors.append(f"narration: at most {MAX_NARRATION} characters")
    if any(ch in narration for ch in "<>") or any(ord(ch) < 32 and ch not in "\n\t" for ch in narration):
        errors.append("narration: plain text only (no markup, no control characters)")
    if errors:
        return None, errors
    return Plan(candidates=chosen, queries=queries, narration=narration, source="planner"), []


def fallback_order(candidates: list[CandidateSummary]) -> list[CandidateSummary]:
    """Deterministic order: best confidence, then co-appearance count, then name."""
    return sorted(candidates, key=lambda c: (-c.best_confidence, -c.count, name_key(c.name), c.name))


def fallback_plan(context: PlannerContext) -> Plan:
    ordered = fallback_order(context.candidates)
    return Plan(candidates=[c.name for c in ordered[:MAX_NEXT_CANDIDATES]], source="fallback")


def reply_schema() -> dict[str, Any]:
    """JSON schema of the planner's answer, for providers that take one."""
    return PlannerReply.model_json_schema(by_alias=True)
