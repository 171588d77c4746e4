"""The services' side of an LLM planner's answer: what an unusable attempt is fed back and costs
(selection.choose_plan for plans, matching.consult for connecting the sides), run against the live
OpenAI-compatible adapter over a fake chat-completions transport (no sockets)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.support.fakes import FakeWeb, ListSink, ManualClock
from tests.support.planner_cases import HOSTILE, ROUTE, obedient_connect_answer, plan_json, planner_context
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.planner_openai import OpenAICompatiblePlanner
from visual_degrees.domain.errors import ProviderError
from visual_degrees.domain.models import Person, RunOptions, RunState
from visual_degrees.ports import Planner, Providers
from visual_degrees.services import matching
from visual_degrees.services.asking import spent_tokens, unusable_feedback
from visual_degrees.services.context import StepContext
from visual_degrees.services.leads import LeadBook
from visual_degrees.services.scope import RunScope
from visual_degrees.services.selection import choose_plan
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

PROSE = "Gary Sinise worked with both of them, on Apollo 13 and on Forrest Gump."


class Server:
    """A chat-completions server answering `answers` in turn (the last repeats), usage reported."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        answer = self.answers[min(len(self.bodies), len(self.answers)) - 1]
        text = answer(body) if callable(answer) else answer
        usage = {"prompt_tokens": 100 + len(self.bodies), "completion_tokens": 10}
        message = {"role": "assistant", "content": text}
        return httpx.Response(
            200, json={"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage}
        )

    def data(self, index: int) -> dict[str, Any]:
        user = self.bodies[index]["messages"][1]["content"]
        document: dict[str, Any] = json.loads(user.split("\n", 1)[1].rsplit("\n", 1)[0])
        return document


def live_planner(server: Server) -> OpenAICompatiblePlanner:
    return OpenAICompatiblePlanner(
        "http://gpu.internal:8000/v1",
        model="llama3.1:8b",
        client=httpx.Client(transport=httpx.MockTransport(server)),
        retry=RetryPolicy(max_attempts=1),
    )


def scope_for(planner: Planner, strategy: str = "default") -> tuple[RunScope, ListSink]:
    clock, sink = ManualClock(), ListSink()
    ctx = StepContext(
        providers=Providers.of(FakeWeb(), planner), memory=SqliteMemory(":memory:"), clock=clock, sink=sink
    )
    state = RunState(
        run_id="20261201T100000-abc123",
        person_a=Person.of("Kevin Bacon"),
        person_b=Person.of("Tom Hanks"),
        options=RunOptions(strategy=strategy),
        started_at=clock.now(),
    )
    return RunScope(ctx, state), sink


def usage(scope: RunScope) -> tuple[int, int, int]:
    summary = scope.budget.summary()
    return summary["llmCalls"], summary["llmTokensIn"], summary["llmTokensOut"]


# ---- plans (S3 of the seed strategy) -------------------------------------------------------------


def test_a_prose_plan_is_fed_back_with_the_adapters_message_and_its_tokens_are_counted() -> None:
    # Given a model that answers prose first, then a plan
    server = Server(PROSE, plan_json(["Meg Ryan"]))
    scope, _ = scope_for(live_planner(server), "seed")
    # When the step chooses a plan
    plan = choose_plan(scope, planner_context("Meg Ryan", "Bill Paxton"))
    # Then the second attempt was told what was wrong, in the adapter's words, and succeeded
    assert (plan.source, plan.candidates) == ("planner", ["Meg Ryan"])
    (fed_back,) = server.data(1)["previousErrors"]
    assert fed_back.startswith("the previous answer could not be used (provider_error): chat endpoint")
    assert "no JSON object with the keys nextCandidates, searchQueries, narration" in fed_back
    # And both attempts count, the unusable one's tokens too
    assert usage(scope) == (2, 101 + 102, 20)


def test_two_prose_plans_fall_back_with_every_attempt_counted() -> None:
    server = Server(PROSE)
    scope, _ = scope_for(live_planner(server), "seed")
    plan = choose_plan(scope, planner_context("Meg Ryan", "Bill Paxton"))
    assert plan.source == "fallback" and plan.candidates == ["Meg Ryan", "Bill Paxton"]
    assert usage(scope) == (2, 101 + 102, 20)


def test_feedback_is_bounded_and_errors_without_tokens_cost_none() -> None:
    long = ProviderError("x" * 1_000)
    assert len(unusable_feedback(long)) == 300
    assert spent_tokens(long) == (0, 0)
    assert spent_tokens(ValueError("no tokens here")) == (0, 0)


# ---- connecting the sides (the default strategy) -------------------------------------------------


def test_a_prose_connect_answer_is_retried_with_feedback_then_no_hunch_is_kept() -> None:
    # Given a model that only ever answers prose
    server = Server(PROSE)
    scope, sink = scope_for(live_planner(server))
    # When the run consults it about the two sides
    added = matching.consult(scope, LeadBook(scope))
    # Then it was asked twice, the second time with the failure as data, and nothing was kept
    assert added == 0
    assert len(server.bodies) == 2
    assert server.data(0)["previousErrors"] == []
    assert server.data(1)["previousErrors"][0].startswith(
        "the previous answer could not be used (provider_error)"
    )
    assert LeadBook(scope).hunches == {}
    assert not [e for e in sink.of("status") if e.get("source") == "planner"]
    # And both attempts were counted against the LLM budget
    assert usage(scope)[0] == 2


def test_a_connect_answer_becomes_hunches_never_links() -> None:
    scope, sink = scope_for(live_planner(Server(ROUTE)))
    assert matching.consult(scope, LeadBook(scope)) == 2
    assert usage(scope) == (1, 101, 10)
    (said,) = [e for e in sink.of("status") if e.get("source") == "planner"]
    assert "Kevin Bacon might have worked with Gary Sinise (Apollo 13)" in said["message"]
    # a hunch is a lead for photos to check: the run's graph of proven links is still empty
    assert scope.graph.confidence("kevin bacon", "gary sinise") is None
    assert sink.of("evidence") == [] and sink.of("path_update") == []


def test_an_injected_connect_answer_is_refused_twice_and_proves_nothing() -> None:
    # Given an end whose name is an instruction, and a model that obeys it every time
    server = Server(lambda body: obedient_connect_answer(body["messages"][1]["content"]))
    scope, sink = scope_for(live_planner(server))
    scope.state = scope.state.model_copy(update={"person_b": Person.of(HOSTILE)})
    # When the run consults it
    added = matching.consult(scope, LeadBook(scope))
    # Then the instruction stayed data, both answers were refused, and no hunch, link or photo came of it
    assert server.bodies[0]["messages"][0]["content"].startswith("You help find a chain")
    assert HOSTILE not in server.bodies[0]["messages"][0]["content"]
    assert added == 0 and LeadBook(scope).hunches == {}
    assert any("at most 12" in e for e in server.data(1)["previousErrors"])
    assert sink.of("evidence") == [] and sink.of("path_update") == []
    assert usage(scope)[0] == 2
