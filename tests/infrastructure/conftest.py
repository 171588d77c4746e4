"""One synthesis per session (tests/support/cdk_template caches it); the tests here read it.

Modules that synthesize carry `pytestmark = pytest.mark.cdk`.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

# Before anything imports aws_cdk: jsii's node end-of-life banner is noise in test output.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20,22")

from tests.support.cdk_template import REPO_ROOT, Synthesis, synthesis


@pytest.fixture(scope="session")
def synth() -> Synthesis:
    return synthesis()


@pytest.fixture(scope="session")
def raw(synth: Synthesis) -> dict[str, Any]:
    """The template as plain JSON; read it, never change it."""
    return synth.template


@pytest.fixture(scope="session")
def template(synth: Synthesis) -> Any:
    from aws_cdk.assertions import Template

    return Template.from_json(synth.template)


@pytest.fixture(scope="session")
def context() -> dict[str, Any]:
    """cdk.json's context: the values the template was synthesized with."""
    return json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["context"]
