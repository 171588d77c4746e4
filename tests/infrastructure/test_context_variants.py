"""The context knobs change the template as documented (one more cached synthesis)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.constructs.functions import Need, handler_table
from tests.infrastructure.queries import (
    as_list,
    function_for,
    referenced_ids,
    render,
    resources,
    role_of_function,
    statements_of_role,
    statements_with_action,
)
from tests.support.cdk_template import Synthesis, synthesis
from visual_degrees.config import Settings
from visual_degrees.constants import (
    ENV_CLIENT_RATE_SHARE,
    ENV_LLM_RPS,
    ENV_RECOGNITION_RPS,
    ENV_RUN_CEILINGS,
    ENV_SEARCH_RPS,
)

pytestmark = pytest.mark.cdk

VARIANT = {
    "removalPolicy": "retain",
    "reservedConcurrency": "true",
    "accountConcurrencyQuota": "1000",
    "alarmEmail": "ops@example.com",
    "planner": "bedrock",
    "bedrockModelId": "eu.amazon.nova-lite-v1:0",
    "bundleLayer": False,
    "region": "eu-west-1",
    "runCeilings": '{"maxHops": 6, "budgets": {"searches": 40, "runtimeSeconds": 300}}',
    "searchRps": "3",
    "recognitionRps": "10",
    "clientRateShare": "0.5",
}


@pytest.fixture(scope="module")
def variant() -> Synthesis:
    return synthesis(**VARIANT)


def test_retain_keeps_the_table_secrets_and_logs(variant: Synthesis) -> None:
    for type_name in ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret", "AWS::Logs::LogGroup"):
        for lid, resource in resources(variant.template, type_name).items():
            assert resource["DeletionPolicy"] == "Retain", lid


def test_reservations_on_give_each_function_its_profiles_share(variant: Synthesis) -> None:
    for spec in handler_table():
        _, function = function_for(variant.template, spec.module)
        assert function["ReservedConcurrentExecutions"] == spec.sizing.reserved_concurrency, spec.module


def test_an_alarm_email_subscribes_to_the_alarm_topic(variant: Synthesis) -> None:
    (subscription,) = resources(variant.template, "AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == VARIANT["alarmEmail"]


def test_bedrock_planner_may_invoke_its_inference_profile_and_the_model_only_through_it(
    variant: Synthesis,
) -> None:
    # Given a cross-region inference profile as the model id (eu.: Bedrock routes to EU regions)
    profile = "arn:aws:bedrock:eu-west-1:<AWS::AccountId>:inference-profile/eu.amazon.nova-lite-v1:0"
    for spec in handler_table():
        _, function = function_for(variant.template, spec.module)
        grants = statements_with_action(
            statements_of_role(variant.template, role_of_function(function)), "bedrock:InvokeModel"
        )
        env = function["Environment"]["Variables"]
        if Need.PLAN in spec.needs:
            # Then the planning step may invoke the profile in its region and account
            by_condition = {"Condition" in s: s for s in grants}
            assert len(grants) == len(by_condition) == 2
            (resource,) = as_list(by_condition[False]["Resource"])
            assert render(resource) == profile
            # and the foundation model in whichever region the profile routes to, through it alone
            through = by_condition[True]
            (resource,) = as_list(through["Resource"])
            assert render(resource) == "arn:aws:bedrock:*::foundation-model/amazon.nova-lite-v1:0"
            (key, value), *others = through["Condition"]["StringEquals"].items()
            assert (key, render(value), others) == ("bedrock:InferenceProfileArn", profile, [])
            assert set(through["Condition"]) == {"StringEquals"}
            assert (env["VD_PLANNER"], env["VD_BEDROCK_MODEL_ID"]) == ("bedrock", "eu.amazon.nova-lite-v1:0")
        else:
            assert grants == [], spec.module


def test_the_stub_layer_never_shares_an_asset_with_the_built_layer(
    variant: Synthesis, synth: Synthesis
) -> None:
    # A shared S3 key would let a deploy re-use a stub uploaded earlier under it.
    def layer_key(s: Synthesis) -> str:
        (layer,) = resources(s.template, "AWS::Lambda::LayerVersion").values()
        return layer["Properties"]["Content"]["S3Key"]

    assert layer_key(variant) != layer_key(synth)


def _evaluate(condition: Any, parameters: dict[str, str]) -> Any:
    """A CloudFormation rule condition, for the functions the stub-layer rule uses."""
    if isinstance(condition, dict) and set(condition) == {"Ref"}:
        return parameters[condition["Ref"]]
    if isinstance(condition, dict) and set(condition) == {"Fn::Not"}:
        (inner,) = condition["Fn::Not"]
        return not _evaluate(inner, parameters)
    if isinstance(condition, dict) and set(condition) == {"Fn::Equals"}:
        left, right = condition["Fn::Equals"]
        return _evaluate(left, parameters) == _evaluate(right, parameters)
    assert isinstance(condition, str), f"not a rule function this test knows: {condition}"
    return condition


def test_a_template_with_the_stub_layer_refuses_every_deployment(
    variant: Synthesis, synth: Synthesis
) -> None:
    # Given bundleLayer=false: the rule CloudFormation checks before it creates or updates anything
    rules = {name: r for name, r in variant.template["Rules"].items() if name != "CheckBootstrapVersion"}
    (rule,) = rules.values()
    assert "RuleCondition" not in rule  # it applies to every create and update
    (assertion,) = rule["Assertions"]
    (parameter,) = referenced_ids(assertion["Assert"])
    declared = variant.template["Parameters"][parameter]

    # Then no value the parameter accepts satisfies the assertion, its default included
    assert declared["Default"] in declared["AllowedValues"]
    for value in declared["AllowedValues"]:
        assert _evaluate(assertion["Assert"], {parameter: value}) is False
    # and the refusal says why and what to do instead
    assert "bundleLayer=false" in assertion["AssertDescription"]
    assert "cdk deploy (without -c bundleLayer=false)" in assertion["AssertDescription"]
    # while a template with the built layer has CDK's own rule only, and no such parameter
    assert set(synth.template["Rules"]) == {"CheckBootstrapVersion"}
    assert parameter not in synth.template["Parameters"]


def test_acknowledgments_still_match_when_the_region_is_fixed(variant: Synthesis) -> None:
    # A fixed region turns <AWS::Region> into a literal inside the wildcard findings cdk-nag reports.
    violations = [v for p in variant.validation_report.get("pluginReports", []) for v in p["violations"]]
    assert [v["ruleName"] for v in violations if v["ruleName"].startswith("AwsSolutions")] == []


def test_the_operators_ceilings_reach_the_start_run_function_only(variant: Synthesis) -> None:
    for spec in handler_table():
        env = function_for(variant.template, spec.module)[1]["Environment"]["Variables"]
        if Need.START_RUN in spec.needs:
            ceilings = json.loads(env[ENV_RUN_CEILINGS])
            assert ceilings["maxHops"] == 6 and ceilings["imagesPerSearch"] == 20
            assert ceilings["budgets"] == {
                "searches": 40,
                "recognitions": 600,
                "llmCalls": 60,
                "runtimeSeconds": 300.0,
            }
        else:
            assert ENV_RUN_CEILINGS not in env, spec.module


PACING = (ENV_SEARCH_RPS, ENV_RECOGNITION_RPS, ENV_LLM_RPS, ENV_CLIENT_RATE_SHARE)


def test_pacing_rates_reach_every_function_that_calls_a_provider(variant: Synthesis) -> None:
    # Given -c searchRps=3 -c recognitionRps=10 -c clientRateShare=0.5 (llmRps left unset)
    for spec in handler_table():
        env = function_for(variant.template, spec.module)[1]["Environment"]["Variables"]
        if Need.PROVIDER_KEYS in spec.needs:
            # Then every function that calls providers paces at them, in the runtime's own variables
            assert {name: env.get(name) for name in PACING} == {
                ENV_SEARCH_RPS: "3",
                ENV_RECOGNITION_RPS: "10",
                ENV_LLM_RPS: None,  # unset: the provider's documented default, decided at runtime
                ENV_CLIENT_RATE_SHARE: "0.5",
            }
        else:
            assert not set(PACING) & set(env), spec.module


def test_the_pacing_variables_are_the_ones_the_runtime_reads() -> None:
    fields = ("search_rps", "recognition_rps", "llm_rps", "client_rate_share")
    assert tuple(Settings.env_name(field) for field in fields) == PACING
