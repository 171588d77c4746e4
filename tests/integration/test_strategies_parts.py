"""The default strategy's parts on their own: the run graph's view, title reading, knob switches."""

from __future__ import annotations

import pytest

from visual_degrees.domain import strategy
from visual_degrees.domain.errors import InvalidInput
from visual_degrees.domain.models import Edge, Evidence, RunOptions
from visual_degrees.domain.requests import parse_options
from visual_degrees.domain.titles import names_only
from visual_degrees.lifecycle.run_memory import RunMemory
from visual_degrees.search.run_graph import CHUNK_LINKS, RunGraph
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def edge(a: str, b: str, confidence: float = 90.0) -> Edge:
    ev = Evidence(image_url=f"u/{a}-{b}", confidence_a=99.0, confidence_b=confidence, id_a=a, id_b=b)
    return Edge(a=a, b=b, name_a=a.title(), name_b=b.title(), evidence=ev)


@pytest.fixture
def mem() -> RunMemory:
    return RunMemory(SqliteMemory(":memory:"), "r1", 1800)


def test_the_graph_keeps_the_strongest_photo_per_pair_and_says_when_a_pair_is_new(mem):
    graph = RunGraph(mem.evidence)
    assert graph.add(edge("a", "b", 85.0)) is True
    assert graph.add(edge("b", "a", 84.0)) is False  # weaker, either way round: ignored
    assert graph.add(edge("a", "b", 95.0)) is False  # stronger: kept, but not a new pair
    assert graph.confidence("b", "a") == 95.0
    assert mem.evidence.edge("a", "b").confidence == 95.0  # the evidence item holds the stronger photo


def test_depths_paths_and_connectivity_respect_the_hop_limit(mem):
    graph = RunGraph(mem.evidence)
    for a, b in [("a", "x"), ("x", "y"), ("y", "b"), ("a", "z")]:
        graph.add(edge(a, b))
    assert graph.depths("a", 2) == {"a": 0, "x": 1, "z": 1, "y": 2}
    assert graph.tree_path("a", "b", 3) == ["a", "x", "y", "b"]
    assert graph.tree_path("a", "b", 2) == []
    assert graph.connects("a", "b", 3) and not graph.connects("a", "b", 2)
    assert graph.degree("a") == 2 and len(graph) == 4


def test_a_flushed_graph_is_what_the_next_step_reads_in_bounded_chunks(mem):
    # Given more links than one chunk item holds
    graph = RunGraph(mem.evidence)
    for i in range(CHUNK_LINKS + 50):
        graph.add(edge("hub", f"p{i:04d}"))
    graph.flush()
    # Then a fresh view (the next step) sees every link, stored in items of at most CHUNK_LINKS
    again = RunGraph(mem.evidence)
    assert again.degree("hub") == CHUNK_LINKS + 50
    chunks = mem.evidence.memory.query(mem.evidence.pk, "link#")
    assert len(chunks) == 2 and max(len(c.data["links"]) for c in chunks) <= CHUNK_LINKS
    # And re-adding a pair it already holds (a re-run step) adds nothing
    assert again.add(edge("hub", "p0000")) is False
    assert len(again) == CHUNK_LINKS + 50


def test_a_withdrawn_pair_is_gone_from_the_graph_its_chunks_and_the_run(mem):
    # Given a chain a—x—b in the graph, flushed
    graph = RunGraph(mem.evidence)
    for a, b in [("a", "x"), ("x", "b")]:
        graph.add(edge(a, b))
    graph.flush()
    # When x—b is withdrawn (a reused link whose photo is gone) and the graph flushed
    assert graph.withdraw("b", "x") is True and graph.withdraw("b", "x") is False
    graph.flush()
    # Then no chain uses it, now or in the next step's view, and its evidence item is gone too
    assert not graph.connects("a", "b", 3)
    again = RunGraph(mem.evidence)
    assert again.confidence("x", "b") is None and again.confidence("a", "x") is not None
    assert mem.evidence.edge("x", "b") is None and [e.a for e in mem.evidence.edges()] == ["a"]


def reused(e: Edge) -> Edge:
    """`e` as a link an earlier run proved (from the deployment's graph)."""
    return e.model_copy(update={"evidence": e.evidence.model_copy(update={"earlier_run": True})})


