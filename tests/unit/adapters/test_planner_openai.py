"""The OpenAI-compatible planner (Ollama, vLLM, LM Studio) over a fake httpx transport speaking the
chat-completions wire format (no sockets; the 127.0.0.1 server tests are in tests/integration)."""

from __future__ import annotations

import json
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
    obedient_answer,
    obedient_connect_answer,
    plan_json,
)
from tests.support.planner_cases import planner_context as context
from tests.support.wire import Handler
from tests.support.wire import Wire as BaseWire
from visual_degrees.adapters.live.http_retry import RetryPolicy
from visual_degrees.adapters.live.planner_openai import (
    API_KEY_VARIABLE,
    BASE_URL_VARIABLE,
    MODEL_VARIABLE,
    OpenAICompatiblePlanner,
    strict_schema,
)
from visual_degrees.adapters.live.planner_prompt import (
    CONNECT_INSTRUCTION,
    DATA_TAG,
    SYSTEM_INSTRUCTION,
    UnusableAnswer,
    connect_wire_schema,
    wire_schema,
)
from visual_degrees.config import Settings
from visual_degrees.domain.errors import (
    ConfigurationError,
    ProviderError,
    ProviderThrottled,
    TransientProviderError,
)

KEY = "sk-local-secret-42"
BASE = "http://gpu.internal:8000/v1"
MODEL = "llama3.1:8b"


def completion(content: Any, *, usage: dict[str, int] | None = None, finish: str = "stop") -> dict[str, Any]:
    document: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": MODEL,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}
        ],
    }
    if usage is not None:
        document["usage"] = usage
    return document


USAGE = {"prompt_tokens": 812, "completion_tokens": 47, "total_tokens": 859}


def ok(content: Any, usage: dict[str, int] | None = USAGE) -> Handler:
    return lambda _r: httpx.Response(200, json=completion(content, usage=usage))


def error(status: int, document: Any, headers: dict[str, str] | None = None) -> Handler:
    return lambda _r: httpx.Response(status, json=document, headers=headers)


class Wire(BaseWire):
    def formats(self) -> list[str | None]:
        return [(json.loads(r.content).get("response_format") or {}).get("type") for r in self.requests]


def planner(
    wire: Wire, sleeps: list[float] | None = None, key: str | None = KEY, **options: Any
) -> OpenAICompatiblePlanner:
    return OpenAICompatiblePlanner(
        BASE,
        model=MODEL,
        api_key=key,
        client=httpx.Client(transport=httpx.MockTransport(wire)),
        retry=RetryPolicy(
            max_attempts=3,
            base_delay=0.1,
            max_delay=60.0,
            sleep=(sleeps if sleeps is not None else []).append,
        ),
        **options,
    )


def data_of(body: dict[str, Any]) -> dict[str, Any]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return json.loads(user.split("\n", 1)[1].rsplit("\n", 1)[0])


# ---- the request and a good reply ---------------------------------------------------------------


