"""The OpenAI-compatible planner, built from Settings as in production, against a fake Ollama / vLLM /
LM Studio server on 127.0.0.1 speaking the chat-completions wire format."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.fake_wire_servers import FakeOpenAI, first_candidates_plan
from tests.support.planner_cases import (
    HOSTILE,
    ROUTE,
    assert_obeyed_links_are_refused,
    assert_obeyed_reply_is_refused,
    connect_context,
    obedient_answer,
    obedient_connect_answer,
)
from visual_degrees.adapters.live.planner_openai import OpenAICompatiblePlanner
from visual_degrees.adapters.live.providers import build_live_providers
from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError, ProviderError, TransientProviderError
from visual_degrees.domain.planning import CandidateSummary, PlannerContext, validate_connect, validate_reply
from visual_degrees.ports import Planner
from visual_degrees_tools.doctor import DoctorCheck, default_probes, format_report, run_doctor

MODEL = "llama3.1:8b"
KEY = "local-openai-key-31337"
CONTEXT = PlannerContext(
    target="Tom Hanks",
    frontier="Kevin Bacon",
    candidates=[
        CandidateSummary(name="Meg Ryan", count=3, best_confidence=97.0),
        CandidateSummary(name="Bill Paxton", count=1, best_confidence=88.0),
    ],
)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(models=[MODEL, "qwen2.5:7b"]) as fake:
        yield fake


def settings_for(server: FakeOpenAI, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "brave_api_key": "unused",
        "planner": "openai",
        "openai_base_url": server.base_url,
        "openai_model": MODEL,
        "retry_base_delay": 0.0,
        "retry_max_delay": 1.0,
        **overrides,
    }
    return Settings(**values)


def live_planner(server: FakeOpenAI, **overrides: Any) -> Planner:
    planner = build_live_providers(settings_for(server, **overrides)).planner
    assert planner is not None
    return planner


def response_formats(server: FakeOpenAI) -> list[str | None]:
    return [(body.get("response_format") or {}).get("type") for body in server.bodies()]


def test_a_good_json_reply_is_a_valid_plan_with_the_servers_usage(server: FakeOpenAI) -> None:
    # When planning against the server
    reply = live_planner(server).plan(CONTEXT)
    # Then the reply validates against what was offered and carries the reported usage
    plan, errors = validate_reply(reply, CONTEXT)
    assert errors == [] and plan is not None
    assert plan.candidates == ["Meg Ryan", "Bill Paxton"]
    (body,) = server.bodies()
    assert reply.tokens_in == sum(len(m["content"]) for m in body["messages"]) // 4 + 7
    assert reply.tokens_out > 0
    # And the request was the real wire format: /v1/chat/completions, strict JSON schema, no key
    assert server.calls[0].method == "POST"
    assert body["model"] == MODEL
    assert body["response_format"]["type"] == "json_schema"
    assert "authorization" not in server.calls[0].headers


def test_a_fenced_json_reply_is_read(server: FakeOpenAI) -> None:
    plan = json.dumps(first_candidates_plan(CONTEXT.model_dump(by_alias=True)))
    server.reply_text = f"```json\n{plan}\n```"
    reply = live_planner(server).plan(CONTEXT)
    assert reply.next_candidates == ["Meg Ryan", "Bill Paxton"]


def test_a_model_answering_prose_is_a_provider_error_each_time(server: FakeOpenAI) -> None:
    # Given a model that ignores the JSON instruction
    server.reply_text = "Great question! I'd start with Meg Ryan, who made several films with Tom Hanks."
    planner = live_planner(server)
    # Then every attempt is one call on the wire and a ProviderError for the S3 step to feed back
    for attempt in (1, 2):
        with pytest.raises(ProviderError, match="no usable JSON plan"):
            planner.plan(CONTEXT)
        assert len(server.calls) == attempt


@pytest.mark.parametrize(
    ("accepts", "expected"),
    [
        ({"json_object"}, ["json_schema", "json_object", "json_object"]),  # older vLLM / Ollama
        ({"json_schema"}, ["json_schema", "json_schema"]),  # LM Studio: json_schema only
        (set(), ["json_schema", "json_object", None, None]),  # takes no response_format at all
    ],
    ids=["json-object-only", "json-schema-only", "none"],
)
def test_a_refused_response_format_is_dropped_once_and_remembered(
    server: FakeOpenAI, accepts: set[str], expected: list[str | None]
) -> None:
    server.accepts = accepts
    planner = live_planner(server)
    for _ in range(2):
        assert planner.plan(CONTEXT).next_candidates == ["Meg Ryan", "Bill Paxton"]
    assert response_formats(server) == expected


def test_429_then_success_is_one_logical_call(server: FakeOpenAI) -> None:
    server.fail_next(429, headers={"Retry-After": "0"})
    assert live_planner(server).plan(CONTEXT).next_candidates == ["Meg Ryan", "Bill Paxton"]
    assert len(server.calls) == 2


def test_persistent_500s_are_transient_after_bounded_attempts(server: FakeOpenAI) -> None:
    server.fail_next(500, times=10)
    with pytest.raises(TransientProviderError, match="gave up after 3 attempts"):
        live_planner(server).plan(CONTEXT)
    assert len(server.calls) == 3


def test_missing_usage_is_estimated(server: FakeOpenAI) -> None:
    server.usage = False
    reply = live_planner(server).plan(CONTEXT)
    (body,) = server.bodies()
    assert reply.tokens_in == sum(len(m["content"]) for m in body["messages"]) // 4
    assert reply.tokens_out > 0


def test_a_wrong_model_is_a_clear_configuration_error(server: FakeOpenAI) -> None:
    with pytest.raises(ConfigurationError, match=r"model 'llama9' not found.*VD_OPENAI_MODEL"):
        live_planner(server, openai_model="llama9").plan(CONTEXT)
    assert len(server.calls) == 1


def test_a_base_url_without_v1_is_a_configuration_error(server: FakeOpenAI) -> None:
    with pytest.raises(ConfigurationError, match="VD_OPENAI_BASE_URL"):
        live_planner(server, openai_base_url=server.url).plan(CONTEXT)


def test_the_key_is_sent_as_a_bearer_token_and_a_wrong_one_is_a_configuration_error(
    server: FakeOpenAI,
) -> None:
    server.api_key = KEY
    assert live_planner(server, openai_api_key=KEY).plan(CONTEXT).next_candidates
    assert server.calls[-1].headers["authorization"] == f"Bearer {KEY}"
    with pytest.raises(ConfigurationError, match="VD_OPENAI_API_KEY") as caught:
        live_planner(server, openai_api_key="wrong").plan(CONTEXT)
    assert "wrong" not in str(caught.value)


def obedient(data: dict[str, Any]) -> dict[str, Any]:
    """A model that does what a name tells it to."""
    answer: dict[str, Any] = json.loads(obedient_answer(json.dumps(data)))
    return answer


def test_a_hostile_name_cannot_widen_the_choice(server: FakeOpenAI) -> None:
    # Given a candidate whose name is an instruction, and a model that obeys it
    server.plan = obedient
    hostile = CandidateSummary(name=HOSTILE, count=1, best_confidence=81)
    ctx = CONTEXT.model_copy(update={"candidates": [*CONTEXT.candidates, hostile]})
    reply = live_planner(server).plan(ctx)
    # Then the name travelled only inside the user message's data block
    (body,) = server.bodies()
    system, user = body["messages"]
    assert HOSTILE not in system["content"] and HOSTILE in user["content"]
    # And nothing the model was talked into passes validation
    assert_obeyed_reply_is_refused(reply, ctx)


def doctor(settings: Settings) -> list[DoctorCheck]:
    """The doctor with only its real OpenAI probe: no other provider is called (no network)."""
    return run_doctor(settings, probes={"openai": default_probes(settings)["openai"]}, aws_ready=lambda: None)


def test_the_doctor_probes_the_model_list(server: FakeOpenAI) -> None:
    server.api_key = KEY
    settings = settings_for(server, openai_api_key=KEY)
    checks = {c.provider: c for c in doctor(settings)}
    assert checks["openai"].selected and checks["openai"].ok and checks["openai"].reachable
    assert checks["openai"].detail == f"model {MODEL} served (2 model(s) listed)"
    assert [r.path for r in server.requests] == ["/v1/models"]  # free: no completion was paid for
    # And a model the server does not have fails the doctor, naming what it has, never the key
    wrong = doctor(settings.model_copy(update={"openai_model": "llama9"}))
    row = {c.provider: c for c in wrong}["openai"]
    assert row.ok is False and "llama3.1:8b, qwen2.5:7b" in row.detail
    assert KEY not in format_report(wrong)


def test_the_doctor_pings_a_server_without_a_model_list(server: FakeOpenAI) -> None:
    server.list_models = False
    planner = OpenAICompatiblePlanner(server.base_url, model=MODEL)
    assert planner.check_model() == f"model {MODEL} answered (the server lists no models)"
    assert server.bodies()[0]["max_tokens"] == 1


def test_the_doctor_reports_an_unreachable_server_as_not_reachable() -> None:
    with FakeOpenAI() as gone:
        settings = Settings(planner="openai", openai_base_url=gone.base_url, openai_model=MODEL)
    checks = {c.provider: c for c in doctor(settings)}
    assert (checks["openai"].reachable, checks["openai"].ok) == (False, False)
    assert "connection failed" in checks["openai"].detail


# ---- connect: matching the two sides ------------------------------------------------------------


def test_connect_on_the_wire_returns_pairs_that_validate(server: FakeOpenAI) -> None:
    server.connect = lambda data: json.loads(ROUTE)
    ctx = connect_context("Meg Ryan")
    reply = live_planner(server).connect(ctx)
    links, errors = validate_connect(reply, ctx)
    assert errors == [] and links is not None
    assert [(x.a, x.b) for x in links] == [("Kevin Bacon", "Gary Sinise"), ("Gary Sinise", "Tom Hanks")]
    (body,) = server.bodies()
    assert server.kinds == ["connect"]
    assert body["response_format"]["json_schema"]["name"] == "connect_reply"
    assert reply.tokens_in == sum(len(m["content"]) for m in body["messages"]) // 4 + 7


def test_connect_against_a_server_taking_only_json_object_and_reporting_no_usage(server: FakeOpenAI) -> None:
    server.accepts = {"json_object"}
    server.usage = False
    server.reply_text = f"```json\n{ROUTE}\n```"
    planner = live_planner(server)
    reply = planner.connect(connect_context())
    assert len(reply.links) == 2 and reply.tokens_in > 0 and reply.tokens_out == len(server.reply_text) // 4
    assert response_formats(server) == ["json_schema", "json_object"]


def test_prose_instead_of_links_is_a_provider_error_each_time(server: FakeOpenAI) -> None:
    server.reply_text = "Gary Sinise worked with both of them, on Apollo 13 and on Forrest Gump."
    planner = live_planner(server)
    for attempt in (1, 2):
        with pytest.raises(ProviderError, match="no usable JSON list of links"):
            planner.connect(connect_context())
        assert len(server.calls) == attempt


def test_a_hostile_name_cannot_widen_the_links(server: FakeOpenAI) -> None:
    server.connect = lambda data: json.loads(obedient_connect_answer(json.dumps(data)))
    ctx = connect_context(HOSTILE)
    reply = live_planner(server).connect(ctx)
    (body,) = server.bodies()
    system, user = body["messages"]
    assert HOSTILE not in system["content"] and HOSTILE in user["content"]
    assert_obeyed_links_are_refused(reply, ctx)
