"""cfn-lint over the synthesized template: no error, and no warning outside a justified list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint

pytestmark = pytest.mark.cdk

# Warnings CDK's own output triggers, and why they are harmless.
ACCEPTED_WARNINGS = {
    "W3005": "CDK adds an explicit DependsOn on a function's role (and policy) beside the GetAtt it "
    "already has, so the role's policy exists before the first invocation; redundant, not wrong.",
}


def test_the_template_passes_cfn_lint(raw: dict[str, Any]) -> None:
    # Given the template / When linting it for a region that has every service it uses
    matches = lint(json.dumps(raw), config=ManualArgs(regions=["us-east-1"]))

    # Then there is nothing but the accepted warnings
    problems = [f"{m.rule.id} {m.message}" for m in matches if m.rule.id not in ACCEPTED_WARNINGS]
    assert problems == []
    assert all(m.rule.id.startswith("W") for m in matches)
