import pytest

from visual_degrees.domain.models import Edge, Evidence
from visual_degrees.domain.paths import best_path, bottleneck, cumulative, final_payload


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