def test_a_plan_comes_back_with_token_usage_and_the_request_is_the_chat_completions_shape() -> None:
    # Given a server answering with a plan
    wire = Wire(ok(plan_json(["Meg Ryan"], ["Kevin Bacon Meg Ryan"], "Meg Ryan starred with both.")))
    # When planning
    reply = planner(wire).plan(context("Meg Ryan", "Bill Paxton"))
    # Then the reply carries the plan and the reported usage
    assert reply.next_candidates == ["Meg Ryan"]
    assert reply.search_queries == ["Kevin Bacon Meg Ryan"]
    assert reply.narration == "Meg Ryan starred with both."
    assert (reply.tokens_in, reply.tokens_out) == (812, 47)
    # And one POST went to {base}/chat/completions with the key as a Bearer token
    (sent,) = wire.requests
    assert (sent.method, str(sent.url)) == ("POST", f"{BASE}/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    # And the body is the shared prompt as system + user messages, asking for the strict schema
    body = wire.body()
    assert body["model"] == MODEL
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"] == SYSTEM_INSTRUCTION
    assert body["messages"][1]["content"].startswith(f"<{DATA_TAG}>")
    assert (body["temperature"], body["max_tokens"], body["stream"]) == (0.2, 1024, False)
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["nextCandidates", "searchQueries", "narration"]
    assert all("default" not in p for p in schema["properties"].values())


def test_the_strict_schema_is_the_shared_wire_schema_tightened() -> None:
    shared = wire_schema()
    strict = strict_schema(shared)
    assert set(strict["properties"]) == set(shared["properties"])
    assert strict["properties"]["nextCandidates"]["items"] == {"type": "string"}


def test_without_a_key_no_authorization_header_is_sent() -> None:
    wire = Wire(ok(plan_json(["Meg Ryan"])))
    planner(wire, key=None).plan(context("Meg Ryan"))
    assert "authorization" not in wire.requests[0].headers
    wire = Wire(ok(plan_json(["Meg Ryan"])))
    planner(wire, key="  ").plan(context("Meg Ryan"))
    assert "authorization" not in wire.requests[0].headers


@pytest.mark.parametrize(
    "content",
    [
        "```json\n" + plan_json(["Meg Ryan"]) + "\n```",
        "Here is my plan:\n" + plan_json(["Meg Ryan"]) + "\nGood luck!",
        "<think>The data says {candidates}; Meg Ryan is best.</think>\n" + plan_json(["Meg Ryan"]),
        [{"type": "text", "text": plan_json(["Meg Ryan"])}],
    ],
    ids=["fenced", "prose-around", "reasoning-first", "content-parts"],
)
def test_json_wrapped_in_a_fence_or_prose_is_found(content: Any) -> None:
    assert planner(Wire(ok(content))).plan(context("Meg Ryan")).next_candidates == ["Meg Ryan"]


@pytest.mark.parametrize(
    "content",
    [
        "I would try Meg Ryan first, she starred with both.",
        '{"nextCandidates": ',
        '["Meg Ryan"]',
        '{"nextCandidates": "Meg Ryan"}',
        '{"answer": "Meg Ryan"}',
        None,
        "",
    ],
)
def test_prose_or_broken_json_is_a_provider_error_for_the_s3_step(content: Any) -> None:
    # The S3 step counts the attempt, feeds the failure back and, after its attempts, falls back.
    with pytest.raises(ProviderError, match="no usable JSON plan"):
        planner(Wire(ok(content))).plan(context("Meg Ryan"))


def test_a_reply_cut_off_by_max_tokens_says_so() -> None:
    cut = lambda _r: httpx.Response(200, json=completion('{"nextCandidates": ["Me', finish="length"))  # noqa: E731
    with pytest.raises(ProviderError, match="finish reason length"):
        planner(Wire(cut)).plan(context("Meg Ryan"))


def test_missing_usage_is_estimated_from_the_text() -> None:
    # Given a server that reports no usage (some local servers do not)
    text = plan_json(["Meg Ryan"])
    wire = Wire(ok(text, usage=None))
    # When planning
    reply = planner(wire).plan(context("Meg Ryan"))
    # Then the tokens are estimated at four characters a token, never zero
    sent = sum(len(m["content"]) for m in wire.body()["messages"])
    assert (reply.tokens_in, reply.tokens_out) == (sent // 4, len(text) // 4)
    assert reply.tokens_in > 0 and reply.tokens_out > 0


def test_partial_usage_estimates_only_the_missing_side() -> None:
    reply = planner(Wire(ok(plan_json(["Meg Ryan"]), usage={"prompt_tokens": 900}))).plan(context("Meg Ryan"))
    assert reply.tokens_in == 900 and reply.tokens_out > 0


@pytest.mark.parametrize(
    "document",
    [
        {"choices": []},
        {"object": "chat.completion"},
        ["not", "an", "object"],
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "refusal": "No."}}]},
    ],
    ids=["no-choices", "no-choices-key", "not-an-object", "refusal"],
)
def test_an_answer_without_a_usable_choice_is_a_provider_error(document: Any) -> None:
    with pytest.raises(ProviderError):
        planner(Wire(lambda _r: httpx.Response(200, json=document))).plan(context("Meg Ryan"))


def test_a_body_that_is_not_json_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="not JSON"):
        planner(Wire(lambda _r: httpx.Response(200, text="<html>proxy</html>"))).plan(context("Meg Ryan"))


# ---- response_format: servers differ -------------------------------------------------------------


VLLM_REJECTS_FORMAT = {
    "object": "error",
    "message": "response_format json_schema is not supported",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}


def test_a_server_refusing_json_schema_is_asked_again_with_json_object_and_that_is_remembered() -> None:
    # Given a server that refuses json_schema (400 naming response_format), then answers
    wire = Wire(error(400, VLLM_REJECTS_FORMAT), ok(plan_json(["Meg Ryan"])))
    chosen = planner(wire)
    # When planning twice
    assert chosen.plan(context("Meg Ryan")).next_candidates == ["Meg Ryan"]
    chosen.plan(context("Meg Ryan"))
    # Then the first plan retried once with json_object, and the second went straight to it
    assert wire.formats() == ["json_schema", "json_object", "json_object"]
    assert chosen.endpoint.response_format == "json_object"


