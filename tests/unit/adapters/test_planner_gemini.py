"""The Gemini planner through google-genai, over a fake httpx transport speaking the REST shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.support.planner_cases import (
    HOSTILE,
    ROUTE,
    assert_a_hostile_name_is_at_most_a_hunch,
    assert_choosing_the_hostile_name_allows_only_template_queries,
    assert_obeyed_links_are_refused,
    assert_obeyed_reply_is_refused,
    connect_context,
    link,
    links_json,
    obedient_answer,
    obedient_connect_answer,
    plan_json,
)
from tests.support.planner_cases import planner_context as context
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.planner_gemini import GeminiPlanner
from visual_degrees.adapters.live.planner_prompt import (
    CONNECT_INSTRUCTION,
    DATA_TAG,
    SYSTEM_INSTRUCTION,
    UnusableAnswer,
)
from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)
from visual_degrees.domain.planning import ProposedLink, validate_connect, validate_reply

KEY = "gemini-secret-key-42"

Handler = Callable[[httpx.Request], httpx.Response]


def gemini_answer(
    text: str, *, prompt_tokens: int = 321, output_tokens: int = 45, thoughts: int = 12
) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": output_tokens,
            "thoughtsTokenCount": thoughts,
            "totalTokenCount": prompt_tokens + output_tokens + thoughts,
        },
        "modelVersion": "gemini-3.5-flash",
        "responseId": "r1",
    }


def api_error(
    status: int,
    rpc_status: str,
    message: str,
    details: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Handler:
    body = {"error": {"code": status, "message": message, "status": rpc_status, "details": details or []}}
    return lambda _r: httpx.Response(status, json=body, headers=headers)


class Wire:
    def __init__(self, *handlers: Handler) -> None:
        self.handlers = list(handlers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handlers.pop(0)(request) if len(self.handlers) > 1 else self.handlers[0](request)

    def body(self, index: int = 0) -> dict[str, Any]:
        return json.loads(self.requests[index].content)


def planner(wire: Wire, sleeps: list[float] | None = None, key: str | None = KEY) -> GeminiPlanner:
    return GeminiPlanner(
        key,
        model="gemini-3.5-flash",
        base_url="https://gemini.test/",
        http_client=httpx.Client(transport=httpx.MockTransport(wire)),
        retry=RetryPolicy(
            max_attempts=3,
            base_delay=0.1,
            max_delay=60.0,
            sleep=(sleeps if sleeps is not None else []).append,
        ),
    )


def ok(text: str, **usage: int) -> Handler:
    return lambda _r: httpx.Response(200, json=gemini_answer(text, **usage))


def test_a_plan_comes_back_with_token_usage_and_the_request_is_shaped_as_configured() -> None:
    # Given Gemini answering with a plan
    wire = Wire(ok(plan_json(["Meg Ryan"], ["Kevin Bacon Meg Ryan"], "Meg Ryan starred with both.")))
    # When planning
    reply = planner(wire).plan(context("Meg Ryan", "Bill Paxton"))
    # Then the reply carries the plan and the tokens (thinking tokens are billed as output)
    assert reply.next_candidates == ["Meg Ryan"]
    assert reply.search_queries == ["Kevin Bacon Meg Ryan"]
    assert reply.narration == "Meg Ryan starred with both."
    assert (reply.tokens_in, reply.tokens_out) == (321, 45 + 12)
    # And one request went to the configured model with our instruction, schema and key header
    assert len(wire.requests) == 1
    sent = wire.requests[0]
    assert sent.url.host == "gemini.test"
    assert sent.url.path.endswith("/models/gemini-3.5-flash:generateContent")
    assert sent.headers["x-goog-api-key"] == KEY
    body = wire.body()
    assert body["systemInstruction"]["parts"][0]["text"] == SYSTEM_INSTRUCTION
    generation = body["generationConfig"]
    assert generation["responseMimeType"] == "application/json"
    assert set(generation["responseSchema"]["properties"]) == {"nextCandidates", "searchQueries", "narration"}
    assert generation["maxOutputTokens"] == 1024
    user_text = body["contents"][0]["parts"][0]["text"]
    assert user_text.startswith(f"<{DATA_TAG}>") and "Bill Paxton" in user_text


def test_when_the_sdk_cannot_parse_we_parse_the_text_ourselves() -> None:
    # A fenced answer defeats the SDK's `parsed` (None), not our own parse.
    wire = Wire(ok("```json\n" + plan_json(["Meg Ryan"]) + "\n```"))
    assert planner(wire).plan(context("Meg Ryan")).next_candidates == ["Meg Ryan"]


@pytest.mark.parametrize(
    "text", ["I think Meg Ryan.", '{"nextCandidates": ', '["Meg Ryan"]', '{"nextCandidates": "Meg"}']
)
def test_invalid_json_is_a_provider_error(text: str) -> None:
    with pytest.raises(ProviderError, match="no usable JSON"):
        planner(Wire(ok(text))).plan(context("Meg Ryan"))


def test_a_blocked_prompt_is_a_provider_error_naming_why() -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 10}}
    with pytest.raises(ProviderError, match="SAFETY"):
        planner(Wire(lambda _r: httpx.Response(200, json=blocked))).plan(context("Meg Ryan"))


def test_unknown_candidates_are_returned_raw_and_rejected_by_validation() -> None:
    reply = planner(Wire(ok(plan_json(["Brad Pitt"])))).plan(context("Meg Ryan"))
    plan, errors = validate_reply(reply, context("Meg Ryan"))
    assert plan is None
    assert errors == ["nextCandidates: 'Brad Pitt' is not one of the offered candidates"]


def test_429_waits_as_told_by_retry_info_and_is_one_logical_call() -> None:
    retry_info = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "2s"}]
    sleeps: list[float] = []
    wire = Wire(api_error(429, "RESOURCE_EXHAUSTED", "quota", retry_info), ok(plan_json(["Meg Ryan"])))
    assert planner(wire, sleeps).plan(context("Meg Ryan")).next_candidates == ["Meg Ryan"]
    assert sleeps == [2.0]
    assert len(wire.requests) == 2


def test_a_429_that_lasts_ends_throttled() -> None:
    wire = Wire(*[api_error(429, "RESOURCE_EXHAUSTED", "quota", headers={"Retry-After": "0"})] * 3)
    with pytest.raises(ProviderThrottled):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 3


def test_retry_after_header_wins() -> None:
    sleeps: list[float] = []
    wire = Wire(
        api_error(503, "UNAVAILABLE", "overloaded", headers={"Retry-After": "3"}), ok(plan_json(["Meg Ryan"]))
    )
    planner(wire, sleeps).plan(context("Meg Ryan"))
    assert sleeps == [3.0]


def test_persistent_5xx_is_transient_after_the_bounded_attempts() -> None:
    wire = Wire(api_error(500, "INTERNAL", "boom"))
    with pytest.raises(TransientProviderError, match="gave up after 3 attempts"):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 3


def test_timeouts_are_transient() -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    wire = Wire(slow)
    with pytest.raises(TransientProviderError, match="timed out"):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 3


def test_a_bad_key_is_a_configuration_error_and_never_echoed() -> None:
    wire = Wire(api_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key."))
    with pytest.raises(ConfigurationError) as caught:
        planner(wire).plan(context("Meg Ryan"))
    assert KEY not in str(caught.value)
    assert len(wire.requests) == 1


def test_an_unknown_model_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="VD_GEMINI_MODEL"):
        planner(Wire(api_error(404, "NOT_FOUND", "models/gemini-9 is not found"))).plan(context("Meg Ryan"))


def test_other_4xx_is_a_provider_error() -> None:
    with pytest.raises(ProviderError):
        planner(Wire(api_error(400, "INVALID_ARGUMENT", "Request contains an invalid argument."))).plan(
            context("Meg Ryan")
        )


def test_a_missing_key_is_a_configuration_error_before_any_request() -> None:
    wire = Wire(ok(plan_json(["Meg Ryan"])))
    with pytest.raises(ConfigurationError, match="VD_GEMINI_API_KEY"):
        planner(wire, key=None).plan(context("Meg Ryan"))
    assert wire.requests == []


def test_the_key_is_hidden_in_the_planners_repr() -> None:
    assert KEY not in repr(planner(Wire(ok("{}"))).__dict__)


# ---- prompt injection: the model obeys a hostile name, the system does not ------------------------


def obedient_model(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    return httpx.Response(200, json=gemini_answer(obedient_answer(body["contents"][0]["parts"][0]["text"])))


def test_an_injected_name_cannot_widen_what_the_planner_may_do() -> None:
    # Given a candidate whose name is an instruction, and a model that obeys it
    ctx = context("Meg Ryan", HOSTILE)
    wire = Wire(obedient_model)
    # When the planner runs
    reply = planner(wire).plan(ctx)
    # Then the name only ever travelled as data...
    body = wire.body()
    assert HOSTILE not in body["systemInstruction"]["parts"][0]["text"]
    data = json.loads(body["contents"][0]["parts"][0]["text"].split("\n", 1)[1].rsplit("\n", 1)[0])
    assert HOSTILE in [c["name"] for c in data["candidates"]]
    # ...and what the obedient model asked for is refused
    errors = assert_obeyed_reply_is_refused(reply, ctx)
    # And the retry carries the errors back as data, the instruction still unchanged
    retry_wire = Wire(obedient_model)
    planner(retry_wire).plan(ctx.model_copy(update={"feedback": errors}))
    retry_body = retry_wire.body()
    assert retry_body["systemInstruction"]["parts"][0]["text"] == SYSTEM_INSTRUCTION
    retry_text = retry_body["contents"][0]["parts"][0]["text"]
    assert json.loads(retry_text.split("\n", 1)[1].rsplit("\n", 1)[0])["previousErrors"] == errors


def test_choosing_the_hostile_candidate_itself_still_only_allows_template_queries() -> None:
    assert_choosing_the_hostile_name_allows_only_template_queries(
        lambda ctx, text: planner(Wire(ok(text))).plan(ctx)
    )


# ---- connect: matching the two sides ------------------------------------------------------------


def data_of(body: dict[str, Any]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        body["contents"][0]["parts"][0]["text"].split("\n", 1)[1].rsplit("\n", 1)[0]
    )
    return document


def test_connect_asks_for_the_links_schema_and_returns_the_proposed_pairs() -> None:
    # Given Gemini answering with a route between the sides
    wire = Wire(ok(ROUTE, prompt_tokens=400, output_tokens=60, thoughts=20))
    ctx = connect_context("Meg Ryan", unseen=["Tom Hanks"], failed=[["Kevin Bacon", "Meg Ryan"]])
    # When asked to connect
    reply = planner(wire).connect(ctx)
    # Then the reply holds the pairs as proposed, with the tokens (thinking billed as output)
    assert reply.links == [
        ProposedLink(a="Kevin Bacon", b="Gary Sinise", film="Apollo 13", confidence=0.9),
        ProposedLink(a="Gary Sinise", b="Tom Hanks", film="Forrest Gump", confidence=0.95),
    ]
    assert reply.narration == "They made a film together."
    assert (reply.tokens_in, reply.tokens_out) == (400, 80)
    # And one request went out with the connect instruction, the links schema and the sides as data
    (sent,) = wire.requests
    assert sent.url.path.endswith("/models/gemini-3.5-flash:generateContent")
    body = wire.body()
    assert body["systemInstruction"]["parts"][0]["text"] == CONNECT_INSTRUCTION
    schema = body["generationConfig"]["responseSchema"]
    assert set(schema["properties"]) == {"links", "narration"}
    assert set(schema["properties"]["links"]["items"]["properties"]) == {"a", "b", "film", "confidence"}
    data = data_of(body)
    assert [p["name"] for p in data["sideB"]] == ["Tom Hanks", "Meg Ryan"]
    assert (data["unseen"], data["failed"], data["maxHops"]) == (
        ["Tom Hanks"],
        [["Kevin Bacon", "Meg Ryan"]],
        6,
    )
    assert data["previousErrors"] == []


def test_a_fenced_connect_answer_is_read() -> None:
    wire = Wire(ok("Here you go:\n```json\n" + ROUTE + "\n```"))
    assert len(planner(wire).connect(connect_context()).links) == 2


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Gary Sinise worked with both of them.", "no JSON object with the keys links, narration"),
        ('{"links": "Gary Sinise"}', "links: Input should be a valid list"),
        (links_json(link("Kevin Bacon", "Gary Sinise", confidence=85)), "links.0.confidence"),
        ('{"links": [{"a": "Kevin Bacon"}]}', "links.0.b: Field required"),
    ],
    ids=["prose", "not-a-list", "confidence-out-of-range", "half-a-pair"],
)
def test_an_unusable_connect_answer_is_a_provider_error_naming_the_problem_and_its_tokens(
    text: str, problem: str
) -> None:
    with pytest.raises(UnusableAnswer, match="no usable JSON list of links") as caught:
        planner(Wire(ok(text, prompt_tokens=300, output_tokens=30, thoughts=5))).connect(connect_context())
    assert isinstance(caught.value, ProviderError)
    assert problem in caught.value.message
    assert (caught.value.tokens_in, caught.value.tokens_out) == (300, 35)


def test_connect_retries_a_429_as_one_logical_call() -> None:
    sleeps: list[float] = []
    wire = Wire(api_error(429, "RESOURCE_EXHAUSTED", "quota", headers={"Retry-After": "1"}), ok(ROUTE))
    assert len(planner(wire, sleeps).connect(connect_context()).links) == 2
    assert sleeps == [1.0] and len(wire.requests) == 2


def obedient_connect_model(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    return httpx.Response(
        200, json=gemini_answer(obedient_connect_answer(body["contents"][0]["parts"][0]["text"]))
    )


def test_an_injected_name_cannot_make_a_connect_answer_more_than_bounded_hunches() -> None:
    # Given a person of B's side whose name is an instruction, and a model that obeys it
    ctx = connect_context(HOSTILE, unseen=[HOSTILE])
    wire = Wire(obedient_connect_model)
    reply = planner(wire).connect(ctx)
    # Then the name only travelled as data, and what the model was talked into is refused
    body = wire.body()
    assert body["systemInstruction"]["parts"][0]["text"] == CONNECT_INSTRUCTION
    assert HOSTILE in [p["name"] for p in data_of(body)["sideB"]]
    errors = assert_obeyed_links_are_refused(reply, ctx)
    # And the retry carries the errors back as data, the instruction unchanged
    retry = Wire(obedient_connect_model)
    planner(retry).connect(ctx.model_copy(update={"feedback": errors}))
    assert retry.body()["systemInstruction"]["parts"][0]["text"] == CONNECT_INSTRUCTION
    assert data_of(retry.body())["previousErrors"] == errors
    assert validate_connect(reply, ctx)[0] is None


def test_pairing_the_hostile_person_is_at_most_a_hunch() -> None:
    assert_a_hostile_name_is_at_most_a_hunch(lambda ctx, text: planner(Wire(ok(text))).connect(ctx))
