"""Evidence cards (search/evidence.py): every link shown has a card naming it with its photo, even
when links reused from the evidence graph share one group photo (the graph keeps its pairs apart)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from visual_degrees.domain.models import Edge, Evidence
from visual_degrees.search.evidence import announce


class CardLog:
    """A scope's event log as far as cards go: an event is appended once per key, as the run's is."""

    def __init__(self) -> None:
        self.cards: dict[str, dict[str, Any]] = {}

    def person(self, key: str) -> SimpleNamespace:
        return SimpleNamespace(name=key.title())

    def emit(self, type_: str, data: dict[str, Any], *, key: str) -> None:
        self.cards.setdefault(key, data)

    def pairs_shown(self, image_url: str) -> set[frozenset[str]]:
        return {
            frozenset((link["fromKey"], link["toKey"]))
            for card in self.cards.values()
            if card["imageUrl"] == image_url
            for link in card["links"]
        }


def edge(a: str, b: str, *, earlier_run: bool) -> Edge:
    ev = Evidence(image_url="u/group", confidence_a=99.0, confidence_b=98.0, earlier_run=earlier_run)
    return Edge(a=a, b=b, name_a=a.title(), name_b=b.title(), evidence=ev)


def test_two_reused_links_of_one_group_photo_each_get_a_card_naming_them() -> None:
    # Given two links an earlier run proved with one photo of ann, cat and dan
    log = CardLog()
    # When a path shows ann—cat, then another shows cat—dan
    announce(log, edge("ann", "cat", earlier_run=True))  # type: ignore[arg-type]
    announce(log, edge("cat", "dan", earlier_run=True))  # type: ignore[arg-type]
    announce(log, edge("ann", "cat", earlier_run=True))  # type: ignore[arg-type]
    # Then a card names each pair with that photo, and a pair shown again adds no card
    assert log.pairs_shown("u/group") == {frozenset(("ann", "cat")), frozenset(("cat", "dan"))}
    assert len(log.cards) == 2


def test_a_photo_this_run_recognised_is_one_card() -> None:
    # A photo recognised now is announced naming everyone in it (evidence.record): one card a photo
    log = CardLog()
    announce(log, edge("ann", "cat", earlier_run=False))  # type: ignore[arg-type]
    announce(log, edge("ann", "cat", earlier_run=False))  # type: ignore[arg-type]
    assert len(log.cards) == 1
