"""The realistic photo web (sandbox/pages.py): pages that answer as real image search does."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import replace

import pytest

from visual_degrees_tools.sandbox import build_sandbox, photo_web
from visual_degrees_tools.sandbox.captions import Kind
from visual_degrees_tools.sandbox.fetcher import SandboxImageFetcher
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.pages import DEFAULT_PAGES, Site, Style, page_names, page_text
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox.recognizer import SandboxRecognizer
from visual_degrees_tools.sandbox.world import World


@pytest.fixture(scope="module")
def web(default_world: World) -> PhotoWeb:
    return photo_web(default_world, 0, "realistic")


def pages_of(web: PhotoWeb, photo: int) -> list[int]:
    assert web.pages is not None
    return [photo, *range(web.pages.copy_start[photo], web.pages.copy_start[photo + 1])]


def snapshot(web: PhotoWeb) -> list[tuple[str, str, int]]:
    return [(web.image_url(p), web.page_title(p), web.page_photo(p)) for p in range(0, web.page_count, 5)]


def test_one_world_seed_and_web_give_the_same_pages(default_world, web):
    # Given the realistic web built again from the same world and seed, and from another seed
    again = photo_web(default_world, 0, "realistic")
    other = photo_web(default_world, 1, "realistic")
    # Then every page, title and URL is the same, and another seed gives other pages
    assert snapshot(again) == snapshot(web)
    assert snapshot(other) != snapshot(web)


def test_the_clean_web_is_the_one_there_was_and_the_realistic_web_is_another(default_world, default_web, web):
    clean = photo_web(default_world, 0, "clean")
    # The clean web is exactly the web of before (same photos, captions, identity)
    assert clean.identity == default_web.identity and clean.page_model is None
    assert [clean.caption(p) for p in range(0, clean.photo_count, 9)] == [
        default_web.caption(p) for p in range(0, default_web.photo_count, 9)
    ]
    # The realistic web is another web: evidence found on one is never used on the other
    assert web.identity != clean.identity and (web.mode, clean.mode) == ("realistic", "clean")


def test_both_webs_hold_the_same_photos_of_people_together(default_world, default_web, web):
    for event in range(len(default_world.titles)):

        def together(w: PhotoWeb, e: int = event) -> Counter[tuple[int, ...]]:
            return Counter(p for p in map(w.people_in, w.photos_of_event(e)) if len(p) > 1)

        assert together(web) == together(default_web)


def test_most_results_for_a_known_person_are_portraits_of_them_alone(default_world, web):
    # Given everyone in at least five events, searched by name
    ranker = ranker_for(web)
    known = [p for p in range(default_world.size) if default_world.fame[p] >= 5]
    shares = []
    for person in known:
        hits = ranker.rank(default_world.name(person), 200)
        shares.append(sum(web.people_in(web.page_photo(h)) == (person,) for h in hits) / len(hits))
    # Then on average most results show that person alone, and for nobody is it only portraits
    assert sum(shares) / len(shares) > 0.55
    assert max(shares) < 1.0


def test_one_photo_is_on_several_pages_under_other_titles_with_the_same_bytes(web):
    # Given a photo of two or more people published on several pages
    photo = next(
        p for p in range(web.photo_count) if len(pages_of(web, p)) >= 3 and len(web.people_in(p)) >= 2
    )
    pages = pages_of(web, photo)
    fetcher, recognizer = SandboxImageFetcher(web), SandboxRecognizer(web)
    images = [fetcher.fetch(web.image_url(page)) for page in pages]
    # Then each page has its own URL, most have another title, and every copy is the same image
    assert len({web.image_url(page) for page in pages}) == len(pages)
    assert len({web.page_url(page) for page in pages}) == len(pages)
    assert len({web.page_title(page) for page in pages}) > 1
    assert {image.sha256 for image in images} == {images[0].sha256}
    assert all(recognizer.recognize(image) == recognizer.recognize(images[0]) for image in images)
    truth = ground_truth(web)
    assert {truth.truth(web.image_url(page)) for page in pages} == {truth.truth(web.image_url(photo))}
    assert {web.photo_index(web.photo_id(page)) for page in pages} == {photo}


def test_agency_captions_name_people_in_each_style_in_its_proportion(default_world, web):
    assert web.pages is not None
    groups = [p for p in range(web.photo_count) if web.photo_kind[p] == Kind.GROUP]
    styles = Counter(Style(web.pages.style[p]) for p in groups)
    # The styles of group captions come in the documented proportions (within 4 standard deviations)
    for style, share in zip(Style, DEFAULT_PAGES.group_styles, strict=True):
        spread = 4 * math.sqrt(share * (1 - share) / len(groups))
        assert abs(styles[style] / len(groups) - share) < spread, style
    # Each style reads as agencies write it
    for photo in groups[:400]:
        caption = web.caption(photo)
        people = web.people_in(photo)
        named = web.pages.agency_named[photo]
        shown = [p for p in people if default_world.name(p) in caption]
        style = Style(web.pages.style[photo])
        assert shown == list(named), caption  # exactly the people it names, left to right
        if style is Style.LEFT_TO_RIGHT:
            assert caption.startswith("(L-R) ")
        elif style is Style.FIRST:
            assert len(named) <= 1 and re.search(r" (and guests|poses with guests) ", caption)
        elif style is Style.NONE:
            assert named == () and caption.startswith("Guests ")
        assert web.title(web.event_of(photo)) in caption


def test_a_face_nobody_names_is_not_found_by_that_name(default_world, web):
    # Given photos showing someone no page of theirs names
    ranker = ranker_for(web)
    unnamed = [
        (photo, person)
        for photo in range(0, web.photo_count, 3)
        for person in web.people_in(photo)
        if all(person not in page_names(web, page) for page in pages_of(web, photo))
    ]
    assert len(unnamed) > 50
    for photo, person in unnamed[:60]:
        # Then a search for their name returns no page of that photo, and every page it returns
        # names someone of that name
        hits = ranker.rank(default_world.name(person), 200)
        assert not set(hits) & set(pages_of(web, photo))
        key = default_world.keys[person]
        assert all(any(default_world.keys[p] == key for p in page_names(web, h)) for h in hits)


def test_person_pages_name_their_person_and_nobody_else_in_the_photo(default_world, web):
    assert web.pages is not None
    person_pages = [
        page
        for page in range(web.photo_count, web.page_count)
        if web.pages.site[page] == Site.PERSON and len(web.people_in(web.page_photo(page))) >= 2
    ]
    assert person_pages
    for page in person_pages[:200]:
        about = web.pages.subject[page]
        title = web.page_title(page)
        others = [p for p in web.people_in(web.page_photo(page)) if p != about]
        assert default_world.name(about) in title
        assert not any(default_world.name(p) in title for p in others), title
        assert page_names(web, page) == (about,)


def test_a_page_is_found_by_its_text_even_where_its_title_names_someone_else(default_world, web):
    # Given a news page whose title is about one person and whose copied caption names another
    assert web.pages is not None
    page, other = next(
        (page, named[1])
        for page in range(web.photo_count, web.page_count)
        if web.pages.site[page] == Site.NEWS
        and len(named := page_names(web, page)) >= 2
        and default_world.name(named[1]) not in web.page_title(page)
    )
    # When the other person is searched for
    hits = ranker_for(web).rank(default_world.name(other), 10_000)
    # Then that page is among the results, its text naming them
    assert page in hits
    assert default_world.name(other) in page_text(web, page)


def test_pages_naming_every_query_name_rank_first(default_world, web):
    assert web.pages is not None
    ranker = ranker_for(web)
    photo = next(p for p in range(web.photo_count) if len(web.pages.agency_named[p]) >= 2)
    a, b = (default_world.name(p) for p in web.pages.agency_named[photo][:2])
    hits = ranker.rank(f"{a} {b}", 200)
    both = [
        any(default_world.name(p) == a for p in page_names(web, h))
        and any(default_world.name(p) == b for p in page_names(web, h))
        for h in hits
    ]
    assert both[0] and both == sorted(both, reverse=True)  # all pages naming both, then the rest
    assert photo in hits


def test_the_sandbox_is_realistic_unless_asked_for_the_clean_web(default_world):
    assert build_sandbox(default_world).web.mode == "realistic"
    assert build_sandbox(default_world, web="clean").web.mode == "clean"


def test_some_stories_about_a_person_show_others_of_their_event(default_world, web):
    # Given the news pages of the realistic web
    assert web.pages is not None
    news = [page for page in range(web.photo_count, web.page_count) if web.pages.site[page] == Site.NEWS]
    absent = [page for page in news if web.pages.subject[page] not in web.people_in(web.page_photo(page))]
    # Then about one in seven is about someone of the photo's event whom the photo does not show
    assert abs(len(absent) / len(news) - DEFAULT_PAGES.news_about_absent) < 0.03
    page = absent[0]
    about = web.pages.subject[page]
    assert about in default_world.members[web.event_of(web.page_photo(page))]
    # And a search for that person can return it: a result that does not show them
    assert default_world.name(about) in web.page_title(page)
    assert page in ranker_for(web).rank(default_world.name(about), 100_000)


def test_the_diagnostic_without_the_left_to_right_marker_changes_only_those_words(default_world, web):
    from dataclasses import replace

    from visual_degrees_tools.sandbox.webs import WEBS

    model = WEBS["realistic"]
    assert model.pages is not None
    plain = PhotoWeb(default_world, 0, photos=model.photos, pages=replace(model.pages, left_to_right=""))
    assert plain.identity != web.identity
    for page in range(0, web.page_count, 7):
        assert plain.page_title(page) == web.page_title(page).replace("(L-R) ", "")
        assert page_names(plain, page) == page_names(web, page)
    assert any(web.page_title(p).startswith("(L-R) ") for p in range(web.photo_count))


def test_a_new_page_parameter_left_at_its_default_keeps_the_webs_identity(default_world, web):
    # A deployment's evidence graph and caches are scoped by the web's identity: the realistic web
    # keeps the one it had before `PageParameters.wire` and `.headline` existed, and each variant has its own
    assert web.identity == "sandbox-cec5635c0696b150"
    assert "wire" not in DEFAULT_PAGES.fingerprint()
    assert "wire=True" in replace(DEFAULT_PAGES, wire=True).fingerprint()
    assert "headline" not in DEFAULT_PAGES.fingerprint()
    assert "headline=True" in replace(DEFAULT_PAGES, headline=True).fingerprint()


def wire_style(title: str, plain: str) -> bool:
    """Under a dateline and over a credit ("LOS ANGELES, CA - JUNE 22: … (Photo by A B/Getty Images)")."""
    return title.endswith("/Getty Images)") and " - " in title.split(":")[0]


def headline_style(title: str, plain: str) -> bool:
    """Every word capitalised but a name's particles ("Kevin Bacon And A Guest Attend The …")."""
    lower = [w for w in re.findall(r"[^\W\d_][\w'’]*", title) if w.islower() and len(w) > 2]
    return title != plain and title.lower() == plain.lower() and set(lower) <= NAME_PARTICLES


NAME_PARTICLES = {"de", "van", "von", "der", "den", "del", "della"}


@pytest.mark.parametrize(
    ("variant", "written", "shape"),
    [
        ("wire-captions", wire_style, ", left, and "),
        ("headline-captions", headline_style, " And A Guest Attend "),
    ],
)
def test_a_caption_style_variant_changes_only_how_agency_captions_are_written(
    default_world, web, variant, written, shape
):
    from visual_degrees.domain.captions import keys_in_title
    from visual_degrees_tools.bench.web_variants import variant_web

    styled = variant_web(default_world, variant)
    assert styled.identity != web.identity
    assert styled.page_count == web.page_count
    agency = [p for p in range(styled.page_count) if styled.pages.site[p] == Site.AGENCY]
    for page in agency[::5]:
        # The same photo and people named to search by, the caption written in the variant's style
        assert styled.page_photo(page) == web.page_photo(page)
        assert page_names(styled, page) == page_names(web, page)
        title = styled.page_title(page)
        assert written(title, web.page_title(page))
        # And a run reads the same people from it as from the plain caption, however it is written
        assert keys_in_title(title) == keys_in_title(web.page_title(page))
    assert any(shape in styled.page_title(p) for p in agency)
