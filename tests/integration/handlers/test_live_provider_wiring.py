"""The composition root with live providers: keys from Secrets Manager, read on first use only by
the steps that call providers, refreshed when the secret changes, never logged."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.stub import Stubber

from tests.integration.handlers.helpers import REGION
from visual_degrees.constants import ENV_SECRET_ARN
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.domain.models import Person, RunState
from visual_degrees.handlers import direct_edge_attempt, initialize_session
from visual_degrees.handlers.wiring import using_runtime

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
