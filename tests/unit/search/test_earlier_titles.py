"""Which titles of a page are kept, and under whom (caption_leads/earlier_titles.note_page)."""

from __future__ import annotations

from types import SimpleNamespace

from visual_degrees.domain.models import ImageHit
from visual_degrees.search.strategies.caption_leads import earlier_titles


class Kept:
    def __init__(self) -> None:
        self.by_person: dict[str, list[str]] = {}

    def note_titles(self, by_person: dict[str, list[ImageHit]]) -> None:
        assert not self.by_person, "a page's titles are written in one batch"
        for key, hits in by_person.items():
            self.by_person.setdefault(key, []).extend(h.image_url for h in hits)


def note(*titles: str) -> dict[str, list[str]]:
    kept = Kept()
    hits = [ImageHit(image_url=f"u/{n}", title=title) for n, title in enumerate(titles)]
    earlier_titles.note_page(SimpleNamespace(shared=kept), hits)  # type: ignore[arg-type]
    return kept.by_person


def test_a_title_naming_two_people_is_kept_under_each_and_a_portrait_under_nobody() -> None:
    kept = note("Ann Lee and Bob Ray at a gala", "Ann Lee arrives at the premiere", "IMG_0042.jpg")
    assert kept == {"ann lee": ["u/0"], "bob ray": ["u/0"]}


def test_a_crowds_caption_is_kept_under_nobody() -> None:
    crowd = ", ".join(f"Person{c} Name" for c in "ABCDEFG") + " at a gala"
    assert note(crowd) == {}


def test_a_page_keeps_a_bounded_number_of_entries_the_smallest_groups_first() -> None:
    # Given a page of 200 results: 100 titles naming five people, 100 naming two (700 entries)
    groups = [f"Ann{n} Lee, Bob{n} Ray, Cy{n} Orr, Di{n} Ash and Ed{n} Yu at a gala" for n in range(100)]
    pairs = [f"Dan{n} Oz and Eve{n} Fox at a gala" for n in range(100)]
    kept = note(*groups, *pairs)

    # Then it keeps the bound's worth (600): every pair's title, then 80 of the others'
    assert sum(len(urls) for urls in kept.values()) == earlier_titles.KEPT_PER_PAGE == 600
    assert all(f"dan{n} oz" in kept for n in range(100))
    assert sum(f"ann{n} lee" in kept for n in range(100)) == 80
