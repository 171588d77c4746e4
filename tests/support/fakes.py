"""Small hand-built fakes of the ports for step and runner tests (the sandbox is tested on its own)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees.domain.models import Face, FetchedImage, ImageHit, RunEvent
from visual_degrees.domain.names import name_key
from visual_degrees.domain.planning import PlannerContext, PlannerReply

T = TypeVar("T")


class ManualClock:
    """Clock port with hand-moved time; gather runs calls one after another."""

    def __init__(self, start: float = 1_767_225_600.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds

    def gather(self, calls: Sequence[Callable[[], T]]) -> list[T | BaseException]:
        out: list[T | BaseException] = []
        for call in calls:
            try:
                out.append(call())
            except BaseException as exc:  # returned in place, as the port promises
                out.append(exc)
        return out


def face(name: str, confidence: float = 99.0, celebrity_id: str | None = None) -> Face:
    return Face(name=name, celebrity_id=celebrity_id or f"id-{name_key(name)}", confidence=confidence)


@dataclass
class FakeWeb:
    """A scripted photo web: queries -> photo URLs, photo URL -> faces. Counts every call."""

    photos: dict[str, list[Face]] = field(default_factory=dict)
    results: dict[str, list[str]] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    transient_search_failures: int = 0
    dead: set[str] = field(default_factory=set)
    titles: dict[str, str] = field(default_factory=dict)  # photo URL -> its title (default: the query)
    copies: dict[str, str] = field(default_factory=dict)  # photo URL -> the URL whose bytes it serves
    timeouts: Counter[str] = field(default_factory=Counter)  # photo URL -> fetches that time out first

    def photo(self, url: str, *faces: Face) -> str:
        self.photos[url] = list(faces)
        return url

    def answer(self, query: str, *urls: str) -> None:
        self.results[query] = list(urls)

    def titled(self, url: str, title: str, *faces: Face) -> str:
        """A photo whose result carries `title` (what a caption says), showing `faces`."""
        self.titles[url] = title
        return self.photo(url, *faces)

    def copy(self, url: str, of: str, title: str) -> str:
        """The same image as `of` (the very same bytes) republished at `url` under `title`."""
        self.copies[url] = of
        return self.titled(url, title, *self.photos[of])

    # ImageSearch
    def search(self, query: str, count: int) -> list[ImageHit]:
        self.calls["search"] += 1
        if self.transient_search_failures > 0:
            self.transient_search_failures -= 1
            raise TransientProviderError("search engine answered 503")
        urls = self.results.get(query, [])[:count]
        return [ImageHit(image_url=u, page_url=u + ".html", title=self.titles.get(u, query)) for u in urls]

    # ImageFetcher
    def fetch(self, url: str) -> FetchedImage:
        self.calls["fetch"] += 1
        if self.timeouts[url] > 0:
            self.timeouts[url] -= 1
            raise TransientProviderError("image download timed out")
        if url in self.dead or url not in self.photos:
            raise ProviderError(f"dead link {url}")
        data = self.copies.get(url, url).encode()
        return FetchedImage(
            url=url, data=data, content_type="image/png", sha256=hashlib.sha256(data).hexdigest()
        )

    # CelebrityRecognizer
    def recognize(self, image: FetchedImage) -> list[Face]:
        self.calls["recognize"] += 1
        return list(self.photos[image.url])


@dataclass
class ScriptedPlanner:
    """Planner port returning scripted replies in turn (the last one repeats)."""

    replies: list[PlannerReply | Exception]
    seen: list[PlannerContext] = field(default_factory=list)

    def plan(self, context: PlannerContext) -> PlannerReply:
        self.seen.append(context)
        reply = self.replies[min(len(self.seen) - 1, len(self.replies) - 1)]
        if isinstance(reply, Exception):
            raise reply
        return reply


@dataclass
class ListSink:
    events: list[RunEvent] = field(default_factory=list)

    def deliver(self, event: RunEvent) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [e.data for e in self.events if e.type == type_]
