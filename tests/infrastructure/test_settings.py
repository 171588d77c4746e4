"""Deployment settings: cdk.json's defaults, `-c key=value` strings, clear errors on bad context."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from infra.settings import DeploymentSettings
from tests.support.cdk_template import REPO_ROOT
from visual_degrees.config import Settings
from visual_degrees.domain.errors import ConfigurationError


def _cdk_json_settings() -> dict[str, object]:
    context = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["context"]
    return {k: v for k, v in context.items() if not k.startswith(("@", "aws:"))}


def test_cdk_json_lists_every_setting_with_the_models_default() -> None:
    # Given cdk.json's own keys (not CDK's feature flags)
    listed = _cdk_json_settings()
    known = {field.alias or name for name, field in DeploymentSettings.model_fields.items()}

    # Then it documents every setting, and its values are the defaults the code falls back to
    assert set(listed) == known
    assert DeploymentSettings.from_mapping(listed) == DeploymentSettings()


def test_command_line_strings_are_parsed() -> None:
    # Given values as `cdk synth -c key=value` passes them
    settings = DeploymentSettings.from_mapping(
        {
            "reservedConcurrency": "true",
            "accountConcurrencyQuota": "1000",
            "throttleRateLimit": "5",
            "logRetentionDays": "7",
            "runDefaults": '{"maxHops": 3, "budgets": {"searches": 8}}',
        }
    )

    # Then they arrive typed
    assert settings.reserved_concurrency is True
    assert settings.account_concurrency_quota == 1000
    assert settings.throttle_rate_limit == 5.0
    assert settings.log_retention_days == 7
    assert settings.run_defaults.max_hops == 3
    assert settings.run_defaults.budgets.searches == 8


@pytest.mark.parametrize(
    ("context", "named"),
    [
        ({"searchEngine": "bing"}, "searchEngine"),
        ({"logRetentionDays": 42}, "logRetentionDays"),
        ({"runDefaults": {"maxHops": 99}}, "runDefaults.maxHops"),
        ({"runDefaults": "{not json"}, "runDefaults is not JSON"),
        ({"removalPolicy": "snapshot"}, "removalPolicy"),
        ({"alarmEmail": "not-an-address"}, "alarmEmail"),
        ({"region": "Mars"}, "region"),
        ({"reservedConcurrency": True}, "reservedConcurrency=true needs accountConcurrencyQuota"),
        ({"accountConcurrencyQuota": -1}, "accountConcurrencyQuota"),
        ({"runCeilings": {"budgets": {"searches": "many"}}}, "runCeilings.budgets.searches"),
        ({"runCeilings": "{not json"}, "runCeilings is not JSON"),
        ({"runCeilings": {"budgets": {"searches": 10}}}, "runDefaults exceed runCeilings"),
        (
            {"runCeilings": {"budgets": {"runtimeSeconds": 3600}}, "executionTimeoutMinutes": 30},
            "executionTimeoutMinutes (30) must be at least 65",
        ),
    ],
)
def test_bad_context_is_refused_naming_the_key(context: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigurationError, match="invalid CDK context") as caught:
        DeploymentSettings.from_mapping(context)
    assert named in str(caught.value)


def test_every_planner_the_runtime_knows_can_be_deployed() -> None:
    # The deployment's planner names are the runtime's (config.Settings.planner), no more, no fewer
    runtime_names = set(get_args(Settings.model_fields["planner"].annotation))
    deployable = set(get_args(DeploymentSettings.model_fields["planner"].annotation))
    assert deployable == runtime_names == {"gemini", "bedrock", "openai"}
    assert DeploymentSettings.from_mapping({"planner": "openai"}).planner == "openai"
    with pytest.raises(ConfigurationError, match="planner"):
        DeploymentSettings.from_mapping({"planner": "ollama"})
