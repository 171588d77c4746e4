from __future__ import annotations

import pytest

from visual_degrees.domain.errors import InvalidInput, TransientProviderError
from visual_degrees.domain.queries import DISCOVERY_TEMPLATES, event_query, pair_query
from visual_degrees_tools.sandbox.captions import Kind
from visual_degrees_tools.sandbox.clock import EPOCH, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultConfig, FaultInjector
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.search import SandboxImageSearch, query_words
from visual_degrees_tools.sandbox.world import parse_world


@pytest.fixture(scope="module")
def search(default_web) -> SandboxImageSearch:
    return SandboxImageSearch(default_web)


def named(web: PhotoWeb, photo: int) -> set[str]:
    people = web.people_in(photo)
    return {web.world.keys[p] for p in people[:3]}


def busiest_pair(web: PhotoWeb) -> tuple[str, str]:
    """Two people named together in at least one caption, the first with many photos."""
    world = web.world
    star = max(range(world.size), key=lambda p: (len(web.named_in[p]), p))
    for photo in web.named_in[star]:
        others = [p for p in web.people_in(photo)[:3] if p != star]
        if others:
            return world.name(star), world.name(others[0])
    raise AssertionError("no pair")


def test_query_words_normalise_like_name_keys():
    assert query_words("Anaïs  LÉVESQUE, premiere!") == ["anais", "levesque", "premiere"]
    assert query_words("Dick O'Shea") == ["dick", "oshea"]


def test_names_are_found_by_longest_match_and_template_words_are_not_names():
    # Given a world with nested names and a mononym that is also a template word
    world = parse_world("A (2000)/Hanks, Tom/Hanks Jr., Tom/Red/Bacon, Kevin\n")
    search = SandboxImageSearch(PhotoWeb(world))
    # Then the longest name wins, names are found in any template, and "red carpet" is not "Red"
    assert search.names_in("Tom Hanks Jr. Kevin Bacon") == ["tom hanks jr", "kevin bacon"]
    assert search.names_in("Tom Hanks and Kevin Bacon together") == ["tom hanks", "kevin bacon"]
    assert search.names_in("Tom Hanks red carpet") == ["tom hanks"]
    assert search.names_in("Red Tom Hanks") == ["tom hanks"]
    assert search.names_in("nobody we know") == []


def test_an_event_title_with_its_year_brings_up_that_events_photos_crowd_shots_first():
    # Given a world where a film's title is also somebody's name, and a second film of that title
    world = parse_world(
        "Apollo 13 (1995)/Hanks, Tom/Bacon, Kevin/Paxton, Bill/Sinise, Gary/Harris, Ed/Quinlan, Kathleen/"
        "Nelson, Tracy/Howard, Clint\nApollo 13 (2001)/Hanks, Tom/Apollo\nOther (1990)/Bacon, Kevin/Apollo\n"
    )
    web = PhotoWeb(world)
    search = SandboxImageSearch(web)
    apollo = world.titles.index("Apollo 13 (1995)")
    # When the query names the film with its year
    results = search.rank(event_query("Apollo 13 (1995)"), 200)
    # Then it finds that event (not the name, not the other year) and every photo on the page is of it
    assert search.ranker.events_in(event_query("Apollo 13 (1995)")) == [apollo]
    assert search.names_in(event_query("Apollo 13 (1995)")) == []
    assert sorted(results) == list(web.photos_of_event(apollo))
    # ... the crowd shots first ("cast"), and a title without its year is a name, not an event
    kinds = [web.photo_kind[p] for p in results]
    assert kinds[0] == Kind.CROWD
    assert search.ranker.events_in("Apollo 13") == []
    assert search.names_in("Apollo 13") == ["apollo"]


def test_photos_naming_everyone_come_first_then_partial_matches(default_web, search):
    # Given two people captioned together at least once
    a, b = busiest_pair(default_web)
    key_a, key_b = query_words(a), query_words(b)
    # When searching for both, with a page larger than the photos naming both
    both = [
        p
        for p in range(default_web.photo_count)
        if {" ".join(key_a), " ".join(key_b)} <= named(default_web, p)
    ]
    results = search.rank(pair_query(a, b), len(both) + 5)
    # Then every photo naming both comes before any photo naming only one, and none names neither
    tiers = [len({" ".join(key_a), " ".join(key_b)} & named(default_web, p)) for p in results]
    assert tiers == sorted(tiers, reverse=True)
    assert tiers[: len(both)] == [2] * len(both)
    assert set(tiers[len(both) :]) == {1}


