"""Turning observed photos into candidates, verified edges and `evidence` events."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from itertools import combinations

from visual_degrees.domain.models import Edge, Evidence, Face
from visual_degrees.domain.paths import edge_id
from visual_degrees.domain.titles import mentions, not_a_portrait
from visual_degrees.search.observe import Observation, Observed, observe
from visual_degrees.search.scope import SearchScope


def search(scope: SearchScope, query: str, *, skip_portraits_of: Collection[str] = ()) -> Observed:
    """observe() as the run's strategy has it: concurrent recognition, the cross-run cache, and (for
    discovery and bridging) no paid recognition of results titled as portraits of those named."""
    rules = scope.rules
    worth = not_a_portrait(list(skip_portraits_of)) if rules.skip_portraits and skip_portraits_of else None
    return observe(scope, query, parallel=rules.parallel_images, shared=rules.shared_cache, worth=worth)


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


def accept_edge(
    scope: SearchScope, a: str, b: str, evidence: Evidence, *, card: bool = True, remember: bool | None = None
) -> Edge:
    """Add a verified co-appearance to the run graph; with `card`, announce its photo (one `evidence`
    event per photo, naming everyone it proves: see announce_photo). Without a card the edge still
    counts; whoever shows it later (S6, a path_update) announces its photo first.

    With the evidence graph, every pair a chain may use (trusted: see run_graph.trusted) is kept for
    later runs, unless `remember` is False (a link read from the graph is not proven again)."""
    edge = Edge(a=a, b=b, name_a=scope.person(a).name, name_b=scope.person(b).name, evidence=evidence)
    if scope.graph.add(edge, vouched=beyond_doubt(scope, edge)) and card:
        announce(scope, edge)
    keep = remember is not False and scope.rules.remember_edges
    if keep and scope.graph.trusted(a, b, scope.rules.strong_confidence):
        scope.known.remember(edge)
    return edge


def beyond_doubt(scope: SearchScope, edge: Edge) -> bool:
    """Does this photo alone settle the pair? Each face is matched at >= the strategy's strong
    confidence, or named by the photo's caption (see confirm.py)."""
    strong = scope.rules.strong_confidence
    if strong is None or edge.evidence.earlier_run:  # the graph keeps only pairs a chain could use
        return True
    ev = edge.evidence
    return all(
        confidence >= strong or mentions(ev.title, name)
        for confidence, name in ((ev.confidence_a, edge.name_a), (ev.confidence_b, edge.name_b))
    )


def announce(scope: SearchScope, edge: Edge) -> None:
    """Show the photo proving `edge` (once per photo: a photo this run recognised is shown naming
    every pair it proves). A link reused from the evidence graph is shown on its own, once per pair:
    the graph keeps a group photo's pairs as separate links, so the card an earlier pair of the
    same photo got names that pair alone."""
    ev = edge.evidence
    people = {
        edge.a: Face(name=edge.name_a, celebrity_id=ev.id_a, confidence=ev.confidence_a),
        edge.b: Face(name=edge.name_b, celebrity_id=ev.id_b, confidence=ev.confidence_b),
    }
    announce_photo(scope, ev, people, pair=edge_id(edge.a, edge.b) if ev.earlier_run else None)


def announce_photo(
    scope: SearchScope, evidence: Evidence, people: dict[str, Face], *, pair: str | None = None
) -> None:
    """One `evidence` event per photo (per `pair` of it, when given): everyone recognised in it at
    >= the threshold, and every pair it proves. The first pair (the strongest) also fills the
    single-pair fields older clients read."""
    keys = sorted(people, key=lambda k: (-people[k].confidence, k))
    links = [
        {
            "fromKey": a,
            "toKey": b,
            "from": scope.person(a).name,
            "to": scope.person(b).name,
            "confidence": round(min(people[a].confidence, people[b].confidence), 2),
        }
        for a, b in combinations(keys, 2)
    ]
    if not links:
        return
    links.sort(key=lambda link: -float(link["confidence"]))  # type: ignore[arg-type]
    first = links[0]
    a, b = str(first["fromKey"]), str(first["toKey"])
    data = {
        "from": first["from"],
        "to": first["to"],
        "fromKey": a,
        "toKey": b,
        "imageUrl": evidence.image_url,
        "pageUrl": evidence.page_url,
        "title": evidence.title,
        "event": evidence.event,
        "confidenceA": people[a].confidence,
        "confidenceB": people[b].confidence,
        "confidence": first["confidence"],
        "query": evidence.query,
        **earlier(evidence),
        "people": [
            {"key": k, "name": scope.person(k).name, "confidence": people[k].confidence} for k in keys
        ],
        "links": links,
    }
    key = f"photo:{photo_key(evidence.image_url)}"
    scope.emit("evidence", data, key=key if pair is None else f"{key}#{pair}")


def earlier(evidence: Evidence) -> dict[str, object]:
    """What an event says of a photo an earlier run proved: that it did, and when."""
    return {"earlierRun": True, "provenAt": evidence.proven_at} if evidence.earlier_run else {}


def photo_key(image_url: str) -> str:
    return hashlib.sha1(image_url.encode("utf-8"), usedforsecurity=False).hexdigest()[:20]


def record(
    scope: SearchScope, observed: Observed, frontier: str | None, focus: Collection[str] | None = ()
) -> None:
    """Count who appears near `frontier` (candidates), and add proven pairs to the run graph.

    With record_all_edges every pair in every photo joins the graph; only photos showing someone of
    `focus` (the people the search was about; None: everyone) get their `evidence` card now, one per
    photo, so the event stream stays readable. A pair shown later (a path, the final chain) has its
    photo announced then.
    """
    record_all = scope.rules.record_all_edges
    for obs in observed.observations:
        people = scope.people(obs.faces)
        if record_all and len(people) > 1:
            shown = focus is None or any(key in focus for key in people)
            for a, b in combinations(sorted(people), 2):
                ev = evidence_of(obs, people[a], people[b])
                accept_edge(scope, a, b, ev, card=False)
            if shown:
                announce_photo(scope, evidence_of(obs, None, next(iter(people.values()))), people)
        if frontier is None or (record_all and frontier not in people):
            continue  # ours counts only proven neighbours; the seed also counts bare sightings
        if not scope.frontier.first_sighting(frontier, obs.sha256):
            continue
        anchor = people.get(frontier)
        for key, face in people.items():
            if key == frontier or key == scope.state.person_a.key:
                continue
            scope.frontier.add_candidate_sighting(
                frontier, scope.person(key), evidence_of(obs, anchor, face), proven=anchor is not None
            )
    scope.graph.flush()


def find_pair(scope: SearchScope, observed: Observed, a: str, b: str) -> Edge | None:
    """The strongest photo among `observed` that shows both a and b at >= threshold, as an edge."""
    best: tuple[float, Evidence] | None = None
    for obs in observed.observations:
        people = scope.people(obs.faces)
        if a in people and b in people:
            ev = evidence_of(obs, people[a], people[b])
            if best is None or ev.strength > best[0]:
                best = (ev.strength, ev)
    if best is None:
        return None
    edge = accept_edge(scope, a, b, best[1])
    scope.graph.flush()
    return edge


def graph_connects(scope: SearchScope) -> bool:
    """Does the run's verified graph already hold a chain A..B within max hops?"""
    if not scope.rules.record_all_edges:
        return False
    state = scope.state
    strong = scope.rules.strong_confidence
    return scope.graph.connects(state.person_a.key, state.person_b.key, scope.options.max_hops, strong)