def test_a_server_refusing_every_response_format_gets_none() -> None:
    # LM Studio refuses json_object; a server taking neither gets a plain request (the prompt asks for JSON)
    unprocessable = {"detail": [{"loc": ["body", "response_format"], "msg": "unsupported"}]}
    wire = Wire(error(400, VLLM_REJECTS_FORMAT), error(422, unprocessable), ok(plan_json(["Meg Ryan"])))
    chosen = planner(wire)
    assert chosen.plan(context("Meg Ryan")).next_candidates == ["Meg Ryan"]
    assert wire.formats() == ["json_schema", "json_object", None]
    assert chosen.endpoint.response_format == "none"


def test_the_response_format_can_be_configured_lower_from_the_start() -> None:
    wire = Wire(ok(plan_json(["Meg Ryan"])))
    planner(wire, response_format="none").plan(context("Meg Ryan"))
    assert wire.formats() == [None]


def test_a_400_that_does_not_name_the_response_format_is_a_provider_error_without_fallback() -> None:
    too_long = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    wire = Wire(error(400, too_long))
    chosen = planner(wire)
    with pytest.raises(ProviderError, match=r"HTTP 400 context_length_exceeded\)"):
        chosen.plan(context("Meg Ryan"))
    assert len(wire.requests) == 1
    assert chosen.endpoint.response_format == "json_schema"


# ---- transport failures --------------------------------------------------------------------------


def test_429_waits_as_told_and_is_one_logical_call() -> None:
    sleeps: list[float] = []
    limited = {
        "error": {"message": "slow down", "type": "rate_limit_exceeded", "code": "rate_limit_exceeded"}
    }
    wire = Wire(error(429, limited, {"Retry-After": "2"}), ok(plan_json(["Meg Ryan"])))
    assert planner(wire, sleeps).plan(context("Meg Ryan")).next_candidates == ["Meg Ryan"]
    assert sleeps == [2.0]
    assert len(wire.requests) == 2


def test_persistent_5xx_is_transient_after_the_bounded_attempts() -> None:
    wire = Wire(error(503, {"error": {"message": "loading model", "type": "server_error"}}))
    with pytest.raises(TransientProviderError, match="gave up after 3 attempts"):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 3


def test_a_wait_longer_than_we_accept_stops_at_once() -> None:
    wire = Wire(error(429, {"error": {"message": "quota"}}, {"Retry-After": "3600"}))
    with pytest.raises(ProviderThrottled, match="asked to wait"):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 1


@pytest.mark.parametrize(
    "failure",
    [httpx.ReadTimeout("slow"), httpx.ConnectError("refused")],
    ids=["timeout", "refused"],
)
def test_timeouts_and_refused_connections_are_transient(failure: Exception) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise failure

    wire = Wire(fail)
    with pytest.raises(TransientProviderError):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 3


@pytest.mark.parametrize("status", [401, 403])
def test_a_rejected_key_is_a_configuration_error_and_never_echoed(status: int) -> None:
    echoed = {"error": {"message": f"Incorrect API key provided: {KEY}", "code": "invalid_api_key"}}
    wire = Wire(error(status, echoed))
    with pytest.raises(ConfigurationError, match=API_KEY_VARIABLE) as caught:
        planner(wire).plan(context("Meg Ryan"))
    assert KEY not in str(caught.value)
    assert len(wire.requests) == 1


@pytest.mark.parametrize(
    ("status", "document"),
    [
        (404, {"error": {"message": 'model "llama9" not found, try pulling it first', "type": "api_error"}}),
        (404, {"object": "error", "message": "The model `llama9` does not exist.", "type": "NotFoundError"}),
        (404, {"error": {"message": "The model `llama9` does not exist", "code": "model_not_found"}}),
        (400, {"error": 'Model "llama9" not found. Please load it first.'}),
    ],
    ids=["ollama", "vllm", "openai", "lm-studio"],
)
def test_a_wrong_model_is_a_clear_configuration_error(status: int, document: Any) -> None:
    wire = Wire(error(status, document))
    with pytest.raises(ConfigurationError, match=f"model '{MODEL}' not found.*{MODEL_VARIABLE}"):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 1


def test_a_base_url_without_the_api_is_a_configuration_error_naming_the_setting() -> None:
    # e.g. Ollama's address without /v1: its router answers a plain-text 404
    wire = Wire(lambda _r: httpx.Response(404, text="404 page not found"))
    with pytest.raises(ConfigurationError, match=f"{BASE_URL_VARIABLE}.*/v1"):
        planner(wire).plan(context("Meg Ryan"))