def test_keywords_pull_matching_captions_up(default_world, default_web, search):
    # Given the best-photographed person, who has cast photos and premieres
    star = max(range(default_world.size), key=lambda p: len(default_web.named_in[p]))
    name = default_world.name(star)
    cast_photos = [p for p in default_web.named_in[star] if default_web.caption(p).startswith("The cast of")]
    assert cast_photos
    # When asking for their cast photos and their premieres
    cast = search.rank(DISCOVERY_TEMPLATES[3].format(a=name), len(cast_photos))
    premiere = search.rank(DISCOVERY_TEMPLATES[2].format(a=name), 5)
    # Then cast photos and premiere captions lead
    assert sorted(cast) == sorted(cast_photos)
    assert all("premiere" in default_web.caption(p) for p in premiere)
    # And a bare name brings up portraits first, "with" group shots
    assert default_web.photo_kind[search.rank(name, 1)[0]] == Kind.PORTRAIT
    assert default_web.photo_kind[search.rank(f"{name} with", 1)[0]] != Kind.PORTRAIT


def test_ranking_is_deterministic_but_phrasing_changes_the_page(default_world, default_web, search):
    name = default_world.name(max(range(default_world.size), key=lambda p: len(default_web.named_in[p])))
    assert search.rank(name, 5) == search.rank(name, 5) == SandboxImageSearch(default_web).rank(name, 5)
    pages = {tuple(search.rank(template.format(a=name), 5)) for template in DISCOVERY_TEMPLATES}
    assert len(pages) == len(DISCOVERY_TEMPLATES)


def test_search_returns_hits_with_captions_and_charges_the_clock(default_web):
    # Given a search on a fresh clock
    clock = VirtualClock()
    search = SandboxImageSearch(default_web, clock=clock)
    a, b = busiest_pair(default_web)
    # When searching twice
    hits = search.search(f"{a} and {b}", 5)
    search.search("nobody we know", 5)
    # Then at most five hits come back with sandbox URLs and captions, and each call took 0.5 s
    assert 1 <= len(hits) <= 5
    assert all(h.image_url.endswith(".svg") and h.page_url and h.title for h in hits)
    assert a in hits[0].title and b in hits[0].title
    assert clock.now() == pytest.approx(EPOCH + 1.0)


@pytest.mark.parametrize("count", [-1, 1.5, True, "5"])
def test_bad_counts_are_invalid_input(search, count):
    with pytest.raises(InvalidInput):
        search.search("anyone", count)


def test_count_limits_the_page(default_world, search):
    name = default_world.name(0)
    assert search.search(name, 0) == []
    assert len(search.search(name, 2)) <= 2


def test_injected_search_faults_are_transient_and_a_retry_can_succeed(default_web):
    # Given searches that fail half the time with a 5xx
    faults = FaultInjector(FaultConfig(search_5xx=0.5), seed=1)
    search = SandboxImageSearch(default_web, faults=faults)
    outcomes = []
    for i in range(40):
        query = f"query {i}"
        try:
            search.search(query, 5)
            outcomes.append("first")
        except TransientProviderError:
            # When the same call is retried, then it draws again
            for _ in range(10):
                try:
                    search.search(query, 5)
                    outcomes.append("retry")
                    break
                except TransientProviderError:
                    continue
    # Then some calls failed at first and every one of them got through on a retry
    assert outcomes.count("retry") >= 5 and outcomes.count("first") >= 5
    assert len(outcomes) == 40


def test_throttling_is_a_transient_error_and_costs_little_time(default_web):
    clock = VirtualClock()
    search = SandboxImageSearch(default_web, clock=clock, faults=FaultInjector(FaultConfig(search_429=1.0)))
    with pytest.raises(TransientProviderError, match="429"):
        search.search("anyone", 5)
    assert clock.now() - EPOCH < 0.5
