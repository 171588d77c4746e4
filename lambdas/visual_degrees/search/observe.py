"""Search, fetch and recognise: turn one query into observed photos, paying only for what is new.

Every paid call is reserved first (refused -> stop, report which budget); searches are cached per
query and recognitions per image sha256, so a retried step or the same picture at two URLs costs
nothing twice. With `shared`, answers from earlier runs (SharedMemory) are used before paying, and
every paid answer is kept for later runs. An image that cannot be used (dead link, unsupported
format, a provider hiccup after the adapter's own retries) is skipped, not fatal; configuration
errors are. A call the provider throttled (or the shared limiter found no slot for in time) was
not billed: its reservation is given back.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal, TypeVar

from visual_degrees.domain.errors import (
    NoSlotInTime,
    ProviderError,
    ProviderThrottled,
    SearchUnavailable,
    TransientProviderError,
)
from visual_degrees.domain.models import Face, FetchedImage, ImageHit
from visual_degrees.search.scope import SearchScope

T = TypeVar("T")
logger = logging.getLogger(__name__)


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
    failed: bool = False  # ... and the provider failed it (the reservation stands)
    hits: int = 0  # how many images the search returned


class _Refused(Exception):
    def __init__(self, budget: str) -> None:
        self.budget = budget


def observe(
    scope: SearchScope,
    query: str,
    *,
    parallel: bool,
    shared: bool = False,
    worth: Callable[[ImageHit], bool] | None = None,
) -> Observed:
    """Search `query` and recognise its first images (options.images_per_search); with `worth`,
    only the images it accepts (the rest are neither fetched nor paid for)."""
    result = Observed()
    # The whole page is bought (one request either way) and cached, so a later read of the query
    # sees every title; only its first results are recognised, as a search for a few would give them.
    hits = _search(scope, query, shared, result)
    if hits is None:
        return result
    hits = hits[: scope.options.images_per_search]
    result.hits = len(hits)
    if worth is not None:
        hits = [hit for hit in hits if worth(hit)]
    return recognise(scope, hits, query, parallel=parallel, shared=shared, into=result)


def read_page(scope: SearchScope, query: str, *, shared: bool, result: Observed) -> list[ImageHit] | None:
    """One request's worth of results for `query` (as many as the engine returns for one paid
    request: `page_size`, Brave 200, Google 10), their titles to read as leads; None when the search
    budget refused (noted in `result`). Nothing is recognised here."""
    hits = _search(scope, query, shared, result)
    if hits is not None:
        result.hits = len(hits)
    return hits


def cached_page(scope: SearchScope, query: str) -> list[ImageHit] | None:
    """The query's hits if this run or an earlier one read them (no paid call), else None."""
    hits = scope.caches.cached_search(query)
    if hits is None and scope.rules.shared_cache:
        hits = scope.shared.search(query, page_size(scope))
    return hits


def page_size(scope: SearchScope) -> int:
    """Results one paid request returns (the search adapter's `page_size`, else images_per_search)."""
    size = getattr(scope.ctx.providers.search, "page_size", None)
    return size if isinstance(size, int) and size > 0 else scope.options.images_per_search


def recognise(
    scope: SearchScope,
    hits: list[ImageHit],
    query: str,
    *,
    parallel: bool,
    shared: bool = False,
    into: Observed | None = None,
    prefetched: Prefetched | None = None,
) -> Observed:
    """Fetch and recognise `hits` (found by `query`), each distinct picture once, paying only for
    what no cache answers."""
    result = into or Observed()
    # Fetch first (free), then recognise each distinct picture once: the same image at two URLs,
    # fetched concurrently, must not be paid for twice.
    ready = prefetched.images if prefetched else {}
    fetched = _run(
        scope,
        [
            partial(_ready, ready[hit.image_url])
            if hit.image_url in ready
            else partial(_fetch, scope, hit, shared)
            for hit in hits
        ],
        parallel,
    )
    faces_of = _recognise_all(scope, fetched, shared, parallel, result)
    seen: set[str] = set()
    for got in fetched:
        faces = faces_of.get(got.sha256) if isinstance(got, _Fetched) else None
        if not isinstance(got, _Fetched) or faces is None:
            result.skipped += 1
        elif got.sha256 not in seen:
            seen.add(got.sha256)
            result.observations.append(Observation(hit=got.hit, query=query, sha256=got.sha256, faces=faces))
    return result


