"""The CDK app, synthesized once per test session and cached (a synth costs seconds).

Synthesis uses cdk.json's context (what `cdk synth` would use) with bundling skipped, so it needs
neither Docker nor the network: the dependency layer is its stub folder. cdk-nag runs as part of
it; its findings are kept in `Synthesis.validation_report` rather than raised, so the nag test can
name them and every other test can still read the template.

Tests that need the run-memory table in moto build it from here, so they cannot drift from infra:

    client.create_table(TableName=name, **run_table_definition())
    client.update_time_to_live(TableName=name, TimeToLiveSpecification=run_table_ttl())

The table's properties are also kept on disk, keyed by a hash of everything synthesis reads (infra/,
the runtime package's code, the state machine, cdk.json, the aws-cdk-lib version), so a test session
that only needs the table skips the synth unless one of those changed. Whichever process synthesizes
the app first writes them, under a file lock that the others wait on: parallel workers synthesize
once between them, not once each.
"""

from __future__ import annotations

import atexit
import copy
import fcntl
import functools
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
SKIP_BUNDLING: dict[str, list[str]] = {"aws:cdk:bundling-stacks": []}
DEFAULT_APP = json.dumps({})  # the overrides of cdk.json's own context: none
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
    template = json.loads(template_file.read_text(encoding="utf-8"))
    if overrides_json == DEFAULT_APP:
        for name, extract in DERIVED.items():
            _store(name, extract(template))
    return Synthesis(
        template=template,
        outdir=outdir,
        stack_name=stack.stack_name,
        validation_report=json.loads(report_file.read_text(encoding="utf-8")) if report_file.exists() else {},
    )


def synthesis(**overrides: Any) -> Synthesis:
    """The cached synthesis for these context overrides (none: exactly cdk.json's context)."""
    if overrides:
        return _synthesize(json.dumps(overrides, sort_keys=True))
    with _default_app_lock():
        return _synthesize(DEFAULT_APP)


def synthesized_template(**overrides: Any) -> dict[str, Any]:
    """A copy of the template (tests may not change the cached one)."""
    return copy.deepcopy(synthesis(**overrides).template)


SYNTH_INPUTS = ("infra", "lambdas/visual_degrees", "statemachine")
TABLE_CACHE = Path(tempfile.gettempdir()) / "visual-degrees-cdk-cache"


def _inputs_fingerprint() -> str:
    digest = hashlib.sha256(version("aws-cdk-lib").encode())
    digest.update(json.dumps(cdk_context(), sort_keys=True).encode())
    for root in SYNTH_INPUTS:
        for path in sorted((REPO_ROOT / root).rglob("*")):
            if path.suffix in {".py", ".json"} and "__pycache__" not in path.parts and path.is_file():
                digest.update(str(path.relative_to(REPO_ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def _cache_file(name: str) -> Path:
    return TABLE_CACHE / f"{name}-{_inputs_fingerprint()}.json"


def _store(name: str, value: Any) -> None:
    cached = _cache_file(name)
    TABLE_CACHE.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(value), encoding="utf-8")
    partial.replace(cached)  # atomic: a concurrent session reads all of it or nothing


@contextmanager
def _default_app_lock() -> Iterator[None]:
    """Held while this process synthesizes the default app, or looks for what that leaves on disk."""
    TABLE_CACHE.mkdir(parents=True, exist_ok=True)
    with (TABLE_CACHE / f"synth-{_inputs_fingerprint()}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


def _cached(name: str) -> Any:
    """A value derived from the default app's template (DERIVED), read from disk; on a miss, this
    process synthesizes the app, which stores them all, unless another process already is: then it
    waits for that one's."""
    cached = _cache_file(name)
    if not cached.is_file():
        with _default_app_lock():
            if not cached.is_file():
                _synthesize(DEFAULT_APP)
    return json.loads(cached.read_text(encoding="utf-8"))


def _table_properties(template: dict[str, Any]) -> dict[str, Any]:
    tables = [
        r
        for lid, r in template["Resources"].items()
        if r["Type"] == "AWS::DynamoDB::Table" and lid.startswith("RunMemory")
    ]
    if len(tables) != 1:
        raise AssertionError(f"expected one run-memory table in the template, found {len(tables)}")
    properties: dict[str, Any] = tables[0]["Properties"]
    return properties


def _environment_names(template: dict[str, Any]) -> dict[str, list[str]]:
    functions = [
        r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"
    ]
    return {
        f["Handler"]: sorted(f.get("Environment", {}).get("Variables", {}))
        for f in functions
        if f.get("Handler", "").startswith("visual_degrees.")
    }


# What tests outside tests/infrastructure read off the default app, by cache name.
DERIVED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "run-table": _table_properties,
    "function-environments": _environment_names,
}


@functools.cache
def _run_table() -> dict[str, Any]:
    properties: dict[str, Any] = _cached("run-table")
    return properties


@functools.cache
def function_environment_names() -> dict[str, list[str]]:
    """Handler (`visual_degrees.handlers.<module>.handler`) -> the environment variable names its
    deployed function has, so handler tests can run with exactly those."""
    names: dict[str, list[str]] = _cached("function-environments")
    return copy.deepcopy(names)


def run_table_definition() -> dict[str, Any]:
    """create_table's keyword arguments: KeySchema, AttributeDefinitions, GlobalSecondaryIndexes and
    BillingMode, as the template declares them."""
    properties = _run_table()
    keys = ("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "BillingMode")
    return copy.deepcopy({key: properties[key] for key in keys if key in properties})


def run_table_ttl() -> dict[str, Any]:
    """update_time_to_live's TimeToLiveSpecification: {"Enabled": True, "AttributeName": ...}."""
    return copy.deepcopy(_run_table()["TimeToLiveSpecification"])
