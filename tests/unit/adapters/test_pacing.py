"""A run's calls through the limiter: each waits for a slot, throttled answers are retried on a new
slot within the run's allowance, and what ends throttled says so (ProviderThrottled: not billed)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from tests.support.fakes import face
from visual_degrees.adapters.pacing import Pace, PacedPlanner, PacedSearch, paced
from visual_degrees.domain.errors import (
    NoSlotInTime,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)
from visual_degrees.domain.models import FetchedImage, ImageHit
from visual_degrees.ports import CallTicket, Providers

DEADLINE = 1_000.0


@dataclass
class FakeLimiter:
    grants: bool = True
    broken: bool = False
    asked: list[tuple[str, str, float]] = field(default_factory=list)

    def acquire(self, provider: str, client: str, deadline: float) -> bool:
        self.asked.append((provider, client, deadline))
        if self.broken:
            raise TransientProviderError("DynamoDB update_item failed: InternalServerError")
        return self.grants


@dataclass
class Allowance:
    left: int
    noted: list[str] = field(default_factory=list)

    def __call__(self, provider: str) -> bool:
        if self.left <= 0:
            return False
        self.left -= 1
        self.noted.append(provider)
        return True


@dataclass
class Scripted:
    """Answers in turn: an exception is raised, anything else returned."""

    answers: list[object]
    calls: int = 0

    def __call__(self) -> object:
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        if isinstance(answer, Exception):
            raise answer
        return answer


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


def pace(limiter: FakeLimiter, allowance: Allowance, clock: Clock | None = None) -> Pace:
    clock = clock or Clock()
    ticket = CallTicket(client="client-7", deadline=DEADLINE, throttled=allowance)
    return Pace(limiter, ticket, now=clock.now, sleep=clock.sleep)


def test_every_call_waits_for_a_slot_of_its_provider_for_the_runs_client():
    limiter = FakeLimiter()
    assert pace(limiter, Allowance(0)).call("search", lambda: "hits", "image search") == "hits"
    assert limiter.asked == [("search", "client-7", DEADLINE)]


def test_a_throttled_answer_is_retried_on_a_new_slot_after_the_wait_the_provider_asked_for():
    # Given a provider that throttles twice (asking for 2 s, then nothing) and then answers
    limiter, allowance, clock = FakeLimiter(), Allowance(5), Clock()
    attempt = Scripted([ProviderThrottled("HTTP 429", 2.0), ProviderThrottled("HTTP 429"), "hits"])
    # When the call is made
    answer = pace(limiter, allowance, clock).call("search", attempt, "image search")
    # Then it succeeds on its third slot, having waited the 2 s asked for, and both throttled
    # answers were counted against the run's allowance
    assert answer == "hits"
    assert attempt.calls == 3 and len(limiter.asked) == 3
    assert clock.t == 2.0
    assert allowance.noted == ["search", "search"]


def test_a_call_still_throttled_when_the_allowance_is_spent_ends_throttled():
    allowance = Allowance(1)
    attempt = Scripted([ProviderThrottled("HTTP 429")])
    with pytest.raises(ProviderThrottled):
        pace(FakeLimiter(), allowance, Clock()).call("recognition", attempt, "recognition")
    assert attempt.calls == 2  # the first try and one retry
    assert allowance.noted == ["recognition"]


def test_a_throttled_answer_asking_to_wait_past_the_deadline_is_not_retried():
    allowance = Allowance(5)
    attempt = Scripted([ProviderThrottled("HTTP 429", retry_after=DEADLINE + 1)])
    with pytest.raises(ProviderThrottled):
        pace(FakeLimiter(), allowance).call("search", attempt, "image search")
    assert attempt.calls == 1 and allowance.noted == []


def test_no_slot_before_the_deadline_means_no_call_and_a_throttled_error():
    attempt = Scripted(["hits"])
    with pytest.raises(NoSlotInTime, match="no search slot before the run's deadline"):
        pace(FakeLimiter(grants=False), Allowance(5)).call("search", attempt, "image search")
    assert attempt.calls == 0


def test_other_failures_pass_through_untouched_and_are_not_retried():
    for error in (TransientProviderError("HTTP 503"), ProviderError("HTTP 400")):
        attempt = Scripted([error, "hits"])
        with pytest.raises(type(error)):
            pace(FakeLimiter(), Allowance(5)).call("search", attempt, "image search")
        assert attempt.calls == 1


def test_a_limiter_that_cannot_be_reached_does_not_stop_the_call(caplog):
    attempt = Scripted(["hits"])
    assert pace(FakeLimiter(broken=True), Allowance(0)).call("llm", attempt, "planner") == "hits"
    assert "rate limiter unavailable" in caplog.text


@dataclass
class Engine:
    page_size: int = 200
    queries: list[str] = field(default_factory=list)

    def search(self, query: str, count: int) -> list[ImageHit]:
        self.queries.append(query)
        return []

    def fetch(self, url: str) -> FetchedImage:
        raise AssertionError("fetching is not paced and not called here")

    def recognize(self, image: FetchedImage) -> list:
        return [face("Kevin Bacon")]


def test_paced_providers_pace_search_recognition_and_the_planner_but_not_fetching():
    engine = Engine()
    limiter = FakeLimiter()
    ticket = CallTicket(client="c", deadline=DEADLINE, throttled=Allowance(0))
    providers = paced(Providers.of(engine, web="live"), limiter, ticket)
    assert isinstance(providers.search, PacedSearch)
    assert providers.search.page_size == 200  # the engine's page size still reaches the run
    assert providers.fetcher is engine and providers.planner is None
    providers.search.search("Kevin Bacon", 10)
    providers.recognizer.recognize(FetchedImage(url="u", data=b"", content_type="image/png", sha256="0"))
    assert [provider for provider, _, _ in limiter.asked] == ["search", "recognition"]


def test_a_planner_without_connect_says_so_instead_of_calling():
    class PlansOnly:
        def plan(self, context):  # pragma: no cover - never asked here
            raise AssertionError

    planner = PacedPlanner(PlansOnly(), pace(FakeLimiter(), Allowance(0)))  # type: ignore[arg-type]
    with pytest.raises(Exception, match="no planner that matches the two sides"):
        planner.connect(None)  # type: ignore[arg-type]
