import itertools
import json

import pytest

from visual_degrees.constants import MAX_EVENT_BYTES
from visual_degrees.domain.models import Edge, Evidence
from visual_degrees.domain.paths import (
    GRAPH_BYTES,
    GRAPH_EDGES,
    best_path,
    bottleneck,
    cumulative,
    final_payload,
    graph_summary,
)


def edge(a: str, b: str, ca: float, cb: float) -> Edge:
    ev = Evidence(image_url=f"https://img/{a}{b}.jpg", confidence_a=ca, confidence_b=cb)
    return Edge(a=a, b=b, name_a=a.upper(), name_b=b.upper(), evidence=ev)


def test_shortest_chain_wins_and_ties_go_to_the_strongest_bottleneck():
    edges = [
        edge("a", "x", 99, 99),
        edge("x", "b", 85, 99),  # 2 hops, bottleneck 85
        edge("a", "y", 97, 96),
        edge("b", "y", 95, 99),  # 2 hops, bottleneck 95 (stored b->y)
        edge("a", "p", 99, 99),
        edge("p", "q", 99, 99),
        edge("q", "b", 99, 99),  # 3 hops
    ]
    chain = best_path(edges, "a", "b", max_hops=6)
    assert chain is not None
    assert [(e.a, e.b) for e in chain] == [("a", "y"), ("y", "b")]
    # the reversed edge is read from y's side: its confidences swap with it
    assert chain[1].evidence.confidence_a == 99 and chain[1].evidence.confidence_b == 95


def test_no_chain_beyond_max_hops():
    edges = [edge("a", "p", 99, 99), edge("p", "q", 99, 99), edge("q", "b", 99, 99)]
    assert best_path(edges, "a", "b", max_hops=2) is None
    assert best_path(edges, "a", "b", max_hops=3) is not None


def test_confidence_math_per_edge_bottleneck_and_cumulative():
    chain = [edge("a", "x", 90, 99), edge("x", "b", 99, 80)]
    assert [e.confidence for e in chain] == [90, 80]
    assert bottleneck(chain) == 80
    assert cumulative(chain) == pytest.approx(0.9 * 0.8)
    payload = final_payload(chain, chain, {"a": "Ann", "x": "Xu", "b": "Bo"})
    assert payload["path"] == ["A", "X", "B"]
    assert payload["bottleneckConfidence"] == 80
    assert payload["cumulativeConfidence"] == pytest.approx(0.72)
    assert payload["edges"][0]["evidence"]["imageUrl"] == "https://img/ax.jpg"
    assert {n["name"] for n in payload["graph"]["nodes"]} == {"Ann", "Xu", "Bo"}
    # And the answer says what a photo shows, and does not
    assert payload["caveat"] == "A photo shows two people in the same place, not a relationship."


# ---- the bounded graph summary (issue 9.4) --------------------------------------------------------

LONG = "of the Northern Isles and the Lesser Saltmarsh " * 3


def crowd(photos: int, long_names: bool) -> tuple[list[Edge], dict[str, str]]:
    """Photos of 12 people each (11 strangers and one person of the previous photo): 66 links a photo."""
    edges, names, previous = [], {}, "p00000"
    for photo in range(photos):
        people = [previous] + [f"p{photo * 11 + i + 1:05d}" for i in range(11)]
        for key in people:
            names[key] = (f"Person {key} {LONG}" if long_names else f"Person {key}")[:100]
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                ev = Evidence(
                    image_url=f"https://img/{photo}.jpg", confidence_a=99.0, confidence_b=90 + photo % 10
                )
                edges.append(Edge(a=a, b=b, name_a=names[a], name_b=names[b], evidence=ev))
        previous = people[-1]
    return edges, names


def size(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


@pytest.mark.parametrize("long_names", [False, True])
def test_the_summary_of_the_ceilings_largest_graph_stays_within_its_bytes(long_names):
    # Given the graph of 600 recognitions (the default ceiling) of 12 faces: 39,600 links
    edges, names = crowd(600, long_names)
    assert len(edges) == 39_600
    # When it is summarised around a chain
    summary = graph_summary(edges, names, ["p00000", "p00011", "p00022"])
    # Then it fits its byte budget, keeps the chain's people, and counts the rest exactly
    assert size(summary) <= GRAPH_BYTES
    kept = {n["id"] for n in summary["nodes"]}
    assert {"p00000", "p00011", "p00022"} <= kept
    assert len(kept) + summary["truncated"]["nodes"] == len(names)
    assert len(summary["edges"]) + summary["truncated"]["edges"] == len(edges)
    # With names of a usual length it draws as many links as the page is made for; with 100-character
    # names, fewer but still the chain's and a hundred more
    assert len(summary["edges"]) == GRAPH_EDGES if not long_names else len(summary["edges"]) >= 100


def test_the_chains_links_come_first_then_those_touching_it_strongest_first():
    edges, names = crowd(3, long_names=False)
    chain = ["p00000", "p00011", "p00022"]
    summary = graph_summary(edges, names, chain, max_edges=30)
    first = summary["edges"][:2]
    assert {(e["source"], e["target"]) for e in first} == {("p00000", "p00011"), ("p00011", "p00022")}
    touching = [any(k in chain for k in (e["source"], e["target"])) for e in summary["edges"]]
    assert touching == sorted(touching, reverse=True)


def test_a_final_at_the_longest_chain_with_the_largest_graph_fits_one_message():
    # Given a 10-hop chain (the most maxHops allows) whose evidence is as long as providers make it
    edges, names = crowd(600, long_names=True)
    keys = [f"c{i:02d}" for i in range(11)]
    for key in keys:
        names[key] = f"Chain person {key} {LONG}"[:100]
    url = "https://images.example.org/" + "x" * 1_000
    chain = [
        Edge(
            a=a,
            b=b,
            name_a=names[a],
            name_b=names[b],
            evidence=Evidence(
                image_url=url, page_url=url, title="t" * 500, query="q" * 300, sha256="f" * 64,
                confidence_a=99.0, confidence_b=95.0, id_a="i" * 30, id_b="j" * 30,
            ),
        )
        for a, b in itertools.pairwise(keys)
    ]  # fmt: skip
    payload = final_payload(chain, [*chain, *edges], names)
    # Then the event's data fits with the room the ending writer keeps for the event around it
    assert size(payload) <= MAX_EVENT_BYTES - 1024
    assert len(payload["edges"]) == 10 and all(e["evidence"]["imageUrl"] == url for e in payload["edges"])
    assert payload["graph"]["edges"][:10] == [
        {"source": a, "target": b, "confidence": 95.0} for a, b in itertools.pairwise(keys)
    ]
