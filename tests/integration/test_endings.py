"""The one ending writer (services/endings.py): every ending says what the run spent, `error` too
(issue 9.4), and fits one message whoever writes it."""

from __future__ import annotations

from tests.integration.test_local_run import ANN, BOB, make_runner, options, two_hop_web
from tests.support.fakes import ListSink
from visual_degrees.constants import MAX_EVENT_BYTES
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import Budgets
from visual_degrees.protocol import wire_size
from visual_degrees.services.budget import Budget
from visual_degrees.services.endings import end_run
from visual_degrees.services.event_log import EventLog
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

USAGE_KEYS = {
    "searches",
    "recognitions",
    "llmCalls",
    "llmTokensIn",
    "llmTokensOut",
    "costUsd",
    "failedSearches",
    "throttledSearches",
    "throttledRecognitions",
    "throttledLlmCalls",
}


def test_an_error_ending_says_what_the_run_spent_like_the_others():
    # Given a run whose search provider keeps failing (HandleError ends it)
    web = two_hop_web()
    web.transient_search_failures = 99
    sink = ListSink()
    result = make_runner(web).run(ANN, BOB, options(), sink=sink)

    # Then its `error` event carries `usage`, as `final` and `no_path` do: every attempt was reserved
    (error,) = sink.of("error")
    assert error["code"] == "provider_unavailable"
    assert set(error["usage"]) == USAGE_KEYS
    assert error["usage"]["searches"] == web.calls["search"] >= 1
    assert error["usage"]["costUsd"] > 0
    assert result.final.data == error


def test_any_writer_of_an_ending_gets_usage_added_and_keeps_its_own():
    memory = SqliteMemory(":memory:")
    budget = Budget(memory, "r1", Budgets(), DEFAULT_COSTS, 1800)
    budget.reserve("searches")
    budget.reserve("recognitions")

    ended = end_run(memory, None, "r1", 1800, "error", {"code": "server_stopped", "message": "m"}, at=0.0)
    assert ended.data["usage"]["searches"] == 1 and ended.data["usage"]["recognitions"] == 1

    mine = {"searches": 7}
    again = end_run(memory, None, "r2", 1800, "cancelled", {"usage": mine}, at=0.0)
    assert again.data["usage"] == mine


def test_an_ending_too_large_for_one_message_is_stored_within_it():
    # Given a writer handing the ending writer a graph far over the frame limit
    memory = SqliteMemory(":memory:")
    graph = {"nodes": [{"id": f"p{i}", "name": "n" * 100} for i in range(5_000)], "edges": []}
    ended = end_run(memory, None, "r1", 1800, "no_path", {"reason": "budget", "graph": graph}, at=0.0)

    # Then what is stored (what getRun and every replay send) fits, and says what it left out
    (stored,) = EventLog(memory).read("r1")
    assert stored == ended
    assert wire_size(stored.dump()) <= MAX_EVENT_BYTES
    assert stored.data["reason"] == "budget" and stored.data["truncated"] == ["graph"]
    assert stored.data["graph"]["truncated"] == {"nodes": 5_000, "edges": 0}
