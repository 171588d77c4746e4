"""Search, fetch and recognise: turn one query into observed photos, paying only for what is new.

Every paid call is reserved first (refused -> stop, report which budget); searches are cached per
query and recognitions per image sha256, so a retried step or the same picture at two URLs costs
nothing twice. An image that cannot be used (dead link, unsupported format, a provider hiccup after
the adapter's own retries) is skipped, not fatal; configuration errors are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees.domain.models import Face, ImageHit
from visual_degrees.services.scope import RunScope


@dataclass
class Observation:
    hit: ImageHit
    query: str
    sha256: str
    faces: list[Face]


@dataclass
class Observed:
    observations: list[Observation] = field(default_factory=list)
    exhausted: str | None = None  # the budget that refused a call, if any
    skipped: int = 0  # images that could not be used
    searched: bool = False  # a paid search was made (not served from cache)


class _Refused(Exception):
    def __init__(self, budget: str) -> None:
        self.budget = budget


def observe(scope: RunScope, query: str, *, parallel: bool) -> Observed:
    """Search `query` and recognise its first images (options.images_per_search)."""
    result = Observed()
    hits = scope.mem.cached_search(query)
    if hits is None:
        refused = scope.refusal("searches")
        if refused:
            result.exhausted = refused
            return result
        try:
            hits = scope.ctx.providers.search.search(query, scope.options.images_per_search)
        except ProviderError:
            hits = []
        hits = hits[: scope.options.images_per_search]
        scope.mem.cache_search(query, hits)
        result.searched = True

    calls: list[Callable[[], Observation | None]] = [
        (lambda hit=hit: _observe_image(scope, query, hit)) for hit in hits
    ]
    if parallel and len(calls) > 1:
        outcomes = scope.ctx.clock.gather(calls)
    else:
        outcomes = []
        for call in calls:
            try:
                outcomes.append(call())
            except _Refused as refused:
                outcomes.append(refused)
                break  # no budget left for the rest either
    seen: set[str] = set()
    for outcome in outcomes:
        if isinstance(outcome, _Refused):
            result.exhausted = outcome.budget
        elif isinstance(outcome, BaseException):
            raise outcome  # ConfigurationError and the unexpected: the step fails, Catch reports it
        elif outcome is None:
            result.skipped += 1
        elif outcome.sha256 not in seen:  # the same picture at two URLs counts once
            seen.add(outcome.sha256)
            result.observations.append(outcome)
    return result


def _observe_image(scope: RunScope, query: str, hit: ImageHit) -> Observation | None:
    mem = scope.mem
    fetched = mem.cached_fetch(hit.image_url)
    image = None
    if fetched is None:
        try:
            image = scope.ctx.providers.fetcher.fetch(hit.image_url)
        except (ProviderError, TransientProviderError) as exc:
            mem.cache_fetch(hit.image_url, {"error": exc.code})
            return None
        fetched = {"sha256": image.sha256}
        mem.cache_fetch(hit.image_url, fetched)
    if "error" in fetched:
        return None
    sha = fetched["sha256"]
    faces = mem.cached_faces(sha)
    if faces is None:
        if image is None:  # fetched by an earlier attempt that did not get to recognise it
            try:
                image = scope.ctx.providers.fetcher.fetch(hit.image_url)
            except (ProviderError, TransientProviderError):
                return None
        refused = scope.refusal("recognitions")
        if refused:
            raise _Refused(refused)
        try:
            faces = scope.ctx.providers.recognizer.recognize(image)
        except (ProviderError, TransientProviderError):
            return None
        mem.cache_faces(sha, faces)
    return Observation(hit=hit, query=query, sha256=sha, faces=faces)
