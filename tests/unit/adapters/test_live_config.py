"""Live-provider settings: environment, dotenv file, Secrets Manager (stubbed), secrets never shown."""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from visual_degrees.adapters.aws.secrets import SecretsManagerSecrets
from visual_degrees.constants import (
    ENV_BEDROCK_MODEL_ID,
    ENV_CLIENT_TOKENS_SECRET_ARN,
    ENV_PLANNER,
    ENV_PROVIDER_SECRET_ARN,
    ENV_SEARCH_ENGINE,
)
from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.settings import DEFAULT_GEMINI_MODEL, Settings, load_settings

ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:vd-keys-AbCdEf"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith("VD_"):
            monkeypatch.delenv(name)


@pytest.fixture
def sm_client() -> Any:
    return boto3.client(
        "secretsmanager", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )


@pytest.fixture
def stub(sm_client: Any) -> Iterator[Stubber]:
    with Stubber(sm_client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


def secret_answer(value: dict[str, Any] | str) -> dict[str, Any]:
    text = value if isinstance(value, str) else json.dumps(value)
    return {"ARN": ARN, "Name": "vd-keys", "VersionId": "v1" * 16, "SecretString": text}


def test_defaults_choose_brave_and_a_current_gemini_flash() -> None:
    settings = Settings()
    assert (settings.search_engine, settings.planner) == ("brave", "gemini")
    assert settings.gemini_model == DEFAULT_GEMINI_MODEL
    assert not settings.gemini_model.startswith("gemini-2.0")  # that family is shut down
    assert settings.fetch_allow_networks == ()
    assert (settings.openai_base_url, settings.openai_model, settings.openai_response_format) == (
        None,
        None,
        "json_schema",
    )
    assert settings.fetch_max_redirects == 3
    assert settings.image_max_bytes == 5 * 1024 * 1024


def test_environment_variables_configure_every_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VD_SEARCH_ENGINE", "google")
    monkeypatch.setenv("VD_PLANNER", "bedrock")
    monkeypatch.setenv("VD_GOOGLE_API_KEY", "g-key")
    monkeypatch.setenv("VD_GOOGLE_CX", "cx-1")
    monkeypatch.setenv("VD_GOOGLE_ENDPOINT", "http://127.0.0.1:8080/customsearch/v1")
    monkeypatch.setenv("VD_GEMINI_BASE_URL", "https://proxy.internal/gemini/")
    monkeypatch.setenv("VD_FETCH_ALLOW_NETWORKS", "127.0.0.1/32, 10.1.0.0/16")
    settings = load_settings()
    assert settings.search_engine == "google" and settings.planner == "bedrock"
    assert settings.google_endpoint == "http://127.0.0.1:8080/customsearch/v1"
    assert settings.gemini_base_url == "https://proxy.internal/gemini/"
    assert settings.fetch_allow_networks == (
        ipaddress.ip_network("127.0.0.1/32"),
        ipaddress.ip_network("10.1.0.0/16"),
    )
    assert settings.missing_for_search() == []


def test_a_blank_thinking_level_sends_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VD_GEMINI_THINKING_LEVEL", "")
    assert load_settings().gemini_thinking_level is None
    monkeypatch.setenv("VD_GEMINI_THINKING_LEVEL", "HIGH")
    assert load_settings().gemini_thinking_level == "high"


def test_a_dotenv_file_is_read(tmp_path: Path) -> None:
    file = tmp_path / "vd.env"
    file.write_text("VD_BRAVE_API_KEY=from-file\nVD_GEMINI_MODEL=gemini-3.5-flash-lite\n")
    settings = load_settings(env_file=file)
    assert settings.brave_api_key is not None and settings.brave_api_key.get_secret_value() == "from-file"
    assert settings.gemini_model == "gemini-3.5-flash-lite"


def test_the_config_file_can_be_named_by_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    file = tmp_path / "vd.env"
    file.write_text("VD_SEARCH_ENGINE=google\n")
    monkeypatch.setenv("VD_CONFIG_FILE", str(file))
    assert load_settings().search_engine == "google"
    monkeypatch.setenv("VD_CONFIG_FILE", str(tmp_path / "missing.env"))
    with pytest.raises(ConfigurationError, match="does not exist"):
        load_settings()


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("VD_SEARCH_ENGINE", "bing", "search_engine"),
        ("VD_BRAVE_ENDPOINT", "ftp://brave", "brave_endpoint"),
        ("VD_FETCH_ALLOW_NETWORKS", "10.0.0.0/8,banana", "fetch_allow_networks"),
        ("VD_FETCH_MAX_REDIRECTS", "10", "fetch_max_redirects"),
        ("VD_IMAGE_MAX_BYTES", "99999999", "image_max_bytes"),
    ],
)
def test_bad_values_are_configuration_errors_naming_the_field(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, field: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=field):
        load_settings()