def test_redirects_are_not_followed() -> None:
    wire = Wire(lambda _r: httpx.Response(307, headers={"Location": "http://169.254.169.254/"}))
    with pytest.raises(ProviderError, match="HTTP 307"):
        planner(wire).plan(context("Meg Ryan"))
    assert len(wire.requests) == 1


def test_a_missing_address_or_model_is_a_configuration_error_before_any_request() -> None:
    wire = Wire(ok(plan_json(["Meg Ryan"])))
    bare = OpenAICompatiblePlanner("", model="", client=httpx.Client(transport=httpx.MockTransport(wire)))
    with pytest.raises(ConfigurationError, match=f"{BASE_URL_VARIABLE} and {MODEL_VARIABLE}"):
        bare.plan(context("Meg Ryan"))
    assert wire.requests == []


def test_the_key_is_hidden_in_the_planners_repr_and_messages_name_only_host_and_model() -> None:
    chosen = OpenAICompatiblePlanner("http://user:pw@gpu.internal:8000/v1", model=MODEL, api_key=KEY)
    assert KEY not in repr(vars(chosen)) and KEY not in repr(vars(chosen.endpoint))
    assert chosen.endpoint.what == f"chat endpoint gpu.internal:8000 ({MODEL})"


def test_variable_names_come_from_the_settings_fields() -> None:
    assert Settings.env_name("openai_base_url") == BASE_URL_VARIABLE
    assert Settings.env_name("openai_model") == MODEL_VARIABLE
    assert Settings.env_name("openai_api_key") == API_KEY_VARIABLE


# ---- the doctor's check --------------------------------------------------------------------------


def models(*ids: str) -> Handler:
    listed = {"object": "list", "data": [{"id": i, "object": "model", "owned_by": "library"} for i in ids]}
    return lambda _r: httpx.Response(200, json=listed)


def test_the_model_check_reads_the_model_list() -> None:
    wire = Wire(models("qwen2.5:7b", MODEL))
    assert planner(wire).check_model() == f"model {MODEL} served (2 model(s) listed)"
    (sent,) = wire.requests
    assert (sent.method, str(sent.url)) == ("GET", f"{BASE}/models")
    assert sent.headers["authorization"] == f"Bearer {KEY}"


def test_ollamas_implicit_latest_tag_counts_as_served() -> None:
    wire = Wire(models("llama3.1:latest"))
    chosen = OpenAICompatiblePlanner(
        BASE, model="llama3.1", client=httpx.Client(transport=httpx.MockTransport(wire))
    )
    assert chosen.check_model().startswith("model llama3.1 served")


def test_a_model_the_server_does_not_list_is_a_configuration_error_naming_what_it_has() -> None:
    with pytest.raises(
        ConfigurationError, match=rf"'{MODEL}' is not served \(listed: qwen2.5:7b\).*{MODEL_VARIABLE}"
    ):
        planner(Wire(models("qwen2.5:7b"))).check_model()


def test_a_server_without_a_model_list_gets_a_one_token_completion() -> None:
    wire = Wire(lambda _r: httpx.Response(404, text="not found"), ok("OK"))
    assert planner(wire).check_model() == f"model {MODEL} answered (the server lists no models)"
    ping = wire.body(1)
    assert ping["max_tokens"] == 1 and "response_format" not in ping


# ---- prompt injection: the model obeys a hostile name, the system does not ------------------------


