"""The ports: what a step may ask of the outside world. Adapters (live, AWS, sandbox) implement them.

Steps only see these; ground truth, HTTP, SQL and AWS stay behind them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from visual_degrees.domain.graph_links import GraphLink, Neighbour
from visual_degrees.domain.models import Face, FetchedImage, ImageHit, RunEvent
from visual_degrees.domain.planning import ConnectContext, ConnectReply, PlannerContext, PlannerReply

T = TypeVar("T")


class ImageSearch(Protocol):
    """Adapters may say how many results one paid request returns (`page_size`: Brave 200, Google
    10); a run reads that many titles per search (search/observe.page_size)."""

    def search(self, query: str, count: int) -> list[ImageHit]:
        """Up to `count` image hits for `query`. Raises TransientProviderError / ProviderError."""
        ...


class ImageFetcher(Protocol):
    def fetch(self, url: str) -> FetchedImage:
        """The image at `url`, in a format the recogniser accepts. Raises ProviderError when unusable."""
        ...


class CelebrityRecognizer(Protocol):
    def recognize(self, image: FetchedImage) -> list[Face]:
        """Every recognised face, whatever its confidence; thresholds are the caller's business."""
        ...


class Planner(Protocol):
    def plan(self, context: PlannerContext) -> PlannerReply:
        """Raw suggestion; the caller validates it (it may name people it was never offered)."""
        ...

    def connect(self, context: ConnectContext) -> ConnectReply:
        """Pairs of the two sides it believes met, and who connects them (hunches, validated by
        the caller; never links)."""
        ...


class AllProviders(ImageSearch, ImageFetcher, CelebrityRecognizer, Protocol):
    """One object serving search, fetch and recognition (a test web, a deferred or absent bundle)."""


@dataclass
class Providers:
    """The one bundle of providers a run observes the world through. Adapters return it (the live
    ones from settings: adapters/live; the sandbox's: `Sandbox.providers`); steps get it in their
    StepContext."""

    search: ImageSearch
    fetcher: ImageFetcher
    recognizer: CelebrityRecognizer
    planner: Planner | None = None  # None: always the deterministic fallback
    # The photo web these providers observe ("live", or one sandbox world and seed). Evidence and
    # provider answers kept across runs belong to it: a photo of one web proves nothing in another.
    web: str = "live"

    @classmethod
    def of(cls, providers: AllProviders, planner: Planner | None = None, *, web: str = "live") -> Providers:
        return cls(search=providers, fetcher=providers, recognizer=providers, planner=planner, web=web)


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch: wall time live, simulated time in the sandbox."""
        ...

    def gather(self, calls: Sequence[Callable[[], T]]) -> list[T | BaseException]:
        """Run calls concurrently; each result or the exception it raised, in order."""
        ...


# ---- memory: a KV store with TTL, conditional writes and atomic counters ----------------------


@dataclass(frozen=True)
class Put:
    """Write `data` at (pk, sk). With if_absent, fail unless no live (unexpired) item is there."""

    pk: str
    sk: str
    data: dict[str, Any]
    ttl_seconds: int | None = None
    if_absent: bool = False


@dataclass(frozen=True)
class Increment:
    """Add `amount` to counter `name` of (pk, sk) (a missing item or counter counts as 0).

    `expect`: fail unless the counter currently equals it. `ceiling`: fail if the result would
    exceed it. Counters live beside `data`, not inside it.
    """

    pk: str
    sk: str
    name: str
    amount: int = 1
    expect: int | None = None
    ceiling: int | None = None
    ttl_seconds: int | None = None


Write = Put | Increment


@dataclass(frozen=True)
class Item:
    pk: str
    sk: str
    data: dict[str, Any] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    expires_at: float | None = None


class Memory(Protocol):
    """Run memory. Expired items are invisible to every read, even before the store deletes them.

    TTL rule: a Put sets the item's TTL; an Increment's `ttl_seconds` applies only when it creates
    the item. Expiry is in whole seconds (ceil(now + ttl)).
    """

    def get(self, pk: str, sk: str) -> Item | None: ...

    def put(self, put: Put) -> bool:
        """True if written; False if `if_absent` and a live item was there."""
        ...

    def increment(self, inc: Increment) -> int | None:
        """The counter's new value, or None if `expect`/`ceiling` refused it."""
        ...

    def transact(self, writes: Sequence[Write]) -> None:
        """All or nothing. Raises ConditionFailed(index=…) naming the first write that refused."""
        ...

    def put_all(self, puts: Sequence[Put]) -> None:
        """Write each item whole, unconditionally: its data and TTL, and no counters (whatever the
        item held is replaced). For many small items written together and read later (a page's
        titles, by each person they name): as few requests as the store allows, not all or nothing.
        Refused (ValueError) before anything is written: an `if_absent` Put, an item named twice."""
        ...

    def query(
        self, pk: str, prefix: str = "", *, after: str | None = None, limit: int | None = None
    ) -> list[Item]:
        """Live items of `pk` whose sk starts with `prefix` and sorts after `after`, in sk order."""
        ...

    def delete(self, pk: str, sk: str) -> None: ...


class EventSink(Protocol):
    def deliver(self, event: RunEvent) -> None:
        """Push an already-stored event to whoever listens. Must not raise for a vanished listener."""
        ...


# ---- pacing: every run's paid calls share each provider's rate -------------------------------


class RateLimiter(Protocol):
    """Paces the calls to each provider ("search", "recognition", "llm") of every run that shares it
    (one process locally, every Lambda of a deployment), and shares each rate between clients."""

    def acquire(self, provider: str, client: str, deadline: float) -> bool:
        """Wait until `client` may make one call to `provider`. False, and no call may be made, when
        no slot comes by `deadline` (epoch seconds)."""
        ...


@dataclass(frozen=True)
class CallTicket:
    """Whose calls a step makes, as the pacing needs to know: the client that started the run, the
    latest moment a call may wait for, and `throttled`, which counts one throttled answer of a
    provider for the run and says whether the run may retry it."""

    client: str
    deadline: float
    throttled: Callable[[str], bool]


class GraphStore(Protocol):
    """The deployment's evidence graph: every link any run proved, photo web by photo web (`web`:
    "live", or one sandbox world, seed and web; a photo proves nothing in another web). Links
    expire after the store's retention; expired links are invisible to every read."""

    def add(self, web: str, link: GraphLink) -> None:
        """Keep `link` (a pair already held keeps the stronger photo; an equal or stronger new
        proof replaces it and starts its retention again)."""
        ...

    def link(self, web: str, a: str, b: str) -> GraphLink | None:
        """The link between a and b (either order), if one is held."""
        ...

    def neighbours(self, web: str, key: str, limit: int | None = None) -> list[Neighbour]:
        """Who `key` is linked to, in key order (at most `limit`)."""
        ...

    def forget(self, web: str, a: str, b: str) -> None:
        """Drop the link between a and b (its photo no longer shows them)."""
        ...
