"""The function environment the CDK app sets, read at first use with errors that name the variable;
and the client-token check the authorizer makes."""

from __future__ import annotations

import pytest

from visual_degrees.domain.errors import ConfigurationError
from visual_degrees.handlers.wiring import AwsRuntime
from visual_degrees.handlers.ws_authorizer import access_policy
from visual_degrees.lifecycle.client_tokens import MAX_TOKEN_LENGTH, identify
from visual_degrees.settings import load_settings


def test_the_environment_carries_run_defaults_and_the_cap():
    env = load_settings(
        environ={
            "VD_TABLE_NAME": "t",
            "VD_RUN_DEFAULTS": '{"maxHops": 4, "budgets": {"searches": 10}}',
            "VD_MAX_ACTIVE_RUNS_PER_CLIENT": "3",
            "PATH": "/usr/bin",
        }
    )
    assert env.require_table() == "t" and env.max_active_runs_per_client == 3
    assert (env.run_defaults.max_hops, env.run_defaults.budgets.searches) == (4, 10)


def test_the_share_spent_on_a_shorter_chain_is_a_run_default_of_its_own_variable_or_of_the_json():
    # Given the share set alone, and in the run defaults' JSON
    alone = load_settings(environ={"VD_RUN_DEFAULTS": '{"maxHops": 4}', "VD_SHORTEN_SHARE": "0.1"})
    in_json = load_settings(environ={"VD_RUN_DEFAULTS": '{"budgets": {"shortenShare": 0}}'})
    # Then runs start from it, the rest of the defaults as they were; unset, a quarter
    assert (alone.run_defaults.budgets.shorten_share, alone.run_defaults.max_hops) == (0.1, 4)
    assert in_json.run_defaults.budgets.shorten_share == 0
    assert load_settings(environ={}).run_defaults.budgets.shorten_share == 0.25


def test_the_environment_carries_the_operators_ceilings_and_defaults_them():
    env = load_settings(environ={"VD_RUN_CEILINGS": '{"maxHops": 6, "budgets": {"searches": 40}}'})
    assert (env.run_ceilings.max_hops, env.run_ceilings.budgets.searches) == (6, 40)
    assert env.run_ceilings.budgets.recognitions == 600  # unset: five times the default budget
    assert load_settings(environ={}).run_ceilings.budgets.searches == 100


@pytest.mark.parametrize(
    ("environ", "named"),
    [
        ({"VD_RUN_DEFAULTS": "{not json"}, "VD_RUN_DEFAULTS"),
        ({"VD_RUN_DEFAULTS": '{"maxHops": 0}'}, "VD_RUN_DEFAULTS"),
        ({"VD_MAX_ACTIVE_RUNS_PER_CLIENT": "0"}, "VD_MAX_ACTIVE_RUNS_PER_CLIENT"),
        ({"VD_SHORTEN_SHARE": "2"}, "VD_SHORTEN_SHARE"),
        ({"VD_RUN_CEILINGS": '{"budgets": {"searches": "many"}}'}, "VD_RUN_CEILINGS"),
        ({"VD_RUN_CEILINGS": '{"budgets": {"searches": 10}}'}, "VD_RUN_DEFAULTS exceed VD_RUN_CEILINGS"),
    ],
)
def test_a_bad_variable_is_a_configuration_error_naming_it(environ, named):
    with pytest.raises(ConfigurationError, match=named):
        load_settings(environ=environ)


def test_nothing_is_built_until_used_and_a_missing_grant_says_which():
    runtime = AwsRuntime({})  # no variables at all: constructing costs nothing and touches nothing
    with pytest.raises(ConfigurationError, match="VD_TABLE_NAME"):
        _ = runtime.memory
    with pytest.raises(ConfigurationError, match="VD_STATE_MACHINE_ARN"):
        runtime.executions.execution_arn("r1")
    with pytest.raises(ConfigurationError, match="VD_CLIENT_TOKENS_SECRET_ARN"):
        runtime.identify_client("token")


def test_execution_arns_follow_from_the_state_machine_arn():
    runtime = AwsRuntime(
        {"VD_STATE_MACHINE_ARN": "arn:aws:states:eu-west-1:123456789012:stateMachine:VD-Workflow"}
    )
    assert runtime.executions.execution_arn("20261201T100000-abc123") == (
        "arn:aws:states:eu-west-1:123456789012:execution:VD-Workflow:20261201T100000-abc123"
    )


TOKENS = {"alice": "a" * 40, "bob": "b" * 40, "blank": "", "space": "   "}


@pytest.mark.parametrize(
    ("token", "client"),
    [
        ("a" * 40, "alice"),
        ("b" * 40, "bob"),
        ("a" * 39, None),
        ("a" * 41, None),
        ("", None),
        ("   ", None),
        (None, None),
        ("a" * (MAX_TOKEN_LENGTH + 1), None),
    ],
)
def test_a_token_identifies_exactly_its_client(token, client):
    assert identify(token, TOKENS) == client


def test_allow_and_deny_policies_have_api_gateways_shape():
    arn = "arn:aws:execute-api:us-east-1:123456789012:abc123/live/$connect"
    allow, deny = access_policy(arn, "alice"), access_policy(arn, None)
    assert allow["principalId"] == "alice" and allow["context"] == {"clientId": "alice"}
    assert allow["policyDocument"]["Statement"] == [
        {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": arn}
    ]
    assert deny["policyDocument"]["Statement"][0]["Effect"] == "Deny" and "context" not in deny
