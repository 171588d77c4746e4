"""cfn-lint over the synthesized template: no error, and no warning outside a justified list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint

from tests.infrastructure.test_context_variants import VARIANT
from tests.support.cdk_template import synthesis

pytestmark = pytest.mark.cdk

# Warnings CDK's own output triggers, and why they are harmless.
ACCEPTED_WARNINGS = {
    "W3005": "CDK adds an explicit DependsOn on a function's role (and policy) beside the GetAtt it "
    "already has, so the role's policy exists before the first invocation; redundant, not wrong.",
}


@pytest.fixture(params=["cdk.json", "variant"])
def linted(request: pytest.FixtureRequest, raw: dict[str, Any]) -> dict[str, Any]:
    """cdk.json's template, and the one of every context knob turned (a stub layer, a profile, …)."""
    return raw if request.param == "cdk.json" else synthesis(**VARIANT).template


def test_the_template_passes_cfn_lint(linted: dict[str, Any]) -> None:
    # Given the template / When linting it for a region that has every service it uses
    matches = lint(json.dumps(linted), config=ManualArgs(regions=["us-east-1"]))

    # Then there is nothing but the accepted warnings
    problems = [f"{m.rule.id} {m.message}" for m in matches if m.rule.id not in ACCEPTED_WARNINGS]
    assert problems == []
    assert all(m.rule.id.startswith("W") for m in matches)
