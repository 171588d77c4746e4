"""cdk-nag's AwsSolutions pack: no unacknowledged finding, and a written reason for each acknowledgment."""

from __future__ import annotations

from typing import Any

import pytest

from infra.nag import MIN_REASON_LENGTH, acknowledge, add_checks
from tests.support.cdk_template import Synthesis

pytestmark = pytest.mark.cdk


def _findings(report: dict[str, Any]) -> list[str]:
    return [
        f"{violation['ruleName']} at {construct['constructPath']}"
        for plugin in report.get("pluginReports", [])
        for violation in plugin["violations"]
        for construct in violation["violatingConstructs"]
    ]


def _acknowledgments(template: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (lid, rule["id"], rule["reason"])
        for lid, resource in template["Resources"].items()
        for rule in resource.get("Metadata", {}).get("cdk_nag", {}).get("rules_to_suppress", [])
    ]


def test_the_app_has_no_unacknowledged_finding(synth: Synthesis) -> None:
    assert _findings(synth.validation_report) == []


def test_every_acknowledgment_names_a_rule_and_gives_a_reason(synth: Synthesis) -> None:
    acknowledged = _acknowledgments(synth.template)
    # cdk-nag wrote them into the template, so the checks did run over this stack
    assert acknowledged
    for lid, rule, reason in acknowledged:
        assert rule.startswith("AwsSolutions-"), lid
        assert len(reason) >= MIN_REASON_LENGTH, f"{lid} {rule}: {reason!r}"


def test_the_checks_would_catch_an_unacknowledged_wildcard(tmp_path: Any) -> None:
    # Given a throwaway app with the same checks and a role that may do anything to any queue
    from aws_cdk import App, Stack
    from aws_cdk import aws_iam as iam

    app = App(outdir=str(tmp_path))
    role = iam.Role(Stack(app, "Probe"), "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    role.add_to_policy(iam.PolicyStatement(actions=["sqs:*"], resources=["*"]))
    add_checks(app)

    # When synthesizing / Then the validation fails naming the wildcard
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        app.synth()
    assert "AwsSolutions-IAM5" in (tmp_path / "validation-report.json").read_text(encoding="utf-8")


def test_an_acknowledgment_without_a_real_reason_is_refused() -> None:
    with pytest.raises(ValueError, match="reason"):
        acknowledge("AwsSolutions-IAM5", "because")
