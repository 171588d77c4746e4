"""The Bedrock planner's grant, by kind of model id, on a stack of its own (no synthesis of the app)."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any

import pytest

from infra.bedrock_access import BedrockModel, invoke_statements
from infra.settings import DeploymentSettings
from tests.infrastructure.queries import render
from visual_degrees.domain.errors import ConfigurationError

pytestmark = pytest.mark.cdk

ACCOUNT, REGION = "111122223333", "eu-west-1"


def _statements(model_id: str) -> list[dict[str, Any]]:
    from aws_cdk import App, Environment, Stack

    stack = Stack(App(), "Grant", env=Environment(account=ACCOUNT, region=REGION))
    statements = invoke_statements(stack, BedrockModel.parse(model_id))
    return [stack.resolve(statement.to_statement_json()) for statement in statements]


def _allows(statements: list[dict[str, Any]], arn: str, profile: str | None = None) -> bool:
    """IAM's reading of these Allow statements for InvokeModel on `arn` (through `profile`, if any)."""
    for statement in statements:
        resources = (
            statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        )
        if not any(fnmatchcase(arn, render(r).replace("<AWS::Partition>", "aws")) for r in resources):
            continue
        wanted = statement.get("Condition", {}).get("StringEquals", {}).get("bedrock:InferenceProfileArn")
        if wanted is None or (
            profile is not None and render(wanted).replace("<AWS::Partition>", "aws") == profile
        ):
            return True
    return False


def test_a_foundation_model_is_granted_in_the_stacks_region_only() -> None:
    statements = _statements("amazon.nova-lite-v1:0")
    model = "arn:aws:bedrock:{}::foundation-model/amazon.nova-lite-v1:0"
    assert _allows(statements, model.format(REGION))
    assert not _allows(statements, model.format("eu-central-1"))
    assert not _allows(statements, "arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-pro-v1:0")


@pytest.mark.parametrize(
    ("model_id", "destinations"),
    [
        ("eu.amazon.nova-lite-v1:0", ["eu-west-1", "eu-central-1", "eu-west-3", "eu-north-1"]),
        ("us.anthropic.claude-3-5-haiku-20241022-v1:0", ["us-east-1", "us-east-2", "us-west-2"]),
        ("apac.amazon.nova-micro-v1:0", ["ap-southeast-2", "ap-northeast-1"]),
        ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", ["", "us-east-1"]),  # "": a global route
    ],
)
def test_an_inference_profile_is_granted_with_its_model_wherever_it_routes_but_only_through_it(
    model_id: str, destinations: list[str]
) -> None:
    # Given a cross-region inference profile id
    statements = _statements(model_id)
    profile = f"arn:aws:bedrock:{REGION}:{ACCOUNT}:inference-profile/{model_id}"
    model = model_id.split(".", 1)[1]

    # Then the profile itself may be invoked, in the stack's region and account only
    assert _allows(statements, profile)
    assert not _allows(statements, f"arn:aws:bedrock:us-west-2:{ACCOUNT}:inference-profile/{model_id}")
    assert not _allows(statements, f"arn:aws:bedrock:{REGION}:444455556666:inference-profile/{model_id}")
    # and its model in each region it routes to, through this profile
    for region in destinations:
        assert _allows(statements, f"arn:aws:bedrock:{region}::foundation-model/{model}", profile), region
        # but not called directly, nor through another profile
        assert not _allows(statements, f"arn:aws:bedrock:{region}::foundation-model/{model}"), region
        other = profile.replace(f"/{model_id}", f"/other.{model}")
        assert not _allows(statements, f"arn:aws:bedrock:{region}::foundation-model/{model}", other)
    # and no other model at all
    assert not _allows(statements, f"arn:aws:bedrock:{REGION}::foundation-model/amazon.titan-text-express-v1")


@pytest.mark.parametrize("model_id", ["nova", "a.b.c.d:0", "eu..nova:0"])
def test_a_model_id_of_no_known_shape_is_refused_at_synth(model_id: str) -> None:
    with pytest.raises(ConfigurationError, match="bedrockModelId") as caught:
        DeploymentSettings.from_mapping({"bedrockModelId": model_id})
    assert "eu.amazon.nova-lite-v1:0" in str(caught.value)
