"""cdk-nag: the AwsSolutions pack runs on every synth; a finding is either fixed or acknowledged here.

cdk-nag 3 reports through CDK's policy validation: an unacknowledged finding fails `app.synth()`
(and `cdk synth`) and lands in the cloud assembly's validation-report.json. Acknowledgments are
written into the template's metadata too, so reviewers (and the tests) can read every reason.
"""

from __future__ import annotations

import json
from typing import Any

from aws_cdk import Acknowledgment, App, Stack, Validations
from aws_cdk.aws_iam import IGrantable
from cdk_nag import AwsSolutionsChecks
from constructs import Construct, IConstruct

MIN_REASON_LENGTH = 40


def acknowledge(rule: str, reason: str) -> Acknowledgment:
    """An acknowledgment with a real reason (a short one is a placeholder, refused at synth)."""
    if len(reason.strip()) < MIN_REASON_LENGTH:
        raise ValueError(f"acknowledging {rule} needs a reason of at least {MIN_REASON_LENGTH} characters")
    return Acknowledgment(id=rule, reason=reason.strip())


def _render(part: Any) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict) and set(part) == {"Ref"}:
        return f"<{part['Ref']}>"
    if isinstance(part, dict) and set(part) == {"Fn::GetAtt"}:
        return "<{}.{}>".format(*part["Fn::GetAtt"])
    if isinstance(part, dict) and set(part) == {"Fn::Join"}:
        separator, parts = part["Fn::Join"]
        return str(separator).join(_render(p) for p in parts)
    return json.dumps(part, separators=(",", ":"))


def wildcard_finding(scope: IConstruct, resource_arn: str) -> str:
    """The IAM5 finding id cdk-nag reports for a wildcard resource, however the stack's env resolves."""
    return f"AwsSolutions-IAM5[Resource::{_render(Stack.of(scope).resolve(resource_arn))}]"


def add_checks(app: App) -> None:
    Validations.of(app).add_plugins(
        AwsSolutionsChecks(app, verbose=True, write_suppressions_to_cloud_formation=True)
    )


def acknowledge_wildcard(grantee: IGrantable, resource_arn: str, reason: str) -> None:
    """Acknowledge the wildcard `resource_arn` on the policy of `grantee` (a function: its role)."""
    target = getattr(grantee, "role", None) or grantee
    if not isinstance(target, Construct):
        raise TypeError(f"cannot acknowledge a finding on {grantee!r}: not a construct")
    Validations.of(target).acknowledge(acknowledge(wildcard_finding(target, resource_arn), reason))