@dataclass
class Prefetched:
    """Images fetched before deciding what to recognise: their bytes, kept for the recognition, and
    which of them were recognised before (the same bytes met under another URL, on another page)."""

    images: dict[str, _Fetched] = field(default_factory=dict)  # image URL -> the usable image
    known: set[str] = field(default_factory=set)  # image URLs whose faces are known already


def prefetch(scope: SearchScope, hits: list[ImageHit], *, parallel: bool, shared: bool = False) -> Prefetched:
    """Fetch `hits` (no money; concurrently, no time beyond the slowest) to learn each image's
    sha256 before paying to recognise it."""
    result = Prefetched()
    for got in _run(scope, [partial(_fetch, scope, hit, shared) for hit in hits], parallel):
        if isinstance(got, _Fetched):
            result.images[got.hit.image_url] = got
            faces = scope.caches.cached_faces(got.sha256)
            if faces is not None or (shared and scope.shared.faces(got.sha256) is not None):
                result.known.add(got.hit.image_url)
    return result


def _search(scope: SearchScope, query: str, shared: bool, result: Observed) -> list[ImageHit] | None:
    """The query's whole page (page_size): from this run's cache, earlier runs' (`shared`), else one
    paid search; None when the search budget refused (noted in `result`). Every caller asks for the
    whole page, so one cached page serves them all."""
    count = page_size(scope)
    hits = scope.caches.cached_search(query)
    if hits is not None:
        scope.ctx.cache_tally.searches_in_run += 1
        return hits
    if shared and (hits := scope.shared.search(query, count)) is not None:
        scope.ctx.cache_tally.searches_shared += 1
        scope.caches.cache_search(query, hits)
        return hits
    refused = scope.refusal("searches")
    if refused:
        result.exhausted = refused
        return None
    reservation = uuid.uuid4().hex
    try:
        hits = scope.ctx.providers.search.search(query, count)[:count]
    except NoSlotInTime:
        scope.budget.refund("searches", reservation)
        result.exhausted = "runtime"  # waited for a slot as long as the run had
        return None
    except (ProviderError, TransientProviderError) as exc:
        # The call failed after the adapter's own retries: paid for (its reservation stands) unless
        # it was throttled. The run goes on (asking again pays again: nothing is cached), until too
        # many searches in a row have failed.
        if isinstance(exc, ProviderThrottled):
            scope.budget.refund("searches", reservation)
        _search_failed(scope, exc)
        result.searched = result.failed = True
        return []
    scope.budget.note_search_outcome(failed=False)
    scope.caches.cache_search(query, hits)
    if shared:
        scope.shared.cache_search(query, count, hits)
    result.searched = True
    return hits


# Searches failing in a row (each after the adapter's retries) before the run gives up with `error`.
MAX_SEARCH_FAILURES_IN_A_ROW = 4


def _search_failed(scope: SearchScope, exc: ProviderError | TransientProviderError) -> None:
    in_a_row = scope.budget.note_search_outcome(failed=True)
    # Each failure is told when it happens; the message names the provider and its status, never
    # a key or a URL.
    logger.warning(
        "image search failed",
        extra={"runId": scope.state.run_id, "code": exc.code, "error": exc.message, "inARow": in_a_row},
    )
    if in_a_row >= MAX_SEARCH_FAILURES_IN_A_ROW:
        raise SearchUnavailable(
            f"image search failed {in_a_row} times in a row ({exc.code}); nothing else can proceed"
        )


def _recognise_all(
    scope: SearchScope,
    fetched: list[_Fetched | BaseException | None],
    shared: bool,
    parallel: bool,
    result: Observed,
) -> dict[str, list[Face]]:
    """Faces per distinct picture: cached ones first, then one paid recognition each, until a budget
    refuses (noted in `result`)."""
    pending: dict[str, _Fetched] = {}
    faces_of: dict[str, list[Face]] = {}
    for got in fetched:
        if isinstance(got, BaseException):
            raise got  # the unexpected: the step fails, Catch reports it
        if got is None or got.sha256 in faces_of or got.sha256 in pending:
            continue
        faces = scope.caches.cached_faces(got.sha256)
        if faces is not None:
            scope.ctx.cache_tally.recognitions_in_run += 1
        elif shared and (faces := scope.shared.faces(got.sha256)) is not None:
            scope.ctx.cache_tally.recognitions_shared += 1
            scope.caches.cache_faces(got.sha256, faces)
        if faces is None:
            pending[got.sha256] = got
        else:
            faces_of[got.sha256] = faces
    recognised = _run(scope, [partial(_recognise, scope, got, shared) for got in pending.values()], parallel)
    for got, outcome in zip(pending.values(), recognised, strict=False):
        if isinstance(outcome, _Refused):
            result.exhausted = outcome.budget
        elif isinstance(outcome, BaseException):
            raise outcome  # ConfigurationError and the unexpected: the step fails, Catch reports it
        elif outcome is not None:
            faces_of[got.sha256] = outcome
    return faces_of


