from __future__ import annotations

from collections import Counter

import pytest

from visual_degrees.domain.errors import ProviderError, UnknownPerson
from visual_degrees.domain.queries import DISCOVERY_TEMPLATES
from visual_degrees_tools.sandbox.captions import display_title
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.photoweb import BASE_URL, PhotoWeb
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox.world import parse_world


def snapshot(web: PhotoWeb) -> list[tuple[str, str, tuple[int, ...]]]:
    return [(web.photo_id(p), web.caption(p), web.people_in(p)) for p in range(web.photo_count)]


def test_same_world_and_seed_give_the_same_web(default_world, default_web):
    # Given a second web built from the same world and seed
    again = PhotoWeb(default_world, seed=0)
    # Then every photo, id, caption and recognition is the same
    assert snapshot(again) == snapshot(default_web)
    assert [again.sightings(p) for p in range(0, again.photo_count, 7)] == [
        default_web.sightings(p) for p in range(0, default_web.photo_count, 7)
    ]


def test_another_seed_gives_another_web(default_world, default_web):
    other = PhotoWeb(default_world, seed=1)
    assert snapshot(other) != snapshot(default_web)


def test_everyone_is_photographed_at_every_event_they_attended(default_world, default_web):
    for event, cast in enumerate(default_world.members):
        shown = {p for photo in default_web.photos_of_event(event) for p in default_web.people_in(photo)}
        assert shown == set(cast)


def test_photos_are_mostly_small_groups_with_some_portraits_and_crowds(default_web):
    # Given the kinds and sizes of all photos
    sizes = Counter(len(default_web.people_in(p)) for p in range(default_web.photo_count))
    groups = sum(sizes[n] for n in (2, 3, 4))
    # Then small groups and portraits dominate, crowds exist but are rare
    assert groups / default_web.photo_count > 0.4
    assert sizes[1] / default_web.photo_count > 0.2
    assert 0 < sum(n for size, n in sizes.items() if size >= 5) / default_web.photo_count < 0.1
    assert max(sizes) <= 12


def test_famous_people_are_in_more_photos(default_world, default_web):
    photos = Counter(p for photo in range(default_web.photo_count) for p in default_web.people_in(photo))
    by_fame: dict[bool, list[float]] = {True: [], False: []}
    for person in range(default_world.size):
        by_fame[default_world.fame[person] >= 10].append(photos[person] / default_world.fame[person])
    # Per event attended, a famous person is photographed more than a minor one
    famous = sum(by_fame[True]) / len(by_fame[True])
    minor = sum(by_fame[False]) / len(by_fame[False])
    assert famous > 1.5 * minor


def test_captions_name_at_most_three_people_most_famous_first(default_world, default_web):
    for photo in range(0, default_web.photo_count, 3):
        people = default_web.people_in(photo)
        caption = default_web.caption(photo)
        named = tuple(p for p in people if default_world.name(p) in caption)
        # the first three are named, nobody after them is
        assert named == people[:3]
        fames = [default_world.fame[p] for p in people]
        assert fames == sorted(fames, reverse=True)


def test_caption_reads_like_an_agency_caption():
    # Given a two-person film event
    world = parse_world("Apollo 13 (1995)/Bacon, Kevin (I)/Hanks, Tom\n")
    web = PhotoWeb(world, seed=3)
    groups = [p for p in range(web.photo_count) if len(web.people_in(p)) == 2]
    # Then its group captions name both and the film
    caption = web.caption(groups[0])
    assert caption.startswith(("Kevin Bacon and Tom Hanks ", "Kevin Bacon with Tom Hanks ", "Tom Hanks "))
    assert caption.endswith("Apollo 13 (1995)")


@pytest.mark.parametrize(
    ("title", "shown"),
    [
        ("Matrix, The (1999)", "The Matrix (1999)"),
        ("Search for Mickey Mouse, The (2004) {{SUSPENDED}}", "The Search for Mickey Mouse (2004)"),
        ("Apollo 13 (1995)", "Apollo 13 (1995)"),
    ],
)
def test_titles_read_naturally(title, shown):
    assert display_title(title) == shown


def test_urls_are_on_the_sandbox_host_and_resolve_back(default_web):
    for photo in (0, 1, default_web.photo_count - 1):
        url = default_web.image_url(photo)
        assert url.startswith(f"{BASE_URL}/photos/") and url.endswith(".svg")
        assert default_web.page_url(photo).startswith(BASE_URL)
        assert default_web.photo_from_url(url) == photo


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/photos/0000000000.svg",
        f"{BASE_URL}/photos/zzzzzzzzzz.svg",
        f"{BASE_URL}/photos/ffffffffff.svg",
        f"{BASE_URL}/photos/123.svg",
        f"{BASE_URL}/photos/",
    ],
)
def test_unknown_urls_are_provider_errors(default_web, url):
    with pytest.raises(ProviderError):
        default_web.photo_from_url(url)


