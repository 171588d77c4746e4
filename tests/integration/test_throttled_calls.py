"""Throttled calls are not spend: runs against providers that throttle report as billed exactly what
the providers served, and finish. On the sandbox (its throttling faults) and with the live adapters
against a loopback photo web that enforces per-second quotas (429 / ThrottlingException above them),
paced by the shared limiter or not."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from visual_degrees.adapters.rate_limiter import Rates, in_process_limiter
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import FetchedImage, ImageHit
from visual_degrees.lifecycle.run_access import RunAccess
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR, PhotoWeb, default_world_path, load_world
from visual_degrees_tools.wire.quota_web import QuotaWeb, quota_web

THROTTLING_FAULTS = "search_429=0.6,recognize_throttle=0.6"


class Served:
    """The providers of a run, counting the calls they answered (a throttled one is not served)."""

    def __init__(self, inner: Providers) -> None:
        self.inner = inner
        self.searches = self.recognitions = 0
        self.page_size = getattr(inner.search, "page_size", None)

    def search(self, query: str, count: int) -> list[ImageHit]:
        hits = self.inner.search.search(query, count)
        self.searches += 1
        return hits

    def fetch(self, url: str) -> FetchedImage:
        return self.inner.fetcher.fetch(url)

    def recognize(self, image: FetchedImage) -> list:
        faces = self.inner.recognizer.recognize(image)
        self.recognitions += 1
        return faces


def test_a_sandbox_run_bills_what_was_served_and_counts_the_throttled_calls(tmp_path: Path):
    # Given the sandbox throttling six calls in ten, search and recognition alike
    sandbox = sandbox_environment(None, faults=THROTTLING_FAULTS)
    served: list[Served] = []

    def environment(run_id: str) -> RunEnvironment:
        env = sandbox(run_id)
        counting = Served(env.providers)
        served.append(counting)
        env.providers = Providers.of(counting, env.providers.planner, web=env.providers.web)
        return env

    # When a run is made
    runner = LocalRunner(SqliteMemory(tmp_path / "m.sqlite3"), environment)
    result = runner.run(*FAR_PAIR)
    # Then it finished, its usage is what the providers served, and the rest is counted throttled
    assert result.outcome in ("path", "no_path")
    usage = result.final.data["usage"]
    (counted,) = served
    assert usage["searches"] == counted.searches
    assert usage["recognitions"] == counted.recognitions
    assert usage["throttledSearches"] + usage["throttledRecognitions"] > 0
    llm = DEFAULT_COSTS.llm_usd(usage["llmTokensIn"], usage["llmTokensOut"])
    # each LLM call's cost is kept in whole micro-dollars (lifecycle/budget.py): half a micro-dollar
    # of rounding a call, and the total's own
    assert usage["costUsd"] == pytest.approx(
        0.005 * counted.searches + 0.001 * counted.recognitions + llm, abs=1e-6 * (1 + usage["llmCalls"])
    )


@pytest.fixture(scope="module")
def web() -> PhotoWeb:
    return PhotoWeb(load_world(default_world_path()), 0)


@pytest.fixture
def throttling_web(web: PhotoWeb) -> Iterator[QuotaWeb]:
    with quota_web(web, searches_per_second=2, recognitions_per_second=4, latency_scale=0.05) as served:
        yield served


def run_together(runner: LocalRunner, pairs: list[tuple[str, str]]) -> list[RunResult]:
    """The pairs' runs at once, each started by a client of its own."""
    results: list[RunResult] = []
    lock = threading.Lock()

    def one(index: int, a: str, b: str) -> None:
        run_id = f"run-{index}"
        RunAccess(runner.memory).register(run_id, f"client-{index}", 1800)
        result = runner.run(a, b, run_id=run_id)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=one, args=(i, a, b)) for i, (a, b) in enumerate(pairs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=240)
    return results


