"""Turning observed photos into candidates, verified edges and `evidence` events."""

from __future__ import annotations

from itertools import combinations

from visual_degrees.domain.models import Edge, Evidence, Face
from visual_degrees.domain.paths import best_path, edge_id
from visual_degrees.services.observe import Observation, Observed
from visual_degrees.services.scope import RunScope
from visual_degrees.steps.strategy import knobs_for


def evidence_of(obs: Observation, a: Face | None, b: Face) -> Evidence:
    """The photo as evidence for a–b (`a` may be absent: a sighting near the frontier, not a proof)."""
    return Evidence(
        image_url=obs.hit.image_url,
        page_url=obs.hit.page_url,
        title=obs.hit.title,
        sha256=obs.sha256,
        query=obs.query,
        confidence_a=a.confidence if a else 0.0,
        confidence_b=b.confidence,
        id_a=a.celebrity_id if a else "",
        id_b=b.celebrity_id,
        box_a=a.box if a else None,
        box_b=b.box,
    )


def accept_edge(scope: RunScope, a: str, b: str, evidence: Evidence) -> Edge:
    """Add a verified co-appearance to the run graph; announce it the first time the pair is proven."""
    edge = Edge(a=a, b=b, name_a=scope.person(a).name, name_b=scope.person(b).name, evidence=evidence)
    if scope.mem.add_edge(edge):
        scope.emit("evidence", card(edge), key=f"edge:{edge_id(a, b)}")
    return edge


def card(edge: Edge) -> dict[str, object]:
    ev = edge.evidence
    return {
        "from": edge.name_a,
        "to": edge.name_b,
        "fromKey": edge.a,
        "toKey": edge.b,
        "imageUrl": ev.image_url,
        "pageUrl": ev.page_url,
        "title": ev.title,
        "confidenceA": ev.confidence_a,
        "confidenceB": ev.confidence_b,
        "confidence": round(edge.confidence, 2),
        "query": ev.query,
    }


def record(scope: RunScope, observed: Observed, frontier: str | None) -> None:
    """Count who appears near `frontier` (candidates), and add proven pairs to the run graph."""
    record_all = knobs_for(scope.options.strategy).record_all_edges
    for obs in observed.observations:
        people = scope.people(obs.faces)
        if record_all:
            for a, b in combinations(sorted(people), 2):
                accept_edge(scope, a, b, evidence_of(obs, people[a], people[b]))
        if frontier is None or not scope.mem.first_sighting(frontier, obs.sha256):
            continue
        anchor = people.get(frontier)
        for key, face in people.items():
            if key == frontier or key == scope.state.person_a.key:
                continue
            scope.mem.add_candidate_sighting(
                frontier, scope.person(key), evidence_of(obs, anchor, face), proven=anchor is not None
            )


def find_pair(scope: RunScope, observed: Observed, a: str, b: str) -> Edge | None:
    """The strongest photo among `observed` that shows both a and b at >= threshold, as an edge."""
    best: tuple[float, Evidence] | None = None
    for obs in observed.observations:
        people = scope.people(obs.faces)
        if a in people and b in people:
            ev = evidence_of(obs, people[a], people[b])
            if best is None or ev.strength > best[0]:
                best = (ev.strength, ev)
    return accept_edge(scope, a, b, best[1]) if best else None


def graph_connects(scope: RunScope) -> bool:
    """Does the run's verified graph already hold a chain A..B within max hops?"""
    if not knobs_for(scope.options.strategy).record_all_edges:
        return False
    state = scope.state
    return (
        best_path(scope.mem.edges(), state.person_a.key, state.person_b.key, scope.options.max_hops)
        is not None
    )


def budget_flags(scope: RunScope, *observed: Observed) -> dict[str, object]:
    """Which budget (if any) ended this step's spending: a refused reservation or the runtime."""
    exhausted = next((o.exhausted for o in observed if o.exhausted), None)
    if exhausted is None and scope.runtime_exceeded():
        exhausted = "runtime"
    return {"budget_exhausted": exhausted is not None, "exhausted": exhausted}
