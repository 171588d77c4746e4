"""The evidence graph's contract (ports.GraphStore): the same observable behaviour on SQLite (a file
and in memory: what `run` and `serve` use) and on DynamoDB (through moto, a table of its own)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.memory_fixtures import START, ManualClock
from tests.support.memory_fixtures import any_memory as any_memory  # the `memory` fixture
from tests.support.memory_fixtures import manual_clock as manual_clock  # `clock`
from tests.support.memory_fixtures import shared_moto_client as shared_moto_client  # `moto_client`
from visual_degrees.domain.graph_links import GraphLink
from visual_degrees.domain.models import BoundingBox, Edge, Evidence
from visual_degrees.lifecycle.evidence_graph import DAY_SECONDS, MemoryGraphStore
from visual_degrees.ports import Memory

WEB = "sandbox:cast.G#seed=0#web=realistic"


@pytest.fixture
def graph(memory: Memory) -> MemoryGraphStore:
    return MemoryGraphStore(memory, retention_days=180)


def link(
    a: str, b: str, confidence: float = 95.0, *, image: str = "https://p/1.jpg", at: float = START
) -> GraphLink:
    evidence = Evidence(
        image_url=image,
        page_url=image + ".html",
        title=f"{a} and {b}",
        sha256="ab" * 32,
        confidence_a=confidence,
        confidence_b=99.0,
        id_a=f"id-{a}",
        id_b=f"id-{b}",
        box_a=BoundingBox(left=0.1, top=0.1, width=0.2, height=0.2),
        box_b=BoundingBox(left=0.5, top=0.1, width=0.2, height=0.2),
    )
    edge = Edge(a=a, b=b, name_a=a.title(), name_b=b.title(), evidence=evidence)
    return GraphLink.of(edge, proven_at=at, run_id="run-1")


def test_a_link_is_read_from_either_end(graph: MemoryGraphStore) -> None:
    # Given a link proven between ann and bob (stored as bob–ann's photo)
    graph.add(WEB, link("bob", "ann"))
    # When it is read in either order, and from either person's adjacency
    forward, backward = graph.link(WEB, "ann", "bob"), graph.link(WEB, "bob", "ann")
    # Then it is one link, oriented once, with its photo, ids and proven date
    assert forward == backward and forward is not None
    assert (forward.a, forward.b, forward.id_a, forward.id_b) == ("ann", "bob", "id-ann", "id-bob")
    assert forward.confidence_a == 99.0 and forward.confidence_b == 95.0  # the halves swapped with it
    assert forward.image_url == "https://p/1.jpg" and forward.proven_at == START
    assert [n.key for n in graph.neighbours(WEB, "ann")] == ["bob"]
    assert [(n.key, n.name, n.confidence) for n in graph.neighbours(WEB, "bob")] == [("ann", "Ann", 95.0)]


def test_no_face_data_is_stored(graph: MemoryGraphStore, memory: Memory) -> None:
    # Given a link whose evidence had face boxes
    graph.add(WEB, link("ann", "bob"))
    # When the items are read raw
    stored = json.dumps([i.data for i in _all_items(memory, "ann", "bob")])
    # Then no box (nor any face geometry) is kept: ids, confidences and the photo's address only
    assert "box" not in stored.lower() and "left" not in stored and "width" not in stored
    assert "id-ann" in stored and "https://p/1.jpg" in stored


def test_the_stronger_photo_of_a_pair_holds(graph: MemoryGraphStore) -> None:
    # Given a strong photo of a pair, then a weaker one, then a stronger one
    graph.add(WEB, link("ann", "bob", 97.0, image="https://p/strong.jpg"))
    graph.add(WEB, link("ann", "bob", 85.0, image="https://p/weak.jpg"))
    kept = graph.link(WEB, "ann", "bob")
    graph.add(WEB, link("ann", "bob", 98.0, image="https://p/best.jpg"))
    # Then the weaker never replaces the stronger, and a stronger one does
    assert kept is not None and kept.image_url == "https://p/strong.jpg"
    best = graph.link(WEB, "ann", "bob")
    assert best is not None and best.image_url == "https://p/best.jpg"
    assert [n.confidence for n in graph.neighbours(WEB, "ann")] == [98.0]


def test_photo_webs_never_share_links(graph: MemoryGraphStore) -> None:
    # Given a link proven on one photo web
    graph.add(WEB, link("ann", "bob"))
    # Then another web (another seed of the same world, or the live web) does not hold it
    for other in ("sandbox:cast.G#seed=1#web=realistic", "live"):
        assert graph.link(other, "ann", "bob") is None and graph.neighbours(other, "ann") == []


def test_links_expire_after_the_retention(graph: MemoryGraphStore, clock: ManualClock) -> None:
    # Given two links proven now, one of them proven again 100 days later
    graph.add(WEB, link("ann", "bob"))
    graph.add(WEB, link("ann", "cy"))
    clock.advance(100 * DAY_SECONDS)
    graph.add(WEB, link("ann", "cy", at=START + 100 * DAY_SECONDS))
    # When 180 days have passed since the first proof
    clock.advance(80 * DAY_SECONDS + 1)
    # Then the link not proven again is gone from every read, and the renewed one is kept
    assert graph.link(WEB, "ann", "bob") is None
    assert [n.key for n in graph.neighbours(WEB, "ann")] == ["cy"] and graph.neighbours(WEB, "bob") == []
    renewed = graph.link(WEB, "ann", "cy")
    assert renewed is not None and renewed.proven_at == START + 100 * DAY_SECONDS


def test_the_retention_is_the_operators(memory: Memory, clock: ManualClock) -> None:
    # Given a store kept 7 days, and one with a nonsensical retention
    graph = MemoryGraphStore(memory, retention_days=7)
    graph.add(WEB, link("ann", "bob"))
    # Then a link lives 7 days, and a retention under a day is refused with its value
    clock.advance(7 * DAY_SECONDS - 1)
    assert graph.link(WEB, "ann", "bob") is not None
    clock.advance(2)
    assert graph.link(WEB, "ann", "bob") is None
    with pytest.raises(ValueError, match="at least one day, got 0"):
        MemoryGraphStore(memory, retention_days=0)


def test_a_forgotten_link_is_gone_from_both_ends(graph: MemoryGraphStore) -> None:
    # Given two links of ann, one of which is forgotten (its photo no longer shows them)
    graph.add(WEB, link("ann", "bob"))
    graph.add(WEB, link("ann", "cy"))
    graph.forget(WEB, "bob", "ann")
    # Then it is in no read, and the other link is untouched
    assert graph.link(WEB, "ann", "bob") is None and graph.neighbours(WEB, "bob") == []
    assert [n.key for n in graph.neighbours(WEB, "ann")] == ["cy"]


def test_a_hub_grows_no_item(graph: MemoryGraphStore, memory: Memory) -> None:
    # Given a person linked to 300 others
    for n in range(300):
        graph.add(WEB, link("hub", f"p{n:03d}", image=f"https://p/{n}.jpg"))
    # When their adjacency is read whole and in part
    every, first = graph.neighbours(WEB, "hub"), graph.neighbours(WEB, "hub", limit=10)
    # Then every neighbour is there, a limit reads only so many, and no item grew with the hub
    assert len(every) == 300 and [n.key for n in first] == [f"p{n:03d}" for n in range(10)]
    biggest = max(len(json.dumps(i.data)) for i in _all_items(memory, "hub", "p299"))
    assert biggest < 1024


def _all_items(memory: Memory, a: str, b: str) -> list[Any]:
    from visual_degrees.lifecycle.evidence_graph import _link_pk, web_digest

    w = web_digest(WEB)
    return [
        *memory.query(_link_pk(w, a, b)),
        *memory.query(f"graph#{w}#adj#{a}"),
        *memory.query(f"graph#{w}#adj#{b}"),
    ]
