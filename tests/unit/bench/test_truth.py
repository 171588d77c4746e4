from __future__ import annotations

from typing import Any

import pytest

from visual_degrees_tools.bench.pairs import pair_of
from visual_degrees_tools.bench.truth import Truth
from visual_degrees_tools.sandbox import PhotoWeb


def cid(web: PhotoWeb, raw: str) -> str:
    return web.world.celebrity_id(web.world.by_raw[raw])


def photo_of(web: PhotoWeb, *raws: str, without: str | None = None) -> str:
    """The URL of a photo that truly shows everyone in `raws` (and not `without`)."""
    people = {web.world.by_raw[r] for r in raws}
    absent = web.world.by_raw[without] if without else None
    for photo in range(web.photo_count):
        shown = set(web.people_in(photo))
        if people <= shown and absent not in shown:
            return web.image_url(photo)
    raise AssertionError(f"no photo of {raws}")


def edge(
    web: PhotoWeb, a: str, b: str, url: str, conf_a: float = 99.0, conf_b: float = 97.0
) -> dict[str, Any]:
    return {
        "from": a,
        "to": b,
        "evidence": {
            "imageUrl": url,
            "idA": cid(web, a),
            "idB": cid(web, b),
            "confidenceA": conf_a,
            "confidenceB": conf_b,
        },
    }


@pytest.fixture(scope="module")
def truth(web) -> Truth:
    return Truth(web)


def test_a_chain_of_real_photos_is_true_and_solves_the_pair(web, truth):
    # Given Kevin Bacon (I) — Meg Ryan — Tom Cruise, each link a photo that truly shows both
    chain = [
        edge(web, "Bacon, Kevin (I)", "Ryan, Meg", photo_of(web, "Bacon, Kevin (I)", "Ryan, Meg")),
        edge(web, "Ryan, Meg", "Cruise, Tom", photo_of(web, "Ryan, Meg", "Cruise, Tom")),
    ]
    verdict = truth.check({"edges": chain}, pair_of(web, "Bacon, Kevin (I)", "Cruise, Tom"))
    assert (verdict.true, verdict.meant, verdict.solved, verdict.hops) == (True, True, True, 2)
    assert verdict.problems == []


def test_an_edge_whose_photo_lacks_one_person_makes_the_path_false(web, truth):
    url = photo_of(web, "Ryan, Meg", without="Hanks, Tom")
    verdict = truth.check(
        {"edges": [edge(web, "Hanks, Tom", "Ryan, Meg", url)]}, pair_of(web, "Tom Hanks", "Meg Ryan")
    )
    assert not verdict.true and not verdict.solved
    assert "does not show both" in verdict.problems[0]


def test_a_chain_that_jumps_between_people_is_false(web, truth):
    # Given two true photos that do not meet: Hanks—Ryan, then Kevin Bacon (II)—Cruise
    chain = [
        edge(web, "Hanks, Tom", "Ryan, Meg", photo_of(web, "Hanks, Tom", "Ryan, Meg")),
        edge(web, "Bacon, Kevin (II)", "Cruise, Tom", photo_of(web, "Bacon, Kevin (II)", "Cruise, Tom")),
    ]
    verdict = truth.check({"edges": chain}, pair_of(web, "Tom Hanks", "Tom Cruise"))
    assert not verdict.true
    assert any("does not start where edge 1 ended" in p for p in verdict.problems)


def test_evidence_below_the_threshold_or_from_elsewhere_is_false(web, truth):
    pair = pair_of(web, "Tom Hanks", "Meg Ryan")
    weak = edge(web, "Hanks, Tom", "Ryan, Meg", photo_of(web, "Hanks, Tom", "Ryan, Meg"), conf_b=79.9)
    foreign = edge(web, "Hanks, Tom", "Ryan, Meg", "https://example.com/a.jpg")
    assert "a confidence below 80" in truth.check({"edges": [weak]}, pair).problems[0]
    assert not truth.check({"edges": [foreign]}, pair).true
    assert not truth.check({"edges": []}, pair).true


def test_a_true_path_to_a_namesake_is_not_false_but_does_not_solve(web, truth):
    # Given the pair means Kevin Bacon (I) exactly, and the path starts at Kevin Bacon (II)
    url = photo_of(web, "Bacon, Kevin (II)", "Cruise, Tom")
    verdict = truth.check(
        {"edges": [edge(web, "Bacon, Kevin (II)", "Cruise, Tom", url)]},
        pair_of(web, "Bacon, Kevin (I)", "Tom Cruise"),
    )
    assert verdict.true and not verdict.meant and not verdict.solved
    # When the pair names Kevin Bacon by display name, either namesake will do
    either = truth.check(
        {"edges": [edge(web, "Bacon, Kevin (II)", "Cruise, Tom", url)]},
        pair_of(web, "Kevin Bacon", "Tom Cruise"),
    )
    assert either.solved


def test_shortest_distance_takes_the_nearest_namesake_and_respects_the_limit(web, truth):
    exact_one = truth.shortest(pair_of(web, "Bacon, Kevin (I)", "Cruise, Tom"))
    exact_two = truth.shortest(pair_of(web, "Bacon, Kevin (II)", "Cruise, Tom"))
    either = truth.shortest(pair_of(web, "Kevin Bacon", "Cruise, Tom"))
    known = [d for d in (exact_one, exact_two) if d is not None]
    assert known, "the hand-made world should connect at least one Kevin Bacon to Tom Cruise"
    assert either == min(known)
    assert truth.shortest(pair_of(web, "Kevin Bacon", "Cruise, Tom"), limit=either - 1) is None