def test_secrets_are_hidden_from_repr_and_describe() -> None:
    settings = Settings(brave_api_key="brave-very-secret", gemini_api_key="gemini-very-secret")
    for text in (repr(settings), str(settings), json.dumps(settings.describe(), default=str)):
        assert "brave-very-secret" not in text
        assert "gemini-very-secret" not in text
    shown = settings.describe()
    assert shown["brave_api_key"] == "set"
    assert shown["google_api_key"] == "missing"


def test_deployed_keys_come_from_the_secret(
    monkeypatch: pytest.MonkeyPatch, sm_client: Any, stub: Stubber
) -> None:
    # Given a deployment that names its secret, and no keys in the environment
    monkeypatch.setenv("VD_PROVIDER_SECRET_ARN", ARN)
    stub.add_response(
        "get_secret_value",
        secret_answer(
            {"brave_api_key": "b-from-secret", "VD_GEMINI_API_KEY": "g-from-secret", "unrelated": "x"}
        ),
        {"SecretId": ARN},
    )
    # When settings load
    settings = load_settings(secrets=SecretsManagerSecrets(sm_client))
    # Then the keys are filled from the secret
    assert settings.provider_secret_arn == ARN
    assert settings.brave_api_key is not None and settings.brave_api_key.get_secret_value() == "b-from-secret"
    assert (
        settings.gemini_api_key is not None and settings.gemini_api_key.get_secret_value() == "g-from-secret"
    )


def test_the_environment_wins_over_the_secret(
    monkeypatch: pytest.MonkeyPatch, sm_client: Any, stub: Stubber
) -> None:
    monkeypatch.setenv("VD_PROVIDER_SECRET_ARN", ARN)
    monkeypatch.setenv("VD_BRAVE_API_KEY", "operator-override")
    stub.add_response(
        "get_secret_value", secret_answer({"brave_api_key": "b-from-secret"}), {"SecretId": ARN}
    )
    settings = load_settings(secrets=SecretsManagerSecrets(sm_client))
    assert (
        settings.brave_api_key is not None
        and settings.brave_api_key.get_secret_value() == "operator-override"
    )


def test_the_secret_is_cached_by_a_warm_container(sm_client: Any, stub: Stubber) -> None:
    # Given one stubbed answer only
    stub.add_response("get_secret_value", secret_answer({"brave_api_key": "b"}), {"SecretId": ARN})
    store = SecretsManagerSecrets(sm_client, max_age=300)
    # When read twice within the TTL: one call (a second would fail the stubber)
    assert store.get(ARN) == store.get(ARN) == {"brave_api_key": "b"}
    stub.assert_no_pending_responses()


def test_a_secret_past_its_max_age_is_read_again(sm_client: Any, stub: Stubber) -> None:
    # Given a secret rotated between two reads, each kept for no time at all
    stub.add_response("get_secret_value", secret_answer({"brave_api_key": "b"}), {"SecretId": ARN})
    stub.add_response("get_secret_value", secret_answer({"brave_api_key": "rotated"}), {"SecretId": ARN})
    store = SecretsManagerSecrets(sm_client)
    assert store.get(ARN, max_age=0) == {"brave_api_key": "b"}
    time.sleep(0.01)
    # Then the second read asks again and sees the rotation
    assert store.get(ARN, max_age=0) == {"brave_api_key": "rotated"}


@pytest.mark.parametrize("value", ["not json", '["a list"]'])
def test_a_secret_that_is_not_a_json_object_is_a_configuration_error(
    sm_client: Any, stub: Stubber, value: str
) -> None:
    stub.add_response("get_secret_value", secret_answer(value), {"SecretId": ARN})
    with pytest.raises(ConfigurationError, match="JSON object"):
        SecretsManagerSecrets(sm_client).get(ARN)


@pytest.mark.parametrize("code", ["AccessDeniedException", "ResourceNotFoundException"])
def test_an_unreadable_secret_is_a_configuration_error(sm_client: Any, stub: Stubber, code: str) -> None:
    stub.add_client_error("get_secret_value", service_error_code=code, http_status_code=400)
    with pytest.raises(ConfigurationError, match=code):
        SecretsManagerSecrets(sm_client).get(ARN)


def test_every_variable_is_named_from_its_field_once() -> None:
    assert Settings.env_name("search_engine") == ENV_SEARCH_ENGINE
    assert Settings.env_name("planner") == ENV_PLANNER
    assert Settings.env_name("bedrock_model_id") == ENV_BEDROCK_MODEL_ID
    assert Settings.env_name("provider_secret_arn") == ENV_PROVIDER_SECRET_ARN
    assert Settings.env_name("client_tokens_secret_arn") == ENV_CLIENT_TOKENS_SECRET_ARN


def test_a_lambdas_environment_is_read_as_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VD_SEARCH_ENGINE", raising=False)
    environ = {"VD_SEARCH_ENGINE": "google", "VD_PLANNER": "bedrock", "VD_TABLE_NAME": "runs", "HOME": "/"}
    settings = load_settings(environ=environ)
    assert (settings.search_engine, settings.planner) == ("google", "bedrock")


