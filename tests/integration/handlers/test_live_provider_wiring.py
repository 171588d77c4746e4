"""The composition root with live providers: keys from Secrets Manager, read on first use only by
the steps that call providers, refreshed when the secret changes, never logged."""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import boto3
import pytest
from botocore.stub import Stubber

from tests.integration.handlers.helpers import REGION
from tests.support.fake_wire_servers import FakeOpenAI
from tests.support.planner_cases import ROUTE, connect_context
from visual_degrees.config import PLAIN_SECRET_FIELDS
from visual_degrees.constants import ENV_SECRET_ARN
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.models import Person, RunState
from visual_degrees.handlers import direct_edge_attempt, initialize_session
from visual_degrees.handlers.wiring import using_runtime
from visual_degrees.ports import Providers
from visual_degrees.services.run_access import RunAccess

KEYS = {"brave_api_key": "brave-key-7d1f0c2b9e", "gemini_api_key": "gemini-key-4a5b6c7d8e"}


@pytest.fixture
def provider_secret(aws):
    return aws.secretsmanager.create_secret(Name="VisualDegrees-ProviderKeys", SecretString=json.dumps(KEYS))[
        "ARN"
    ]


def test_searching_steps_build_the_configured_search_engine_from_the_secret(aws, provider_secret, logs):
    runtime = aws.runtime(
        environ={**aws.environ, ENV_SECRET_ARN: provider_secret, "VD_SEARCH_ENGINE": "brave"}
    )
    live = runtime.live_providers()
    assert type(live.search).__name__ == "BraveImageSearch"
    assert type(live.recognizer).__name__ == "RekognitionRecognizer"
    assert live.planner is not None  # the Gemini key is there
    assert runtime.live_providers() is live  # cached for the warm container
    assert all(key not in logs.getvalue() for key in KEYS.values())


def test_new_keys_in_the_secret_reach_a_warm_container(aws, provider_secret, monkeypatch):
    monkeypatch.setenv("VD_SECRET_CACHE_SECONDS", "0")
    runtime = aws.runtime(environ={**aws.environ, ENV_SECRET_ARN: provider_secret}, recheck_seconds=0)
    before = runtime.live_providers()
    assert runtime.live_providers() is before  # same keys: same providers
    aws.secretsmanager.put_secret_value(
        SecretId=provider_secret, SecretString=json.dumps({**KEYS, "brave_api_key": "brave-key-rotated"})
    )
    assert runtime.live_providers() is not before


# The secret's settings that are not keys: each, changed alone, must reach a warm container too.
PLAIN_CHANGES = {
    "google_cx": ("cx-first-1234", "cx-second-5678"),
    "openai_base_url": ("http://10.0.3.7:8000/v1", "http://10.0.3.8:8000/v1"),
    "openai_model": ("llama3.1:8b", "qwen2.5:7b"),
}


def test_every_plain_secret_setting_is_covered() -> None:
    assert set(PLAIN_CHANGES) == PLAIN_SECRET_FIELDS


@pytest.mark.parametrize("field", sorted(PLAIN_CHANGES))
def test_a_changed_plain_setting_in_the_secret_reaches_a_warm_container(aws, monkeypatch, field):
    # Given a warm container whose secret holds the self-hosted planner's and Google's settings
    first = {**KEYS, **{name: values[0] for name, values in PLAIN_CHANGES.items()}}
    arn = aws.secretsmanager.create_secret(Name="VisualDegrees-Plain", SecretString=json.dumps(first))["ARN"]
    monkeypatch.setenv("VD_SECRET_CACHE_SECONDS", "0")
    environ = {**aws.environ, ENV_SECRET_ARN: arn, "VD_PLANNER": "openai"}
    runtime = aws.runtime(environ=environ, recheck_seconds=0)
    before = runtime.live_providers()
    assert runtime.live_providers() is before
    # When only that setting changes in the secret
    now = {**first, field: PLAIN_CHANGES[field][1]}
    aws.secretsmanager.put_secret_value(SecretId=arn, SecretString=json.dumps(now))
    # Then the providers are rebuilt from it
    after = runtime.live_providers()
    assert after is not before
    endpoint = after.planner.for_run().endpoint
    host = urlsplit(now["openai_base_url"]).netloc
    assert endpoint.what == f"chat endpoint {host} ({now['openai_model']})"


def test_a_missing_search_key_fails_the_searching_step_with_a_configuration_error(aws, context):
    # Given the provider secret without a search key
    empty = aws.secretsmanager.create_secret(Name="VisualDegrees-Empty", SecretString="{}")["ARN"]
    runtime = aws.runtime(environ={**aws.environ, ENV_SECRET_ARN: empty})
    state = RunState(run_id="20261201T100000-abc123", person_a=Person.of("A B"), person_b=Person.of("C D"))
    with using_runtime(runtime):
        after_s0 = initialize_session.handler(state.dump(), context)
        # Then S1 fails with the error name the state machine does not retry (it goes to HandleError)
        with pytest.raises(ConfigurationError, match="VD_BRAVE_API_KEY"):
            direct_edge_attempt.handler(after_s0, context)


