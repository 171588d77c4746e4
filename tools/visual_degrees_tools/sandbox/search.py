"""ImageSearch over the photo web's captions (ranking.py ranks), with latency and faults."""

from __future__ import annotations

from functools import cached_property

from visual_degrees.domain.errors import InvalidInput, ProviderThrottled, TransientProviderError
from visual_degrees.domain.models import ImageHit
from visual_degrees_tools.sandbox.provider import WebProvider
from visual_degrees_tools.sandbox.ranking import Ranker, query_words, ranker_for

__all__ = ["SandboxImageSearch", "query_words"]


class SandboxImageSearch(WebProvider):
    """The ImageSearch port over a PhotoWeb. Charges `latencies.search` to the clock per call.

    `page_size`: results one paid request returns, as Brave's image search does (up to 200 at the
    price of one request), the engine the live system uses by default."""

    page_size = 200

    @cached_property
    def ranker(self) -> Ranker:
        return ranker_for(self.web)

    def search(self, query: str, count: int) -> list[ImageHit]:
        if not isinstance(query, str):
            raise InvalidInput("a search query must be a string")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidInput(f"count must be a whole number >= 0, not {count!r}")
        self.calls += 1
        identity = f"{query}\x1f{count}"
        if self.faults.strikes("search_429", identity):
            self.clock.advance(self.latencies.throttled)
            raise ProviderThrottled("image search throttled (HTTP 429)")
        self.clock.advance(self.latencies.search)
        if self.faults.strikes("search_5xx", identity):
            raise TransientProviderError("image search failed (HTTP 503)")
        return [self._hit(photo) for photo in self.ranker.rank(query, count)]

    def _hit(self, photo: int) -> ImageHit:
        web = self.web
        return ImageHit(
            image_url=web.image_url(photo), page_url=web.page_url(photo), title=web.caption(photo)
        )

    def names_in(self, query: str) -> list[str]:
        return self.ranker.names_in(query)

    def rank(self, query: str, count: int) -> list[int]:
        return self.ranker.rank(query, count)
