"""scripts/provable_gaps.py: the links a pair's own query reaches, added to the provable graph."""

from __future__ import annotations

import json

import pytest

from tests.support.scripts import load_script
from visual_degrees_tools.bench.pairs import sample_pairs
from visual_degrees_tools.sandbox import load_world, photo_web
from visual_degrees_tools.sandbox.ground_truth import ground_truth, recognised_in
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox.synthetic import default_world_path

gaps = load_script("provable_gaps")


@pytest.fixture(scope="module")
def web():
    return photo_web(load_world(default_world_path()), 0, "realistic")


def test_every_link_added_is_a_photo_of_both_their_own_query_returns(web):
    old = ground_truth(web).provable_graph(80.0)
    new, added, _ = gaps.fuller_graph(web, old, gaps.PAIR_TEMPLATES[:1], 200)
    assert added > 0
    assert new.edge_count == old.edge_count + added
    ranker, world = ranker_for(web), web.world
    for a in range(world.size):
        assert set(old.neighbors(a)) <= set(new.neighbors(a))
        for b in set(new.neighbors(a)) - set(old.neighbors(a)):
            found = {
                web.page_photo(page)
                for query in (f"{world.name(a)} {world.name(b)}", f"{world.name(b)} {world.name(a)}")
                for page in ranker.rank(query, 200)
            }
            assert any({a, b} <= set(recognised_in(web, photo)) for photo in found)


def test_a_query_read_to_no_result_adds_nothing_and_a_longer_read_adds_more(web):
    old = ground_truth(web).provable_graph(80.0)
    first = gaps.PAIR_TEMPLATES[:1]
    assert gaps.fuller_graph(web, old, first, 0)[1] == 0
    assert gaps.fuller_graph(web, old, first, 5)[1] < gaps.fuller_graph(web, old, first, 200)[1]


def test_runs_are_rescored_against_both_graphs(web, tmp_path):
    old = ground_truth(web).provable_graph(80.0)
    new, _, _ = gaps.fuller_graph(web, old, gaps.PAIR_TEMPLATES[:1], 200)
    pairs = [p for p in sample_pairs(web, 30, 11, "uniform") if gaps.shortest(old, p)]
    fell = next(p for p in pairs if gaps.shortest(new, p) < gaps.shortest(old, p))
    held = next(p for p in pairs if gaps.shortest(new, p) == gaps.shortest(old, p))
    drop = gaps.shortest(old, fell) - gaps.shortest(new, fell)

    def answer(pair, hops, **kw):
        return {
            "a": pair.a.given,
            "b": pair.b.given,
            "outcome": "path",
            "true_path": True,
            "meant": True,
            "hops": hops,
            **kw,
        }

    runs = [
        answer(fell, gaps.shortest(old, fell)),  # at the old shortest: `drop` over the new one
        answer(fell, gaps.shortest(new, fell)),  # below the old shortest: counted at it, never below
        answer(held, gaps.shortest(old, held) + 1),  # one over on both
        answer(held, 1, true_path=False),  # a false path is no answer to score
    ]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in runs), encoding="utf-8")
    scored = gaps.rescore(web, old, new, path)
    assert scored["mean_excess"] == [round(1 / 3, 3), round((drop + 1) / 3, 3)]
    assert scored["answers_below_shortest"] == [1, 0]