def test_what_is_missing_is_named_by_variable() -> None:
    assert Settings().missing_for_search() == ["VD_BRAVE_API_KEY"]
    assert Settings(search_engine="google", google_api_key="k").missing_for_search() == ["VD_GOOGLE_CX"]
    assert Settings().missing_for_planner() == ["VD_GEMINI_API_KEY"]
    assert Settings().missing_for_planner("bedrock") == []
    assert Settings().missing_for_planner("openai") == ["VD_OPENAI_BASE_URL", "VD_OPENAI_MODEL"]
    # the key is optional: most self-hosted servers take none
    assert (
        Settings(openai_base_url="http://10.0.0.5:11434/v1", openai_model="llama3.1").missing_for_planner(
            "openai"
        )
        == []
    )


def test_an_openai_compatible_planner_is_configured_by_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VD_PLANNER", "openai")
    monkeypatch.setenv("VD_OPENAI_BASE_URL", " http://10.0.0.5:8000/v1 ")
    monkeypatch.setenv("VD_OPENAI_MODEL", "Qwen/Qwen2.5-7B-Instruct")
    monkeypatch.setenv("VD_OPENAI_API_KEY", "vllm-key")
    monkeypatch.setenv("VD_OPENAI_RESPONSE_FORMAT", "json_object")
    settings = load_settings()
    assert settings.planner == "openai"
    assert settings.openai_base_url == "http://10.0.0.5:8000/v1"
    assert settings.openai_model == "Qwen/Qwen2.5-7B-Instruct"
    assert settings.openai_api_key is not None and settings.openai_api_key.get_secret_value() == "vllm-key"
    assert settings.openai_response_format == "json_object"
    assert "vllm-key" in settings.secret_values()
    assert settings.describe()["openai_api_key"] == "set"


@pytest.mark.parametrize(
    ("name", "value", "field"),
    [
        ("VD_OPENAI_BASE_URL", "localhost:11434/v1", "openai_base_url"),
        ("VD_OPENAI_RESPONSE_FORMAT", "grammar", "openai_response_format"),
        ("VD_PLANNER", "ollama", "planner"),
    ],
)
def test_bad_openai_settings_are_configuration_errors(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, field: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=field):
        load_settings()


def test_a_self_hosted_planner_is_deployed_through_the_same_secret(
    monkeypatch: pytest.MonkeyPatch, sm_client: Any, stub: Stubber
) -> None:
    # Given the provider secret holding the server's address, model and key
    monkeypatch.setenv("VD_PROVIDER_SECRET_ARN", ARN)
    monkeypatch.setenv("VD_PLANNER", "openai")
    values = {
        "brave_api_key": "b",
        "openai_base_url": "http://10.0.0.5:8000/v1",
        "openai_model": "llama3.1:8b",
        "openai_api_key": "o-from-secret",
    }
    stub.add_response("get_secret_value", secret_answer(values), {"SecretId": ARN})
    # When settings load
    settings = load_settings(secrets=SecretsManagerSecrets(sm_client))
    # Then the planner is configured from it: address and model as plain settings, the key secret
    assert settings.missing_for_planner() == []
    assert (settings.openai_base_url, settings.openai_model) == ("http://10.0.0.5:8000/v1", "llama3.1:8b")
    assert settings.openai_api_key is not None
    assert settings.openai_api_key.get_secret_value() == "o-from-secret"
    assert settings.secret_values() == ["b", "o-from-secret"]


def test_a_bad_base_url_in_the_secret_is_a_configuration_error_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, sm_client: Any, stub: Stubber
) -> None:
    monkeypatch.setenv("VD_PROVIDER_SECRET_ARN", ARN)
    stub.add_response(
        "get_secret_value", secret_answer({"openai_base_url": "gpu-box:8000/v1?token=zzz"}), {"SecretId": ARN}
    )
    with pytest.raises(ConfigurationError, match="openai_base_url is not an http") as caught:
        load_settings(secrets=SecretsManagerSecrets(sm_client))
    assert "zzz" not in str(caught.value)


def test_secret_values_lists_the_keys_that_are_set() -> None:
    assert Settings(brave_api_key="b", gemini_api_key="g", google_cx="cx").secret_values() == ["b", "g"]


def test_the_old_name_for_either_secret_is_refused_with_the_new_ones() -> None:
    # Given an environment that still names a secret the way it used to (one name for two secrets)
    environ = {"VD_SECRET_ARN": ARN}
    # Then loading settings says which variable to use now, for either secret
    with pytest.raises(ConfigurationError, match=r"VD_PROVIDER_SECRET_ARN.*VD_CLIENT_TOKENS_SECRET_ARN"):
        load_settings(environ=environ)


def test_a_lambdas_environment_names_its_two_secrets_apart() -> None:
    environ = {"VD_PROVIDER_SECRET_ARN": "arn:provider", "VD_CLIENT_TOKENS_SECRET_ARN": "arn:tokens"}
    settings = load_settings(environ=environ)
    assert (settings.provider_secret_arn, settings.require_client_tokens()) == ("arn:provider", "arn:tokens")
