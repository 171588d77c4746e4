"""Titles kept by whom they name (SharedMemory.note_titles / titles_naming): the same on SQLite (file
and in memory) and on DynamoDB (moto). One item per person and photo, per photo web, kept as long as
a fetched image; no face data (a title, a photo's URL and its page's)."""

from __future__ import annotations

from tests.support.memory_fixtures import ManualClock
from tests.support.memory_fixtures import any_memory as any_memory  # the `memory` fixture
from tests.support.memory_fixtures import manual_clock as manual_clock  # `clock`
from tests.support.memory_fixtures import shared_moto_client as shared_moto_client  # `moto_client`
from visual_degrees.domain.models import ImageHit
from visual_degrees.lifecycle.run_memory import SharedMemory
from visual_degrees.ports import Memory

WEB = "sandbox:cast.G#seed=0#web=realistic"


def hit(n: int, title: str = "Ann Lee and Bob Ray at a gala") -> ImageHit:
    return ImageHit(image_url=f"https://p/{n}.jpg", page_url=f"https://p/{n}.html", title=title)


def test_titles_are_read_back_by_the_person_they_name(memory: Memory) -> None:
    shared = SharedMemory(memory, WEB)
    shared.note_titles({"ann lee": [hit(1), hit(2)], "bob ray": [hit(1)]})
    urls = sorted(h.image_url for h in shared.titles_naming("ann lee", 10))
    assert urls == [hit(1).image_url, hit(2).image_url]
    assert shared.titles_naming("bob ray", 10) == [hit(1)]
    assert shared.titles_naming("cy", 10) == []


def test_a_photo_read_again_is_one_entry_and_the_read_is_bounded(memory: Memory) -> None:
    shared = SharedMemory(memory, WEB)
    shared.note_titles({"ann lee": [hit(1), hit(2), hit(3)]})
    shared.note_titles({"ann lee": [hit(1, "Ann Lee and Bob Ray, another caption")]})
    assert len(shared.titles_naming("ann lee", 10)) == 3
    assert len(shared.titles_naming("ann lee", 2)) == 2


def test_photo_webs_never_share_titles(memory: Memory) -> None:
    SharedMemory(memory, WEB).note_titles({"ann lee": [hit(1)]})
    assert SharedMemory(memory, "live").titles_naming("ann lee", 10) == []


def test_titles_expire_with_fetched_images(memory: Memory, clock: ManualClock) -> None:
    shared = SharedMemory(memory, WEB)
    shared.note_titles({"ann lee": [hit(1)]})
    clock.advance(SharedMemory.FETCH_TTL - 1)
    assert shared.titles_naming("ann lee", 10) == [hit(1)]
    clock.advance(2)
    assert shared.titles_naming("ann lee", 10) == []


def test_one_photo_named_twice_on_a_page_is_one_entry(memory: Memory) -> None:
    # Given a page holding the same photo twice under one person (a batch may not name an item twice)
    shared = SharedMemory(memory, WEB)
    shared.note_titles({"ann lee": [hit(1), hit(1, "Ann Lee and Bob Ray again")], "bob ray": [hit(1)]})

    # Then each person keeps it once, as first read
    assert shared.titles_naming("ann lee", 10) == [hit(1)]
    assert shared.titles_naming("bob ray", 10) == [hit(1)]
