"""A run's providers paced by the shared RateLimiter, so runs queue for a provider's quota instead of
all hitting its 429s (the composition roots wrap each run's providers with `paced`).

Every search, recognition and planner request first waits for its slot, never past the ticket's
deadline. A throttled answer all the same (another deployment on the same key, a rate set too high)
is retried on a new slot, after the wait the provider asked for, as long as the run's allowance of
throttled answers lasts (ticket.throttled). A call that ends throttled, or finds no slot in time,
raises ProviderThrottled: it was not billed, and the service gives its reservation back. The
adapters under a pacer do not retry throttled answers themselves (RetryPolicy.retry_throttled), so
every attempt takes a slot. Fetching images is not paced: it is no quota we pay for.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from visual_degrees.domain.errors import (
    ConfigurationError,
    NoSlotInTime,
    ProviderThrottled,
    VisualDegreesError,
)
from visual_degrees.domain.models import Face, FetchedImage, ImageHit
from visual_degrees.domain.planning import ConnectContext, ConnectReply, PlannerContext, PlannerReply
from visual_degrees.ports import (
    CallTicket,
    CelebrityRecognizer,
    ImageSearch,
    Planner,
    Providers,
    RateLimiter,
)

T = TypeVar("T")
logger = logging.getLogger(__name__)


class Pace:
    """The calls of one run (one ticket) through one limiter."""

    def __init__(
        self,
        limiter: RateLimiter,
        ticket: CallTicket,
        *,
        now: Callable[[], float] = time.time,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        self._limiter = limiter
        self._ticket = ticket
        self._now = now
        self._sleep = sleep

    def call(self, provider: str, attempt: Callable[[], T], what: str) -> T:
        ticket = self._ticket
        while True:
            if not self._slot(provider):
                raise NoSlotInTime(f"{what}: no {provider} slot before the run's deadline")
            try:
                return attempt()
            except ProviderThrottled as throttled:
                wait = throttled.retry_after or 0.0
                if self._now() + wait > ticket.deadline or not ticket.throttled(provider):
                    raise
                if wait > 0:
                    self._sleep(wait)

    def _slot(self, provider: str) -> bool:
        try:
            return self._limiter.acquire(provider, self._ticket.client, self._ticket.deadline)
        except VisualDegreesError as exc:
            # Pacing only spares the provider's 429s (which are not billed): a limiter that cannot
            # be reached must not stop the run.
            logger.warning("rate limiter unavailable; calling unpaced", extra={"code": exc.code})
            return True


class PacedSearch:
    def __init__(self, inner: ImageSearch, pace: Pace) -> None:
        self._inner = inner
        self._pace = pace

    @property
    def page_size(self) -> int | None:
        """Results one paid request returns (services/observe.page_size), as the engine says."""
        size = getattr(self._inner, "page_size", None)
        return size if isinstance(size, int) else None

    def search(self, query: str, count: int) -> list[ImageHit]:
        return self._pace.call("search", lambda: self._inner.search(query, count), "image search")


class PacedRecognizer:
    def __init__(self, inner: CelebrityRecognizer, pace: Pace) -> None:
        self._inner = inner
        self._pace = pace

    def recognize(self, image: FetchedImage) -> list[Face]:
        return self._pace.call("recognition", lambda: self._inner.recognize(image), "recognition")


class PacedPlanner:
    def __init__(self, inner: Planner, pace: Pace) -> None:
        self._inner = inner
        self._pace = pace

    def plan(self, context: PlannerContext) -> PlannerReply:
        return self._pace.call("llm", lambda: self._inner.plan(context), "planner")

    def connect(self, context: ConnectContext) -> ConnectReply:
        connect = getattr(self._inner, "connect", None)
        if connect is None:
            raise ConfigurationError("no planner that matches the two sides is configured")
        reply: ConnectReply = self._pace.call("llm", lambda: connect(context), "planner")
        return reply


def paced(providers: Providers, limiter: RateLimiter, ticket: CallTicket) -> Providers:
    """`providers` with every paid call paced for the run `ticket` describes."""
    pace = Pace(limiter, ticket)
    planner = providers.planner
    return Providers(
        search=PacedSearch(providers.search, pace),
        fetcher=providers.fetcher,
        recognizer=PacedRecognizer(providers.recognizer, pace),
        planner=None if planner is None else PacedPlanner(planner, pace),
        web=providers.web,
    )
