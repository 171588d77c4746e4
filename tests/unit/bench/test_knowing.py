"""bench/knowing.py: a planner between the simulated one (credits) and one that knows the photos.

PreciseKnowledge keeps the simulated planner's memory of credits and forgets a share of the
co-stars no photo shows with the person: at 0 it is that planner, at 1 every co-star it names is a
photo, and never does it forget one a photo shows."""

from __future__ import annotations

import argparse

import pytest

from tests.support.scripts import load_script
from visual_degrees_tools.bench.knowing import PreciseKnowledge
from visual_degrees_tools.sandbox import World
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.knowledge import Knowledge


def film_world() -> tuple[World, int]:
    """Forty films of one star with a different co-star each (all remembered: leads of prominent
    films), so the star's co-stars are many; the star's index."""
    events = [(f"Film {i} ({1960 + i})", ["Star, Alpha", f"Costar{i}, Bea"]) for i in range(40)]
    events += [(f"Other {i} ({1960 + i})", [f"Costar{i}, Bea", "Filler, Cy"]) for i in range(40)]
    world = World.from_events(events)
    return world, world.find("Alpha Star")[0]


def photos_with(world: World, star: int, shown: list[int]) -> Graph:
    """A provable graph where a photo shows the star with each of `shown` only."""
    adjacency: list[set[int]] = [set() for _ in range(world.size)]
    for other in shown:
        adjacency[star].add(other)
        adjacency[other].add(star)
    return Graph(adjacency)


def test_at_0_it_remembers_what_the_simulated_planner_remembers() -> None:
    world, star = film_world()
    base = Knowledge(world, seed=5)
    precise = PreciseKnowledge(base, photos_with(world, star, []), 0.0)
    assert precise.costars(star) == base.costars(star) and len(base.costars(star)) >= 20


def test_at_1_it_names_only_co_stars_a_photo_shows() -> None:
    world, star = film_world()
    base = Knowledge(world, seed=5)
    shown = sorted(base.costars(star))[:5]
    precise = PreciseKnowledge(base, photos_with(world, star, shown), 1.0)
    assert sorted(precise.costars(star)) == shown
    assert all(precise.costars(star)[o] == base.costars(star)[o] for o in shown)  # the same film


def test_a_share_forgets_about_that_share_of_the_others_and_never_a_photo() -> None:
    world, star = film_world()
    base = Knowledge(world, seed=5)
    remembered = base.costars(star)
    shown = sorted(remembered)[:5]
    precise = PreciseKnowledge(base, photos_with(world, star, shown), 0.5)
    kept = precise.costars(star)
    others = len(remembered) - len(shown)
    assert set(shown) <= set(kept)
    assert 0.2 * others < len(kept) - len(shown) < 0.8 * others


def test_it_confabulates_no_more_than_the_simulated_planner() -> None:
    world, star = film_world()
    base = Knowledge(world, seed=5)
    precise = PreciseKnowledge(base, photos_with(world, star, []), 1.0)
    people = range(world.size)
    assert not any(precise.confabulates(a, b) for a in people for b in people if a < b)
    assert any(base.confabulates(a, b) for a in people for b in people if a < b)


def test_the_scripts_precision_is_a_share_from_0_to_1() -> None:
    module = load_script("bench_knowing")
    assert module.share("0.25") == 0.25 and module.share("1") == 1.0
    for bad in ("2", "-0.1", "half"):
        with pytest.raises(argparse.ArgumentTypeError, match="from 0 to 1"):
            module.share(bad)
