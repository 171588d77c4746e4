"""The CDK app, synthesized once per test session and cached (a synth costs seconds).

Synthesis uses cdk.json's context (what `cdk synth` would use) with bundling skipped, so it needs
neither Docker nor the network: the dependency layer is its stub folder. cdk-nag runs as part of
it; its findings are kept in `Synthesis.validation_report` rather than raised, so the nag test can
name them and every other test can still read the template.

Tests that need the run-memory table in moto build it from here, so they cannot drift from infra:

    client.create_table(TableName=name, **run_table_definition())
    client.update_time_to_live(TableName=name, TimeToLiveSpecification=run_table_ttl())
"""

from __future__ import annotations

import atexit
import copy
import functools
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SKIP_BUNDLING: dict[str, list[str]] = {"aws:cdk:bundling-stacks": []}
VALIDATION_REPORT = "validation-report.json"


@dataclass(frozen=True)
class Synthesis:
    template: dict[str, Any]
    outdir: Path
    stack_name: str
    validation_report: dict[str, Any]


def cdk_context(**overrides: Any) -> dict[str, Any]:
    """cdk.json's context, bundling skipped, then `overrides` (context keys, camelCase)."""
    context = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["context"]
    return {**context, **SKIP_BUNDLING, **overrides}


@functools.cache
def _synthesize(overrides_json: str) -> Synthesis:
    # jsii prints a banner per process when node is past its end of life; it is noise here.
    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20,22")
    from infra.app import build_app  # imported late: loading aws_cdk starts a node process

    outdir = Path(tempfile.mkdtemp(prefix="vd-cdk-"))
    atexit.register(shutil.rmtree, outdir, ignore_errors=True)
    app, stack = build_app(cdk_context(**json.loads(overrides_json)), outdir=str(outdir))
    try:
        app.synth()
    except RuntimeError as exc:  # unacknowledged cdk-nag findings; the report says which
        if "ValidationFailed" not in str(exc):
            raise
    template_file = outdir / f"{stack.artifact_id}.template.json"
    report_file = outdir / VALIDATION_REPORT
    return Synthesis(
        template=json.loads(template_file.read_text(encoding="utf-8")),
        outdir=outdir,
        stack_name=stack.stack_name,
        validation_report=json.loads(report_file.read_text(encoding="utf-8")) if report_file.exists() else {},
    )


def synthesis(**overrides: Any) -> Synthesis:
    """The cached synthesis for these context overrides (none: exactly cdk.json's context)."""
    return _synthesize(json.dumps(overrides, sort_keys=True))


def synthesized_template(**overrides: Any) -> dict[str, Any]:
    """A copy of the template (tests may not change the cached one)."""
    return copy.deepcopy(synthesis(**overrides).template)


def _run_table() -> dict[str, Any]:
    tables = [r for r in synthesis().template["Resources"].values() if r["Type"] == "AWS::DynamoDB::Table"]
    if len(tables) != 1:
        raise AssertionError(f"expected one DynamoDB table in the template, found {len(tables)}")
    return tables[0]["Properties"]


def run_table_definition() -> dict[str, Any]:
    """create_table's keyword arguments: KeySchema, AttributeDefinitions, GlobalSecondaryIndexes and
    BillingMode, as the template declares them."""
    properties = _run_table()
    keys = ("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "BillingMode")
    return copy.deepcopy({key: properties[key] for key in keys if key in properties})


def run_table_ttl() -> dict[str, Any]:
    """update_time_to_live's TimeToLiveSpecification: {"Enabled": True, "AttributeName": ...}."""
    return copy.deepcopy(_run_table()["TimeToLiveSpecification"])
