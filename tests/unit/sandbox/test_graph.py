from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from visual_degrees_tools.sandbox.graph import Graph

edges = st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=40)


def build(pairs: list[tuple[int, int]]) -> Graph:
    adjacency: list[set[int]] = [set() for _ in range(15)]
    for a, b in pairs:
        if a != b:
            adjacency[a].add(b)
            adjacency[b].add(a)
    return Graph(adjacency)


@settings(max_examples=200)
@given(edges, st.integers(0, 14), st.integers(0, 14))
def test_bidirectional_distance_equals_plain_breadth_first_search(pairs, a, b):
    graph = build(pairs)
    assert graph.distance(a, b) == graph.distances_from(a).get(b)
    expected = graph.distances_from(a).get(b)
    limited = graph.distance(a, b, limit=2)
    assert limited == (expected if expected is not None and expected <= 2 else None)


@given(edges)
def test_components_partition_the_connected_people(pairs):
    graph = build(pairs)
    groups = graph.components()
    members = [p for g in groups for p in g]
    assert len(members) == len(set(members)) == sum(1 for n in graph.adjacency if n)
    assert [len(g) for g in groups] == sorted((len(g) for g in groups), reverse=True)
    for group in groups:
        reach = graph.distances_from(group[0])
        assert set(reach) == set(group)
    assert all(graph.has_edge(a, b) == (b in graph.neighbors(a)) for a in range(15) for b in range(15))
