from __future__ import annotations

import json
from collections import Counter

from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.synthetic import (
    DEFAULT_SEED,
    EXAMPLE_PAIR,
    FAR_PAIR,
    default_world_path,
    generate_events,
    world_text,
)


def test_shipped_default_world_is_exactly_what_the_seed_generates():
    # Given the generator and its seed, when regenerated, then the shipped file is byte-identical
    assert default_world_path().read_text(encoding="utf-8") == world_text(DEFAULT_SEED)


def test_another_seed_gives_another_world():
    assert generate_events(DEFAULT_SEED + 1) != generate_events(DEFAULT_SEED)


def test_default_world_is_json_lines_of_titles_and_people():
    lines = default_world_path().read_text(encoding="utf-8").splitlines()
    assert 150 <= len(lines) <= 400
    for line in lines:
        item = json.loads(line)
        assert set(item) == {"title", "people"}
        assert item["people"] and len(set(item["people"])) == len(item["people"])


def test_default_world_has_hubs_many_minor_people_and_one_core(default_world):
    # Given the default world
    fame = Counter(default_world.fame)
    # Then it has a few hundred people, most of them in one or two events
    assert 300 <= default_world.size <= 800
    assert (fame[1] + fame[2]) / default_world.size > 0.6
    # And some hubs appear in far more events than anyone typical
    assert sorted(default_world.fame)[-3] >= 30
    # And everyone is connected in one core
    assert len(default_world.largest_component()) == default_world.size


def test_default_world_exercises_accents_mononyms_and_namesakes(default_world):
    names = {default_world.name(p) for p in range(default_world.size)}
    assert "Anaïs Lévesque" in names
    assert "Zephyrine" in names
    assert len(default_world.find("Iris Thistlewood")) == 2


def test_example_pair_is_well_connected_and_two_hops_apart(default_world, default_web):
    # Given the README's example pair
    a, b = (default_world.find(name)[0] for name in EXAMPLE_PAIR)
    # Then both are among the thirty best-connected people, never shared an event, and one
    # intermediary links them in the photo web at seed 0
    top = sorted(range(default_world.size), key=lambda p: -default_world.fame[p])[:30]
    assert a in top and b in top
    assert default_world.coappearance_distance(a, b) == 2
    assert ground_truth(default_web).distance(*EXAMPLE_PAIR) == 2


def test_far_pair_needs_at_least_three_hops(default_world, default_web):
    a, b = (default_world.find(name)[0] for name in FAR_PAIR)
    assert default_world.coappearance_distance(a, b) >= 3
    assert ground_truth(default_web).distance(*FAR_PAIR) == 3


def test_default_world_has_long_chains(default_web):
    # Given the provable photo graph, some pairs of its core are more than six hops apart
    graph = ground_truth(default_web).provable_graph()
    core = graph.largest_component()
    eccentricity = max(graph.distances_from(core[0]).values())
    assert eccentricity >= 6