def test_truth_is_everyone_in_the_photo(default_world, default_web):
    photo = next(p for p in range(default_web.photo_count) if len(default_web.people_in(p)) == 3)
    expected = {default_world.celebrity_id(p) for p in default_web.people_in(photo)}
    assert ground_truth(default_web).truth(default_web.image_url(photo)) == expected


def test_people_lookups_know_namesakes_and_spellings(default_web):
    # Given the default world's namesakes
    records = default_web.people_named("iris thistlewood")
    assert len(records) == 2 and records[0].celebrity_id != records[1].celebrity_id
    assert {r.raw for r in records} == {"Thistlewood, Iris (I)", "Thistlewood, Iris (II)"}
    # Then every spelling is known, and unknown people are not
    assert default_web.knows("Iris Thistlewood") and default_web.knows("THISTLEWOOD, IRIS (II)")
    assert default_web.knows("Anais Levesque")
    assert not default_web.knows("Kevin Bacon")
    assert default_web.celebrity_id("Thistlewood, Iris (II)") == next(
        r.celebrity_id for r in records if r.raw.endswith("(II)")
    )
    with pytest.raises(UnknownPerson):
        default_web.celebrity_id("Kevin Bacon")


def test_provable_graph_is_exactly_the_searchable_pairs_recognised_together(default_world, default_web):
    # Given the graph at the default threshold and the photos discovery queries reach
    graph = ground_truth(default_web).provable_graph(80.0)
    findable = ground_truth(default_web).findable()
    # When it is rebuilt by brute force from the recogniser's view of every photo
    expected: set[tuple[int, int]] = set()
    for photo in range(default_web.photo_count):
        named = default_web.people_in(photo)[:3]
        shown = [
            s.person for s in default_web.sightings(photo) if s.shown_as == s.person and s.confidence >= 80
        ]
        expected |= {
            (a, b) for a in shown for b in shown if a < b and (findable[photo] or {a, b} <= set(named))
        }
    # Then they agree: every edge is a pair truly photographed together, both recognised at >= 80
    edges = {(a, b) for a in range(default_world.size) for b in graph.neighbors(a) if a < b}
    assert edges == expected
    assert graph.edge_count == len(edges)
    # And counting every photo, however deeply buried, proves at least as much
    everything = ground_truth(default_web).provable_graph(80.0, searchable=False)
    assert all(everything.has_edge(a, b) for a, b in edges)
    assert everything.edge_count > graph.edge_count


def test_findable_photos_are_the_ones_discovery_queries_return(default_world, default_web):
    # Given the photos marked findable within a page of five
    findable = ground_truth(default_web).findable(5)
    # Then for a sample of photos, one of its named people's discovery queries returns it iff marked
    search = ranker_for(default_web)
    for photo in range(0, default_web.photo_count, 37):
        returned = any(
            photo in search.rank(template.format(a=default_world.name(person)), 5)
            for person in default_web.people_in(photo)[:3]
            for template in DISCOVERY_TEMPLATES
        )
        assert returned == bool(findable[photo])
    assert 0 < sum(findable) < default_web.photo_count


def test_higher_threshold_proves_less(default_web):
    assert (
        ground_truth(default_web).provable_graph(95.0).edge_count
        < ground_truth(default_web).provable_graph(80.0).edge_count
    )


def test_provable_web_is_sparser_than_the_credits_but_keeps_a_large_core(default_world, default_web):
    core = ground_truth(default_web).provable_graph().largest_component()
    assert 0.7 * default_world.size < len(core) < default_world.size


def test_distances_and_solvability(default_world, default_web):
    graph = ground_truth(default_web).provable_graph()
    a = graph.largest_component()[0]
    far = graph.distances_from(a)
    b = max(far, key=lambda p: (far[p], p))
    name_a, name_b = default_world.raws[a], default_world.raws[b]
    assert ground_truth(default_web).distance(name_a, name_b) == far[b]
    assert ground_truth(default_web).solvable(name_a, name_b, max_hops=far[b])
    assert not ground_truth(default_web).solvable(name_a, name_b, max_hops=far[b] - 1)
    assert (
        ground_truth(default_web).distance(default_world.celebrity_id(a), default_world.celebrity_id(b))
        == far[b]
    )


def test_a_web_is_identified_by_its_worlds_content_its_seed_and_its_model():
    from visual_degrees_tools.sandbox import World
    from visual_degrees_tools.sandbox.noise import NoiseModel

    events = [("Film (2001)", ["Lee, Ann", "Ray, Bob"]), ("Other (2002)", ["Ray, Bob", "Wu, Cat"])]
    one = PhotoWeb(World.from_events(events, source="a.txt"), 0)
    same_content = PhotoWeb(World.from_events(events, source="b.txt"), 0)
    other_seed = PhotoWeb(World.from_events(events), 1)
    other_people = PhotoWeb(World.from_events([*events[:1], ("Other (2002)", ["Ray, Bob", "Fox, Eve"])]), 0)
    other_noise = PhotoWeb(World.from_events(events), 0, noise=NoiseModel(lookalike_above_80=0.5))
    assert one.identity == same_content.identity
    assert len({one.identity, other_seed.identity, other_people.identity, other_noise.identity}) == 4
