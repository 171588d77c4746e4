"""Pair tiers: whom `bench --sample N --tier T` draws pairs from (docs/benchmarks/README.md)."""

from __future__ import annotations

from collections import Counter

import pytest

from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.bench.pairs import photo_ranking, sample_pairs, tier_people
from visual_degrees_tools.sandbox import PhotoWeb, default_world_path, load_world, photo_web


@pytest.fixture(scope="module")
def bundled() -> PhotoWeb:
    return photo_web(load_world(default_world_path()), 0, "clean")


def photos_with_others(web: PhotoWeb) -> Counter[int]:
    return Counter(
        person
        for photo in range(web.photo_count)
        if len(people := web.people_in(photo)) > 1
        for person in people
    )


def test_people_are_ranked_by_the_photos_showing_them_with_someone_else(bundled):
    ranking = photo_ranking(bundled)
    counts = photos_with_others(bundled)
    assert sorted(ranking) == list(range(bundled.world.size))
    assert [counts[p] for p in ranking] == sorted((counts[p] for p in ranking), reverse=True)


def test_both_webs_of_a_world_rank_people_alike_so_a_tier_draws_the_same_pairs(bundled):
    realistic = photo_web(bundled.world, 0, "realistic")
    assert photo_ranking(realistic) == photo_ranking(bundled)
    for tier in ("uniform", "famous", "known"):
        drawn = [(p.a.given, p.b.given) for p in sample_pairs(realistic, 20, 4, tier)]
        assert drawn == [(p.a.given, p.b.given) for p in sample_pairs(bundled, 20, 4, tier)]


def test_the_famous_are_the_hundred_most_photographed_and_the_known_those_ranked_300_to_3000(bundled):
    ranking = photo_ranking(bundled)
    group = set(bundled.world.largest_component())
    assert tier_people(bundled, "famous") == [p for p in ranking[:100] if p in group]
    assert tier_people(bundled, "known") == [p for p in ranking[299:3000] if p in group]
    assert tier_people(bundled, "uniform") == bundled.world.largest_component()
    famous = set(tier_people(bundled, "famous"))
    for pair in sample_pairs(bundled, 30, 2, "famous"):
        assert set(pair.a.indices) | set(pair.b.indices) <= famous
    known = set(tier_people(bundled, "known"))
    for pair in sample_pairs(bundled, 30, 2, "known"):
        assert set(pair.a.indices) | set(pair.b.indices) <= known


def test_the_default_tier_is_uniform(bundled):
    assert sample_pairs(bundled, 12, 7) == sample_pairs(bundled, 12, 7, "uniform")


def test_a_tier_without_two_people_is_refused(web):
    # the hand-made world has six people: nobody is ranked 300th
    with pytest.raises(InvalidInput, match="the known tier of this world has fewer than two people"):
        sample_pairs(web, 1, 0, "known")
    with pytest.raises(InvalidInput, match="the famous tier has only"):
        sample_pairs(web, 100, 0, "famous")