@pytest.mark.parametrize(
    "pace",
    [
        pytest.param(None, id="unpaced: the adapters retry, then give up throttled"),
        pytest.param(10.0, id="paced above the quota: the pacer retries throttled answers"),
        pytest.param(1.0, id="paced at the quota"),
    ],
)
def test_concurrent_live_runs_on_throttling_providers_bill_exactly_what_was_served(
    throttling_web: QuotaWeb, web: PhotoWeb, tmp_path: Path, pace: float | None, caplog
):
    # Given providers that allow 2 searches and 4 recognitions a second, and the live adapters paced
    # at `pace` times those rates (or not at all)
    limiter = None
    if pace is not None:
        limiter = in_process_limiter(Rates({"search": 2 * pace, "recognition": 4 * pace}, client_share=1))
    environment = throttling_web.environment(web, limiter, retry_base_delay=0.05, retry_max_delay=1.0)
    runner = LocalRunner(SqliteMemory(tmp_path / "m.sqlite3"), environment)
    # When four runs go at once
    with caplog.at_level(logging.WARNING):
        results = run_together(runner, [EXAMPLE_PAIR, FAR_PAIR, EXAMPLE_PAIR[::-1], FAR_PAIR[::-1]])
    # Then every run finished on its own terms (none failed), and together they were billed for
    # exactly what the providers served
    assert len(results) == 4
    assert all(r.outcome in ("path", "no_path") for r in results), [r.outcome for r in results]
    usages = [r.final.data["usage"] for r in results]
    counts = throttling_web.counts()
    assert sum(u["searches"] for u in usages) == counts["searchesServed"]
    assert sum(u["recognitions"] for u in usages) == counts["recognitionsServed"]
    if pace == 10.0:  # the providers did throttle, and the runs saw and counted it
        assert counts["searchesThrottled"] + counts["recognitionsThrottled"] > 0
        assert sum(u["throttledSearches"] + u["throttledRecognitions"] for u in usages) > 0


def test_each_failed_search_is_logged_when_it_fails_naming_the_provider_and_status_without_the_key(
    throttling_web: QuotaWeb, web: PhotoWeb, tmp_path: Path, caplog
):
    # Given a search engine that answers 503 to the first search and then recovers
    real = throttling_web.search.handle
    failures = {"left": 1}

    def flaky(request):  # type: ignore[no-untyped-def]
        if failures["left"]:
            failures["left"] -= 1
            from visual_degrees_tools.wire.server import json_reply

            return json_reply(503, {"type": "ErrorResponse", "error": {"status": 503, "code": "UNAVAILABLE"}})
        return real(request)

    throttling_web.search.handle = flaky  # type: ignore[method-assign]
    # (paced at half the quota, so that no search is refused for its rate: only the 503 fails)
    limiter = in_process_limiter(Rates({"search": 1, "recognition": 2}, client_share=1))
    environment = throttling_web.environment(web, limiter, retry_attempts=1)
    runner = LocalRunner(SqliteMemory(tmp_path / "m.sqlite3"), environment)
    # When a run makes its searches
    with caplog.at_level(logging.WARNING, logger="visual_degrees.search.observe"):
        result = runner.run(*EXAMPLE_PAIR)
    # Then the one failed search has its own log line, with the provider and status and no key
    failed = [r for r in caplog.records if r.getMessage() == "image search failed"]
    assert len(failed) == 1
    assert "Brave image search" in failed[0].error and "HTTP 503" in failed[0].error
    assert failed[0].inARow == 1
    assert "loopback-brave-token" not in caplog.text
    assert result.outcome in ("path", "no_path")


class NoSlots:
    """A limiter whose queues are full past every deadline."""

    def acquire(self, provider: str, client: str, deadline: float) -> bool:
        return False


def test_a_run_that_gets_no_slot_in_time_ends_on_its_runtime_budget_having_paid_nothing(tmp_path: Path):
    # Given providers whose queues are full for longer than the run may wait
    sandbox = sandbox_environment(None)

    def environment(run_id: str) -> RunEnvironment:
        env = sandbox(run_id)
        env.limiter = NoSlots()
        return env

    # When a run is made
    result = LocalRunner(SqliteMemory(tmp_path / "m.sqlite3"), environment).run(*EXAMPLE_PAIR)
    # Then it ends as runs do when their time is up (not as an error), and nothing was billed
    assert result.outcome == "no_path"
    assert result.final.data["exhausted"] == "runtime"
    usage = result.final.data["usage"]
    assert (usage["searches"], usage["recognitions"], usage["costUsd"]) == (0, 0, 0)
    assert usage["throttledSearches"] == 1
