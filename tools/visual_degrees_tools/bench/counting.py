"""Providers that count every paid call a run makes (queries searched, images recognised): how the
continuation figures and tests show that no search or recognition is made twice across a run's parts."""

from __future__ import annotations

from collections import Counter
from typing import Any

from visual_degrees.domain.models import FetchedImage, ImageHit
from visual_degrees.ports import Providers


class Counting:
    """The search, fetcher and recogniser of `inner`, counting into the given tallies (new ones by
    default)."""

    def __init__(
        self, inner: Providers, searches: Counter[str] | None = None, recognised: Counter[str] | None = None
    ) -> None:
        self.inner = inner
        self.searches: Counter[str] = Counter() if searches is None else searches
        self.recognised: Counter[str] = Counter() if recognised is None else recognised

    @property
    def page_size(self) -> int | None:
        return getattr(self.inner.search, "page_size", None)

    def search(self, query: str, count: int) -> list[ImageHit]:
        self.searches[query] += 1
        return self.inner.search.search(query, count)

    def fetch(self, url: str) -> FetchedImage:
        return self.inner.fetcher.fetch(url)

    def recognize(self, image: FetchedImage) -> list[Any]:
        self.recognised[image.sha256] += 1
        return self.inner.recognizer.recognize(image)