def test_steps_that_call_no_provider_never_read_the_secret(aws, context):
    # Given a Secrets Manager client that answers nothing (any call would fail the test)
    silent = boto3.client("secretsmanager", region_name=REGION)
    with Stubber(silent) as stub:
        runtime = aws.runtime(secretsmanager=silent)
        state = RunState(
            run_id="20261201T100000-def456", person_a=Person.of("A B"), person_b=Person.of("C D")
        )
        with using_runtime(runtime):
            after_s0 = initialize_session.handler(state.dump(), context)
        assert after_s0["step"] == 1
        stub.assert_no_pending_responses()
    # And their providers refuse to be used
    with pytest.raises(ConfigurationError, match="no providers"):
        runtime.providers_for("finalize_success").search.search("A B", 5)


def test_the_planning_step_forwards_both_planner_requests_to_the_live_planner(aws):
    # Given a planning step whose deployment selects a self-hosted planner
    with FakeOpenAI(connect=lambda data: json.loads(ROUTE)) as server:
        environ = {
            **aws.environ,
            "VD_BRAVE_API_KEY": "brave-key-7d1f0c2b9e",
            "VD_PLANNER": "openai",
            "VD_OPENAI_BASE_URL": server.base_url,
            "VD_OPENAI_MODEL": "llama3.1:8b",
        }
        planner = aws.runtime(environ=environ).providers_for("select_next_expansion").planner
        # When the step asks it to connect the sides (services/matching only asks a planner that can)
        assert planner is not None and hasattr(planner, "connect")
        reply = planner.connect(connect_context())
        # Then the request reached the live planner, as a connect request
        assert len(reply.links) == 2
        assert server.kinds == ["connect"]


def test_without_a_configured_planner_connect_is_a_configuration_error(aws):
    environ = {**aws.environ, "VD_BRAVE_API_KEY": "brave-key-7d1f0c2b9e", "VD_PLANNER": "gemini"}
    planner = aws.runtime(environ=environ).providers_for("select_next_expansion").planner
    with pytest.raises(ConfigurationError, match="no planner"):
        planner.connect(connect_context())


# ---- pacing: the deployment's limiter, shared by every Lambda through the run-memory table ------


def test_a_deployed_search_reads_as_many_titles_as_one_paid_request_returns(aws):
    # The live search engine sits behind the step's deferred providers; its page size (Brave: 200
    # results for the price of one request) must still reach the run, paced or not.
    environ = {**aws.environ, "VD_BRAVE_API_KEY": "brave-key-7d1f0c2b9e"}
    runtime = aws.runtime(environ=environ)
    assert runtime.providers_for("direct_edge_attempt").search.page_size == 200
    state = RunState(run_id="20261201T100000-aa0001", person_a=Person.of("A B"), person_b=Person.of("C D"))
    assert runtime.step_context("direct_edge_attempt", state).providers.search.page_size == 200


def test_a_providers_step_is_paced_for_its_runs_client_until_the_function_must_finish(aws):
    # Given a run started by client "alice" 30 s ago with a 120 s runtime budget
    recorded: list[tuple[str, str, float]] = []

    class Recording:
        def acquire(self, provider: str, client: str, deadline: float) -> bool:
            recorded.append((provider, client, deadline))
            return True

    runtime = aws.runtime(limiter=Recording(), providers=Providers.of(CannedWeb(), web="test"))
    run_id = "20261201T100000-aa0002"
    RunAccess(runtime.memory).register(run_id, "alice", 1800)
    started = time.time() - 30
    state = RunState(run_id=run_id, person_a=Person.of("A B"), person_b=Person.of("C D"), started_at=started)
    # When the step's providers are used, in a function that must be done in 10 s
    until = time.time() + 10
    ctx = runtime.step_context("direct_edge_attempt", state, until=until)
    ctx.providers.search.search("A B", 5)
    # Then the call waited for alice's slot, no later than the function's end
    assert recorded == [("search", "alice", until)]
    # And a step that calls no provider is not paced at all
    assert runtime.limiter_for("finalize_success") is None


def test_the_live_limiter_lives_in_the_run_table_at_the_configured_rates(aws, provider_secret):
    environ = {
        **aws.environ,
        ENV_SECRET_ARN: provider_secret,
        "VD_SEARCH_RPS": "3",
        "AWS_REGION": "eu-west-1",
    }
    limiter = aws.runtime(environ=environ).live_limiter()
    assert limiter.rates.per_second == {"search": 3.0, "recognition": 50.0, "llm": 16.0}
    assert limiter.acquire("search", "alice", deadline=time.time() + 5)
    assert aws.items("limiter#search") and aws.items("limiter#search#client#alice")


class CannedWeb:
    page_size = 20

    def search(self, query: str, count: int) -> list:
        return []

    def fetch(self, url: str):  # pragma: no cover - not fetched here
        raise AssertionError

    def recognize(self, image) -> list:  # pragma: no cover - not recognised here
        raise AssertionError