def obedient_model(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    prompt = "\n".join(m["content"] for m in body["messages"])
    return httpx.Response(200, json=completion(obedient_answer(prompt), usage=USAGE))


def test_an_injected_name_cannot_widen_what_the_planner_may_do() -> None:
    # Given a candidate whose name is an instruction, and a model that obeys it
    ctx = context("Meg Ryan", HOSTILE)
    wire = Wire(obedient_model)
    # When the planner runs
    reply = planner(wire).plan(ctx)
    # Then the name only ever travelled as data, never in the system message
    body = wire.body()
    assert body["messages"][0] == {"role": "system", "content": SYSTEM_INSTRUCTION}
    assert HOSTILE in [c["name"] for c in data_of(body)["candidates"]]
    # ...and what the obedient model asked for is refused
    errors = assert_obeyed_reply_is_refused(reply, ctx)
    # And the retry carries the errors back as data, the instruction unchanged
    retry_wire = Wire(obedient_model)
    planner(retry_wire).plan(ctx.model_copy(update={"feedback": errors}))
    retry_body = retry_wire.body()
    assert retry_body["messages"][0]["content"] == SYSTEM_INSTRUCTION
    assert data_of(retry_body)["previousErrors"] == errors


def test_choosing_the_hostile_candidate_itself_still_only_allows_template_queries() -> None:
    assert_choosing_the_hostile_name_allows_only_template_queries(
        lambda ctx, text: planner(Wire(ok(text))).plan(ctx)
    )


# ---- connect: matching the two sides ------------------------------------------------------------


def test_connect_asks_for_the_strict_links_schema_and_returns_the_proposed_pairs() -> None:
    # Given a server answering with a route
    wire = Wire(ok(ROUTE))
    # When asked to connect
    reply = planner(wire).connect(connect_context("Meg Ryan"))
    # Then the reply holds the proposed pairs and the reported usage
    assert [(x.a, x.b, x.film) for x in reply.links] == [
        ("Kevin Bacon", "Gary Sinise", "Apollo 13"),
        ("Gary Sinise", "Tom Hanks", "Forrest Gump"),
    ]
    assert (reply.tokens_in, reply.tokens_out) == (812, 47)
    # And the request is the connect prompt, asking for the links schema, strict at every level
    body = wire.body()
    assert body["messages"][0] == {"role": "system", "content": CONNECT_INSTRUCTION}
    assert [p["name"] for p in data_of(body)["sideB"]] == ["Tom Hanks", "Meg Ryan"]
    response_format = body["response_format"]["json_schema"]
    assert (response_format["name"], response_format["strict"]) == ("connect_reply", True)
    item = response_format["schema"]["properties"]["links"]["items"]
    assert item["additionalProperties"] is False
    assert item["required"] == ["a", "b", "film", "confidence"]
    assert "default" not in json.dumps(response_format["schema"])


def test_the_strict_links_schema_is_the_shared_one_tightened() -> None:
    strict = strict_schema(connect_wire_schema())
    assert strict["additionalProperties"] is False
    assert strict["properties"]["links"]["items"]["properties"]["confidence"]["maximum"] == 1.0


@pytest.mark.parametrize(
    "content",
    ["```json\n" + ROUTE + "\n```", "<think>Sinise links them.</think>\n" + ROUTE],
    ids=["fenced", "reasoning-first"],
)
def test_a_wrapped_connect_answer_is_read(content: str) -> None:
    assert len(planner(Wire(ok(content))).connect(connect_context()).links) == 2


def test_prose_instead_of_links_is_a_provider_error_with_its_tokens() -> None:
    wire = Wire(ok("Gary Sinise worked with both of them.", usage=None))
    with pytest.raises(
        UnusableAnswer, match=r"no usable JSON list of links \(finish reason stop: no JSON object"
    ) as caught:
        planner(wire).connect(connect_context())
    sent = sum(len(m["content"]) for m in wire.body()["messages"])
    assert (caught.value.tokens_in, caught.value.tokens_out) == (
        sent // 4,
        len("Gary Sinise worked with both of them.") // 4,
    )


def test_a_server_refusing_json_schema_gets_json_object_for_connect_too() -> None:
    wire = Wire(error(400, VLLM_REJECTS_FORMAT), ok(ROUTE))
    chosen = planner(wire)
    assert len(chosen.connect(connect_context()).links) == 2
    assert wire.formats() == ["json_schema", "json_object"]


def obedient_connect_model(request: httpx.Request) -> httpx.Response:
    body = json.loads(request.content)
    prompt = "\n".join(m["content"] for m in body["messages"])
    return httpx.Response(200, json=completion(obedient_connect_answer(prompt), usage=USAGE))


def test_an_injected_name_cannot_make_a_connect_answer_more_than_bounded_hunches() -> None:
    ctx = connect_context(HOSTILE)
    wire = Wire(obedient_connect_model)
    reply = planner(wire).connect(ctx)
    body = wire.body()
    assert body["messages"][0] == {"role": "system", "content": CONNECT_INSTRUCTION}
    assert HOSTILE in [p["name"] for p in data_of(body)["sideB"]]
    errors = assert_obeyed_links_are_refused(reply, ctx)
    retry = Wire(obedient_connect_model)
    planner(retry).connect(ctx.model_copy(update={"feedback": errors}))
    assert data_of(retry.body())["previousErrors"] == errors
    assert retry.body()["messages"][0]["content"] == CONNECT_INSTRUCTION


def test_pairing_the_hostile_person_is_at_most_a_hunch() -> None:
    assert_a_hostile_name_is_at_most_a_hunch(lambda ctx, text: planner(Wire(ok(text))).connect(ctx))
