"""Secrets: two Secrets Manager secrets, no value in the template, each read only by its users."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constructs.functions import Need, handler_table
from tests.infrastructure.queries import (
    as_list,
    function_for,
    referenced_ids,
    resources,
    role_of_function,
    statements_of_role,
    statements_with_action,
)
from visual_degrees.settings import SECRET_FIELDS

pytestmark = pytest.mark.cdk


def _secret(raw: dict[str, Any], name: str) -> tuple[str, dict[str, Any]]:
    (found,) = [
        (lid, r["Properties"])
        for lid, r in resources(raw, "AWS::SecretsManager::Secret").items()
        if name in lid
    ]
    return found


def test_secrets_are_generated_so_the_template_holds_no_value(raw: dict[str, Any]) -> None:
    secrets = resources(raw, "AWS::SecretsManager::Secret")
    assert len(secrets) == 2
    for lid, secret in secrets.items():
        assert "SecretString" not in secret["Properties"], lid
        assert "GenerateSecretString" in secret["Properties"], lid
    assert "resolve:secretsmanager" not in json.dumps(raw)


def test_provider_secret_documents_the_keys_the_runtime_reads(raw: dict[str, Any]) -> None:
    # The runtime (visual_degrees.settings) fills its settings from these JSON keys.
    _, provider = _secret(raw, "ProviderKeys")
    for key in SECRET_FIELDS:
        assert key in provider["Description"], key


def test_the_generated_template_never_changes(raw: dict[str, Any]) -> None:
    # A changed GenerateSecretString regenerates the secret's value on the next deploy, wiping the
    # keys operators put in: keys added later are read when present, never added to the template.
    _, provider = _secret(raw, "ProviderKeys")
    template_keys = set(json.loads(provider["GenerateSecretString"]["SecretStringTemplate"]))
    assert template_keys == {"brave_api_key", "google_api_key", "google_cx", "gemini_api_key"}


def test_client_tokens_are_long_and_query_string_safe(raw: dict[str, Any]) -> None:
    _, tokens = _secret(raw, "ClientTokens")
    generator = tokens["GenerateSecretString"]
    assert generator["ExcludePunctuation"] is True
    assert generator["PasswordLength"] >= 32
    assert json.loads(generator["SecretStringTemplate"]) == {}


@pytest.mark.parametrize(
    ("secret_name", "need"), [("ProviderKeys", Need.PROVIDER_KEYS), ("ClientTokens", Need.CLIENT_TOKENS)]
)
def test_each_secret_is_readable_only_by_the_functions_that_need_it(
    raw: dict[str, Any], secret_name: str, need: Need
) -> None:
    secret_id, _ = _secret(raw, secret_name)
    for spec in handler_table():
        _, function = function_for(raw, spec.module)
        statements = statements_of_role(raw, role_of_function(function))
        readable = {
            lid
            for s in statements_with_action(statements, "secretsmanager:GetSecretValue")
            for resource in as_list(s["Resource"])
            for lid in referenced_ids(resource)
        }
        assert (secret_id in readable) == (need in spec.needs), spec.module
