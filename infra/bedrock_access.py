"""What `bedrock:InvokeModel` the Bedrock planner needs for the configured model id, and no more.

A foundation model id (`amazon.nova-lite-v1:0`, `<provider>.<model>`) runs in the stack's region:
its foundation-model ARN there. A cross-region inference profile id puts a geography before it
(`eu.amazon.nova-lite-v1:0`; `us.`, `apac.`, `global.` and others): the planner invokes the profile
in the stack's region and account, and Bedrock runs the model in whichever region of the profile it
routes the request to. IAM then checks the profile's ARN and the foundation model's ARN in that
destination region (no region at all for a global profile). The destinations are Bedrock's to
change, so the model is granted in any region, but only when invoked through this very profile
(`bedrock:InferenceProfileArn`): on its own that statement lets nothing invoke the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import ArnFormat, Stack
from aws_cdk import aws_iam as iam

INVOKE = "bedrock:InvokeModel"  # Converse is authorised as InvokeModel
PROFILE_CONDITION_KEY = "bedrock:InferenceProfileArn"


@dataclass(frozen=True)
class BedrockModel:
    """A model id split into its geography (a cross-region inference profile's) and its model."""

    geography: str | None
    foundation_model: str

    @classmethod
    def parse(cls, model_id: str) -> BedrockModel:
        parts = model_id.split(":", 1)[0].split(".")
        if len(parts) == 3 and all(parts):
            return cls(geography=parts[0], foundation_model=model_id.split(".", 1)[1])
        if len(parts) == 2 and all(parts):
            return cls(geography=None, foundation_model=model_id)
        raise ValueError(
            f"{model_id!r} is neither a foundation model id (<provider>.<model>, e.g. "
            "amazon.nova-lite-v1:0) nor a cross-region inference profile id (<geography>.<provider>."
            "<model>, e.g. eu.amazon.nova-lite-v1:0)"
        )

    @property
    def model_id(self) -> str:
        return f"{self.geography}.{self.foundation_model}" if self.geography else self.foundation_model


def foundation_model_arn(stack: Stack, model: str, region: str | None = None) -> str:
    return stack.format_arn(
        service="bedrock",
        region=region,
        account="",
        resource="foundation-model",
        resource_name=model,
        arn_format=ArnFormat.SLASH_RESOURCE_NAME,
    )


def inference_profile_arn(stack: Stack, profile_id: str) -> str:
    return stack.format_arn(
        service="bedrock",
        resource="inference-profile",
        resource_name=profile_id,
        arn_format=ArnFormat.SLASH_RESOURCE_NAME,
    )


def invoke_statements(stack: Stack, model: BedrockModel) -> list[iam.PolicyStatement]:
    """The statements that let a function invoke `model`, as the module docstring says."""
    if model.geography is None:
        return [
            iam.PolicyStatement(actions=[INVOKE], resources=[foundation_model_arn(stack, model.model_id)])
        ]
    profile = inference_profile_arn(stack, model.model_id)
    return [
        iam.PolicyStatement(actions=[INVOKE], resources=[profile]),
        iam.PolicyStatement(
            actions=[INVOKE],
            resources=[any_region_model_arn(stack, model)],
            conditions={"StringEquals": {PROFILE_CONDITION_KEY: profile}},
        ),
    ]


def any_region_model_arn(stack: Stack, model: BedrockModel) -> str:
    """The foundation model of a profile in every region it may route to (`*` matches none, too)."""
    return foundation_model_arn(stack, model.foundation_model, region="*")
