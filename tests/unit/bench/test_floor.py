"""Cost floors (bench/floor.py): the cheapest searches and recognitions that prove a chain, on a
hand-built web whose pages and photos are written out below. Prices: search $0.005, recognition
$0.001."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from visual_degrees.domain.captions import shows_unnamed
from visual_degrees.domain.titles import mentions
from visual_degrees_tools.bench.floor import Floors, WebPages, link_titles
from visual_degrees_tools.bench.pairs import sample_pairs
from visual_degrees_tools.sandbox import PhotoWeb, photo_web
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.ground_truth import ground_truth

NAMES = ["A", "B", "P", "Q", "W", "X", "Y", "M", "N"]
A, B, P, Q, W, X, Y, M, N = range(len(NAMES))


class HandBuilt:
    """Pages: query -> the photos on its first page; photos: photo -> who is recognised in it."""

    def __init__(self, pages: dict[str, list[int]], photos: dict[int, set[int]]) -> None:
        self.pages = pages
        self.people = {photo: frozenset(people) for photo, people in photos.items()}
        adjacency: list[set[int]] = [set() for _ in NAMES]
        for people in self.people.values():
            for u in people:
                adjacency[u] |= people - {u}
        self.together = Graph(adjacency)

    def name(self, person: int) -> str:
        return NAMES[person]

    def photos(self, query: str) -> Sequence[int]:
        return self.pages.get(query, [])

    def recognised(self, photo: int) -> frozenset[int]:
        return self.people[photo]


def test_a_person_query_serves_both_links_at_that_person():
    # Given A-M-B, both photos on M's page, and each link also on its own pair query's page
    web = HandBuilt({"M": [1, 2], "A M": [1], "M B": [2]}, {1: {A, M}, 2: {M, B}})
    # When the oracle prices the chain
    floor = Floors(web).cheapest([A], [B], 6, shortest=True)
    # Then it pays one search ("M") and two recognitions
    assert floor is not None
    assert floor.people == (A, M, B)
    assert {link.query for link in floor.links} == {"M"}
    assert (floor.searches, floor.recognitions, floor.cost) == (1, 2, 0.007)


def test_a_photo_serving_two_adjacent_links_is_recognised_once():
    # Given A-M-N-B: a photo of A, M and N on M's page (A and N on no page of theirs together), and a
    # photo of N and B on N's page
    web = HandBuilt({"M": [7], "N": [8]}, {7: {A, M, N}, 8: {N, B}})
    # When the oracle prices A to B
    floor = Floors(web).cheapest([A], [B], 6, shortest=True)
    # Then A-M and M-N share M's search and the one photo: two searches, two recognitions
    assert floor is not None
    assert floor.people == (A, M, N, B)
    assert (floor.searches, floor.recognitions, floor.cost) == (2, 2, 0.012)


def test_a_photo_of_both_ends_is_the_shortest_chain():
    # Given a photo of A, M and B on A's page
    web = HandBuilt({"A": [6]}, {6: {A, M, B}})
    # Then A-B is one link: one search, one recognition
    floor = Floors(web).cheapest([A], [B], 6, shortest=True)
    assert floor is not None
    assert (floor.people, floor.cost) == ((A, B), 0.006)


def longer_is_cheaper() -> HandBuilt:
    # A-P-Q-B: each link only on its own pair query's page, three searches.
    # A-W-X-Y-B: W's page holds A-W and W-X, Y's page X-Y and Y-B, two searches.
    return HandBuilt(
        {"A P": [1], "P Q": [2], "Q B": [3], "W": [4, 5], "Y": [6, 7]},
        {1: {A, P}, 2: {P, Q}, 3: {Q, B}, 4: {A, W}, 5: {W, X}, 6: {X, Y}, 7: {Y, B}},
    )


def test_the_shortest_chain_floor_pays_what_the_fewest_hops_need():
    floor = Floors(longer_is_cheaper()).cheapest([A], [B], 6, shortest=True)
    assert floor is not None
    assert floor.people == (A, P, Q, B)
    assert (floor.searches, floor.recognitions, floor.cost) == (3, 3, 0.018)


def test_the_any_length_floor_takes_a_longer_chain_when_it_is_cheaper():
    floor = Floors(longer_is_cheaper()).cheapest([A], [B], 6, shortest=False)
    assert floor is not None
    assert floor.people == (A, W, X, Y, B)
    assert (floor.searches, floor.recognitions, floor.cost) == (2, 4, 0.014)


def test_the_any_length_floor_keeps_within_the_hop_limit():
    floor = Floors(longer_is_cheaper()).cheapest([A], [B], 3, shortest=False)
    assert floor is not None
    assert floor.people == (A, P, Q, B)


def test_a_link_on_no_first_page_proves_nothing():
    # Given A and B recognised together in a photo that no query's first page holds
    web = HandBuilt({"A": [], "B": []}, {9: {A, B}})
    # Then there is no floor
    assert Floors(web).cheapest([A], [B], 6, shortest=False) is None


@pytest.fixture(scope="module")
def realistic(web: PhotoWeb) -> PhotoWeb:
    return photo_web(web.world, 0, "realistic")


def test_on_a_realistic_web_every_link_of_a_floor_is_a_photo_of_both_on_its_query_page(realistic):
    # Given the sandbox's realistic web of the hand-made bench world
    pages = WebPages(realistic)
    floors = Floors(pages)
    truth = ground_truth(realistic)
    proven = 0
    for pair in sample_pairs(realistic, 6, 1):
        # When the oracle prices each connected pair
        floor = floors.cheapest(pair.a.indices, pair.b.indices, 6, shortest=False)
        if floor is None:
            continue
        proven += 1
        # Then each link's photo truly shows both people and is on its query's first page
        for u, link in zip(floor.people, floor.links, strict=False):
            shown = truth.truth(realistic.image_url(link.photo))
            world = realistic.world
            assert {world.celebrity_id(u), world.celebrity_id(link.to)} <= shown
            assert link.photo in pages.photos(link.query)
    assert proven


def test_what_the_titles_of_a_floors_photos_say_of_each_link(realistic):
    # Given the oracle's chains on the realistic web of the hand-made bench world
    pages = WebPages(realistic)
    floors = Floors(pages)
    said = []
    for pair in sample_pairs(realistic, 6, 1):
        floor = floors.cheapest(pair.a.indices, pair.b.indices, 6, shortest=True)
        if floor is None:
            continue
        # When each link's photo is looked up on its query's page
        found = link_titles(pages, floor)
        assert len(found) == floor.hops
        for (named, guests, rank), u, link in zip(found, floor.people, floor.links, strict=False):
            # Then it is where that page first shows the photo, under the title read there
            ranked = [realistic.page_photo(p) for p in pages._ranker.rank(link.query, pages.page)]
            assert rank == ranked.index(link.photo)
            title = realistic.page_title(pages._ranker.rank(link.query, pages.page)[rank])
            both = [mentions(title, realistic.world.name(p)) for p in (u, link.to)]
            assert named == ("none", "one", "both")[sum(both)]
            assert guests == shows_unnamed(title)
            said.append(named)
    assert said
    # A photo no page of the query shows has no place on it
    assert pages.result("nobody at all", 0) == (-1, "")