def _run(scope: SearchScope, calls: list[Callable[[], T]], parallel: bool) -> list[T | BaseException]:
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


@dataclass
class _Fetched:
    hit: ImageHit
    sha256: str
    image: FetchedImage | None  # None when the fetch was cached by an earlier attempt or run


def _ready(got: _Fetched) -> _Fetched:
    return got


def _fetch(scope: SearchScope, hit: ImageHit, shared: bool) -> _Fetched | None:
    """The usable image behind `hit` (fetch results cached per URL), or None if it is unusable."""
    outcome, image = _fetch_outcome(scope, hit.image_url, shared)
    return None if "error" in outcome else _Fetched(hit, outcome["sha256"], image)


def _fetch_outcome(scope: SearchScope, url: str, shared: bool) -> tuple[dict[str, Any], FetchedImage | None]:
    """How fetching `url` went, as cached per URL ({"sha256"} or {"error", "transient"}), and the
    image when fetched now (None: the outcome was cached by an earlier attempt or run)."""
    mem = scope.caches
    cached = mem.cached_fetch(url)
    if cached is None and shared and (cached := scope.shared.fetch(url)) is not None:
        mem.cache_fetch(url, cached)
    if cached is not None:
        return cached, None
    try:
        image = scope.ctx.providers.fetcher.fetch(url)
    except (ProviderError, TransientProviderError) as exc:
        # A transient failure is remembered for this run only: another run may find the link alive.
        failed = {"error": exc.code, "transient": _transient(exc)}
        mem.cache_fetch(url, failed)
        return failed, None
    mem.cache_fetch(url, {"sha256": image.sha256})
    if shared:
        scope.shared.cache_fetch(url, {"sha256": image.sha256})
    return {"sha256": image.sha256}, image


def _recognise(scope: SearchScope, got: _Fetched, shared: bool) -> list[Face] | None:
    """Recognise one picture (reserving a recognition first) into the run's cache by sha256."""
    image = got.image
    if image is None:  # fetched by an earlier attempt (or run) that did not get to recognise it
        try:
            image = scope.ctx.providers.fetcher.fetch(got.hit.image_url)
        except (ProviderError, TransientProviderError):
            return None
    refused = scope.refusal("recognitions")
    if refused:
        raise _Refused(refused)
    reservation = uuid.uuid4().hex
    try:
        faces = scope.ctx.providers.recognizer.recognize(image)
    except ProviderThrottled as throttled:
        scope.budget.refund("recognitions", reservation)
        if isinstance(throttled, NoSlotInTime):
            raise _Refused("runtime") from None  # waited for a slot as long as the run had
        return None  # not billed; this picture is skipped, the next one may do
    except (ProviderError, TransientProviderError):
        return None  # this picture is skipped; the next one may do
    scope.caches.cache_faces(got.sha256, faces)
    if shared:
        scope.shared.cache_faces(got.sha256, faces)
    return faces


# A photo fetched again: it "resolves" to the image it served; the web says it is "gone" (no image
# there any more, or other bytes); or it is "unreachable" now, which says nothing of the photo.
PhotoCheck = Literal["resolves", "gone", "unreachable"]
# The live fetcher's reasons (ImageRejected.reason) for a failure of the host or the way to it.
_PASSING_REASONS = frozenset({"timeout", "unreachable", "unresolvable", "http_408", "http_429"})


def photo_check(scope: SearchScope, image_url: str, sha256: str) -> PhotoCheck:
    """Does the photo at `image_url` still serve the image it served (its sha256)? Fetched again (a
    fetch is not a paid call), unless this run fetched it already; earlier runs' answers do not count."""
    outcome, _ = _fetch_outcome(scope, image_url, shared=False)
    if "error" in outcome:
        return "unreachable" if outcome.get("transient") else "gone"
    return "resolves" if not sha256 or outcome["sha256"] == sha256 else "gone"


def _transient(exc: ProviderError | TransientProviderError) -> bool:
    """A fetch that failed for a reason that may pass (a timeout, a 5xx, the host down), not because
    the URL no longer serves the image."""
    if isinstance(exc, TransientProviderError):
        return True
    reason = str(getattr(exc, "reason", ""))
    return reason in _PASSING_REASONS or reason.startswith("http_5")
