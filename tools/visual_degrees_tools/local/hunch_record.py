"""What the planner's hunches came to in one run, read from its memory.

Each hunch the planner gave (a pair it believed had met, with the film it named, if any), whether
the run checked it with a search (the pair's own query, or a chain query naming the two side by
side: leads.pair_searched) and whether a photo proved the pair. It reads only what any run keeps, so
it works for sandbox and live runs alike: of the hunches checked, the share a photo proved is the
planner's precision on those questions (docs/operators.md, "Choosing the planner").
"""

from __future__ import annotations

from typing import Any

from visual_degrees.domain.paths import edge_id
from visual_degrees.lifecycle.run_memory import RunEvidence, RunLeads
from visual_degrees.ports import Memory
from visual_degrees.search.strategies.caption_leads.leads import pair_searched

# Reads write nothing, so the time-to-live given to the memory's views does not matter.
_READ_TTL = 86_400


def planner_hunches(memory: Memory, run_id: str) -> list[dict[str, Any]]:
    """One row per planner hunch: a, b (names), film, confidence, searched, linked."""
    leads = RunLeads(memory, run_id, _READ_TTL)
    queries = [str(page["query"]) for page in leads.pages()]
    linked = {edge_id(edge.a, edge.b) for edge in RunEvidence(memory, run_id, _READ_TTL).edges()}
    rows = []
    for hunch in leads.hunches():
        if hunch.get("source") != "planner":
            continue
        x, y = str(hunch.get("nameA", hunch["a"])), str(hunch.get("nameB", hunch["b"]))
        rows.append(
            {
                "a": x,
                "b": y,
                "film": hunch.get("film", ""),
                "confidence": hunch.get("confidence"),
                "searched": pair_searched(queries, x, y),
                "linked": edge_id(str(hunch["a"]), str(hunch["b"])) in linked,
            }
        )
    return rows


def tally(rows: list[dict[str, Any]]) -> dict[str, int]:
    """How many hunches, how many a search checked, and how many of those a photo proved."""
    return {
        "hunches": len(rows),
        "searched": sum(bool(row["searched"]) for row in rows),
        "searched_and_linked": sum(bool(row["searched"] and row["linked"]) for row in rows),
    }