def test_a_pair_the_run_proved_keeps_its_own_photo_over_a_stronger_reused_link_which_only_vouches(mem):
    # Given a—b proven by the run on one weak photo (not vouched)
    graph = RunGraph(mem.evidence)
    graph.add(edge("a", "b", 85.0), vouched=False)
    assert not graph.trusted("a", "b", 90.0)
    # When a stronger link for the pair is reused from an earlier run
    assert graph.add(reused(edge("a", "b", 99.0))) is False
    # Then the run's own photo stays the pair's evidence, and the reused one vouches for the pair
    held = mem.evidence.edge("a", "b")
    assert held is not None and not held.evidence.earlier_run and held.confidence == 85.0
    assert graph.confidence("a", "b") == 85.0 and graph.trusted("a", "b", 90.0)


def test_a_pair_held_as_a_reused_link_takes_the_runs_own_proof_whatever_its_confidence(mem):
    # Given a—b held as a link reused from an earlier run
    graph = RunGraph(mem.evidence)
    graph.add(reused(edge("a", "b", 99.0)))
    graph.flush()
    # When the run proves the pair itself on a weaker photo (in a later step)
    again = RunGraph(mem.evidence)
    assert again.add(edge("a", "b", 85.0)) is False
    # Then its own proof is the pair's evidence (it needs no re-check), and no reused one replaces it
    assert again.add(reused(edge("a", "b", 99.5))) is False
    held = mem.evidence.edge("a", "b")
    assert held is not None and not held.evidence.earlier_run and held.confidence == 85.0
    assert again.confidence("a", "b") == 85.0


@pytest.mark.parametrize(
    ("title", "alone"),
    [
        ("Ann Lee at the premiere of Film (2001)", True),
        ("Ann Lee on the set of Film (2001)", True),
        ("Ann Lee and Cat Wu at the premiere of Film (2001)", False),
        ("Ann Lee with Cat Wu on the red carpet", False),
        ("Cat Wu, Ann Lee and guests at the Gala", False),
        ("The cast of Film (2001) at its premiere: Ann Lee, Cat Wu and others", False),
        ("Ann Lee at the premiere of Bread and Roses (2000)", False),  # unsure: recognised
        ("Ann Lee cast", False),
        ("Annabel Lee at the premiere of Film (2001)", False),
        ("", False),
    ],
)
def test_only_a_title_that_reads_as_a_portrait_of_the_person_is_skipped(title, alone):
    assert names_only(title, ["Ann Lee"]) is alone


def test_knob_switches_are_parsed_checked_and_undone():
    assert strategy.parse_knob_changes("both_ends=off, planner_ranking=on") == {
        "both_ends": False,
        "planner_ranking": True,
    }
    with pytest.raises(InvalidInput, match="name=on or name=off"):
        strategy.parse_knob_changes("both_ends")
    with pytest.raises(InvalidInput, match="unknown strategy knob"):
        strategy.with_changes("default", {"telepathy": True})
    with pytest.raises(InvalidInput, match="both_ends and caption_leads need record_all_edges"):
        strategy.with_changes("default", {"record_all_edges": False})
    # A run's switches live in its options: validated there, resolved per run, the table untouched
    switched = RunOptions(knobs={"both_ends": False})
    assert switched.resolved_knobs().both_ends is False
    assert RunOptions().resolved_knobs() == strategy.KNOBS["default"]
    assert RunOptions(strategy="seed").resolved_knobs() == strategy.KNOBS["seed"]
    assert strategy.KNOBS["default"].both_ends is True
    with pytest.raises(InvalidInput, match="unknown strategy knob"):
        parse_options({"knobs": {"telepathy": True}})
    with pytest.raises(InvalidInput, match="both_ends and caption_leads need record_all_edges"):
        parse_options({"knobs": {"record_all_edges": False}})
    # Unswitched options serialise as they always did (payloads, events and meta unchanged)
    assert "knobs" not in RunOptions().dump()
    assert switched.dump()["knobs"] == {"both_ends": False}
    assert RunOptions.model_validate(switched.dump()) == switched
