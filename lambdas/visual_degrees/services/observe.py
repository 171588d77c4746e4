"""Search, fetch and recognise: turn one query into observed photos, paying only for what is new.

Every paid call is reserved first (refused -> stop, report which budget); searches are cached per
query and recognitions per image sha256, so a retried step or the same picture at two URLs costs
nothing twice. An image that cannot be used (dead link, unsupported format, a provider hiccup after
the adapter's own retries) is skipped, not fatal; configuration errors are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees.domain.models import Face, FetchedImage, ImageHit
from visual_degrees.services.scope import RunScope

T = TypeVar("T")


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

    # Fetch first (free), then recognise each distinct picture once: the same image at two URLs,
    # fetched concurrently, must not be paid for twice.
    fetched = _run(scope, [(lambda hit=hit: _fetch(scope, hit)) for hit in hits], parallel)
    pending: dict[str, tuple[ImageHit, FetchedImage | None]] = {}
    for outcome in fetched:
        if isinstance(outcome, tuple) and scope.mem.cached_faces(outcome[1]) is None:
            pending.setdefault(outcome[1], (outcome[0], outcome[2]))
    recognised = _run(
        scope,
        [(lambda sha=sha, got=got: _recognise(scope, sha, *got)) for sha, got in pending.items()],
        parallel,
    )
    for outcome in recognised:
        if isinstance(outcome, _Refused):
            result.exhausted = outcome.budget
        elif isinstance(outcome, BaseException):
            raise outcome  # ConfigurationError and the unexpected: the step fails, Catch reports it

    seen: set[str] = set()
    for hit, outcome in zip(hits, fetched, strict=False):
        if isinstance(outcome, BaseException):
            raise outcome
        faces = scope.mem.cached_faces(outcome[1]) if outcome is not None else None
        if faces is None:
            result.skipped += outcome is None
            continue
        if outcome[1] not in seen:
            seen.add(outcome[1])
            result.observations.append(Observation(hit=hit, query=query, sha256=outcome[1], faces=faces))
    return result


def _run(scope: RunScope, calls: list[Callable[[], T]], parallel: bool) -> list[T | BaseException]:
    """All calls concurrently (the clock decides what that costs), or in turn until a budget refuses."""
    if parallel and len(calls) > 1:
        return scope.ctx.clock.gather(calls)
    outcomes: list[T | BaseException] = []
    for call in calls:
        try:
            outcomes.append(call())
        except _Refused as refused:
            outcomes.append(refused)
            break  # no budget left for the rest either
        except BaseException as exc:
            outcomes.append(exc)
    return outcomes


def _fetch(scope: RunScope, hit: ImageHit) -> tuple[ImageHit, str, FetchedImage | None] | None:
    """(hit, sha256, bytes if fetched now) for a usable image, None for an unusable one."""
    mem = scope.mem
    cached = mem.cached_fetch(hit.image_url)
    if cached is not None:
        return None if "error" in cached else (hit, cached["sha256"], None)
    try:
        image = scope.ctx.providers.fetcher.fetch(hit.image_url)
    except (ProviderError, TransientProviderError) as exc:
        mem.cache_fetch(hit.image_url, {"error": exc.code})
        return None
    mem.cache_fetch(hit.image_url, {"sha256": image.sha256})
    return hit, image.sha256, image


def _recognise(scope: RunScope, sha: str, hit: ImageHit, image: FetchedImage | None) -> None:
    """Recognise one picture (reserving a recognition first) into the run's cache by sha256."""
    if image is None:  # fetched by an earlier attempt that did not get to recognise it
        try:
            image = scope.ctx.providers.fetcher.fetch(hit.image_url)
        except (ProviderError, TransientProviderError):
            return
    refused = scope.refusal("recognitions")
    if refused:
        raise _Refused(refused)
    try:
        faces = scope.ctx.providers.recognizer.recognize(image)
    except (ProviderError, TransientProviderError):
        return  # this picture is skipped; the next one may do
    scope.mem.cache_faces(sha, faces)
