"""Choosing whom of the evidence graph to offer the planner for a new end, reading its guesses, and
which page read counts as the pair's own (caption_leads/graph_link.py), on hand-built graphs."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace
from typing import Any

from visual_degrees.domain.graph_links import GraphLink
from visual_degrees.domain.models import Edge, Evidence, Person, RunOptions
from visual_degrees.domain.planning import ProposedLink
from visual_degrees.lifecycle.evidence_graph import KnownLinks, MemoryGraphStore
from visual_degrees.search.known_edges import new_and_known
from visual_degrees.search.strategies.caption_leads import graph_link
from visual_degrees.search.strategies.caption_leads.graph_link import candidates, guesses, page_of_pair
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def graph(*pairs: str) -> KnownLinks:
    """A graph of links "a-b" (one-letter people named A, B, ...)."""
    store = MemoryGraphStore(SqliteMemory(":memory:"))
    for pair in pairs:
        a, b = sorted(pair.split("-"))
        store.add(
            "web",
            GraphLink(
                a=a,
                b=b,
                name_a=a.upper(),
                name_b=b.upper(),
                id_a=f"id-{a}",
                id_b=f"id-{b}",
                confidence_a=99.0,
                confidence_b=99.0,
                image_url=f"u/{a}-{b}",
                proven_at=0.0,
            ),
        )
    return KnownLinks(store, "web", clock=SimpleNamespace(now=lambda: 0.0), run_id="r")  # type: ignore[arg-type]


def scope_on(known: KnownLinks, max_hops: int = 6, *, kept_out: tuple[str, ...] = ()) -> SimpleNamespace:
    """A step's scope over `known`, the links "a-b" of `kept_out` kept out of its run."""
    out = {frozenset(pair.split("-")) for pair in kept_out}
    run_graph = SimpleNamespace(kept_out=lambda a, b: frozenset((a, b)) in out)
    return SimpleNamespace(known=known, options=RunOptions(max_hops=max_hops), graph=run_graph)


def test_candidates_are_the_best_linked_first_then_the_nearest_without_the_end_itself() -> None:
    # b's neighbours c, d, e; h is linked to all three, i to c alone
    known = graph("b-c", "b-d", "b-e", "c-h", "d-h", "e-h", "c-i")
    people = candidates(scope_on(known), "b")  # type: ignore[arg-type]
    # Then the hub h, two links away, comes before d and e, which only b and h link to
    assert [(p.name, p.distance) for p in people] == [("C", 1), ("H", 2), ("D", 1), ("E", 1), ("I", 2)]


def test_candidates_stay_where_a_chain_through_them_fits_within_max_hops() -> None:
    # A chain new—X—…—b has one link more than X—…—b: with 3 hops, X is at most 2 links from b
    known = graph("b-c", "c-d", "d-e", "e-f")
    people = candidates(scope_on(known, max_hops=3), "b")  # type: ignore[arg-type]
    assert [p.name for p in people] == ["C", "D"]


def test_candidates_are_bounded_by_the_adjacency_reads_and_the_offer(monkeypatch) -> None:
    known = graph(*(f"b-x{i:02d}" for i in range(30)), *(f"x00-y{i:02d}" for i in range(30)))
    monkeypatch.setattr(graph_link, "CANDIDATES", 10)
    people = candidates(scope_on(known), "b")  # type: ignore[arg-type]
    # x00, linked to most of the people read, first; then b's other neighbours before anyone further
    assert len(people) == 10 and people[0].name == "X00" and all(p.distance == 1 for p in people)


def test_candidates_are_not_read_through_a_link_the_run_kept_out() -> None:
    # Given b — c — d — e, and c — d kept out of the run (its photo did not resolve when re-checked)
    known = graph("b-c", "c-d", "d-e", "b-f")
    # When the planner's candidates are chosen for b
    people = candidates(scope_on(known, kept_out=("d-c",)), "b")  # type: ignore[arg-type]
    # Then no one is offered by way of c — d: only b's side of it
    assert [p.name for p in people] == ["C", "F"]


def test_guesses_are_the_candidates_the_new_end_met_nearest_the_known_end_first() -> None:
    links = [
        ProposedLink(a="New", b="Far", confidence=0.9),
        ProposedLink(a="Near", b="New", confidence=0.6),
        ProposedLink(a="New", b="Stranger", confidence=0.9),  # not of the graph
        ProposedLink(a="Near", b="Far", confidence=0.9),  # not about the new end
    ]
    assert guesses(links, "new", {"far": 3, "near": 1}) == ["near", "far"]


def test_the_pairs_own_page_counts_and_so_does_one_that_starts_with_the_pair() -> None:
    assert page_of_pair({"A B": 200, "A B C": 200}, "A B", "B A") == ("A B", 200)
    assert page_of_pair({"B A C": 150}, "A B", "B A") == ("B A C", 150)
    assert page_of_pair({"C A B": 200, "A Bo": 3}, "A B", "B A") is None


class CountingStore:
    """A graph store that counts the adjacency reads made of each person."""

    def __init__(self, store: Any) -> None:
        self.store, self.reads = store, Counter[str]()

    def neighbours(self, web: str, key: str, limit: int | None = None) -> Any:
        self.reads[key] += 1
        return self.store.neighbours(web, key, limit)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


def test_which_end_is_new_is_read_once_a_step_and_follows_what_the_step_remembers_and_forgets() -> None:
    # Given a graph holding b — c, and a step of the question n — b (n new to it)
    known = graph("b-c")
    store = CountingStore(known.store)
    known.store = store  # type: ignore[assignment]
    state = SimpleNamespace(person_a=Person(key="n", name="N"), person_b=Person(key="b", name="B"))
    scope = SimpleNamespace(known=known, state=state)
    # When S1's titles and the planner's guess both ask which end is new
    asked = [new_and_known(scope) for _ in range(2)]  # type: ignore[arg-type]
    # Then both hear n, and the graph was read once for each end
    assert [(new.key, other.key) for new, other in filter(None, asked)] == [("n", "b"), ("n", "b")]
    assert store.reads == Counter({"n": 1, "b": 1})
    # And once the step proves n — c, neither end is new; once it forgets it, n is again, read anew
    ev = Evidence(image_url="u/c-n", confidence_a=99.0, confidence_b=99.0)
    known.remember(Edge(a="c", b="n", name_a="C", name_b="N", evidence=ev))
    assert new_and_known(scope) is None  # type: ignore[arg-type]
    known.forget("c", "n")
    found = new_and_known(scope)  # type: ignore[arg-type]
    assert found is not None and found[0].key == "n" and store.reads["n"] == 2
