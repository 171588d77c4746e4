"""Functions: one per Task state, per WebSocket route and the authorizer, all from one table."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest

from infra.constructs.functions import (
    LAMBDA_UNRESERVED_MINIMUM,
    HandlerSpec,
    Need,
    Role,
    check_reservations,
    handler_table,
)
from infra.constructs.observability import METRICS_NAMESPACE
from infra.settings import DeploymentSettings
from tests.infrastructure.queries import function_for, functions_by_handler, handler_of, resources
from tests.support.cdk_template import REPO_ROOT, Synthesis
from visual_degrees.constants import (
    ENV_SECRET_ARN,
    ENV_STATE_MACHINE_ARN,
    ENV_TABLE_NAME,
    ENV_WEBSOCKET_ENDPOINT,
    EXECUTION_ENDED_HANDLER,
    SERVICE_NAME,
    STATE_TASKS,
    WEBSOCKET_ROUTES,
)
from visual_degrees.domain.errors import ConfigurationError

pytestmark = pytest.mark.cdk

SOURCE = REPO_ROOT / "lambdas"
ASL = json.loads((REPO_ROOT / "statemachine" / "visual_degrees.asl.json").read_text(encoding="utf-8"))
API_GATEWAY_INTEGRATION_TIMEOUT = 29


def _specs() -> list[HandlerSpec]:
    return list(handler_table())


def test_one_function_per_task_state_route_the_authorizer_and_execution_endings(raw: dict[str, Any]) -> None:
    # Given the constants' tasks and routes / When listing the template's functions by handler
    expected = {handler_of(t.step) for t in STATE_TASKS}
    expected |= {handler_of(module) for module in WEBSOCKET_ROUTES.values()}
    expected.add(handler_of("ws_authorizer"))
    expected.add(handler_of(EXECUTION_ENDED_HANDLER))

    # Then each handler runs in exactly one function and there is no other
    assert set(functions_by_handler(raw)) == expected
    assert len(resources(raw, "AWS::Lambda::Function")) == len(expected)


def test_every_function_is_python313_arm64_traced_on_one_code_asset_and_layer(raw: dict[str, Any]) -> None:
    functions = [f["Properties"] for f in resources(raw, "AWS::Lambda::Function").values()]
    (layer_id,) = resources(raw, "AWS::Lambda::LayerVersion")

    assert {f["Runtime"] for f in functions} == {"python3.13"}
    assert {tuple(f["Architectures"]) for f in functions} == {("arm64",)}
    assert {f["TracingConfig"]["Mode"] for f in functions} == {"Active"}
    assert all(f["Layers"] == [{"Ref": layer_id}] for f in functions)
    assert len({f["Code"]["S3Key"] for f in functions}) == 1


def test_the_layer_targets_python313_on_arm64(template: Any) -> None:
    template.has_resource_properties(
        "AWS::Lambda::LayerVersion",
        {"CompatibleRuntimes": ["python3.13"], "CompatibleArchitectures": ["arm64"]},
    )


def test_powertools_is_configured_the_same_everywhere(raw: dict[str, Any]) -> None:
    for lid, function in resources(raw, "AWS::Lambda::Function").items():
        env = function["Properties"]["Environment"]["Variables"]
        assert env["POWERTOOLS_SERVICE_NAME"] == SERVICE_NAME, lid
        assert env["POWERTOOLS_METRICS_NAMESPACE"] == METRICS_NAMESPACE, lid
        assert env["POWERTOOLS_LOGGER_LOG_EVENT"] == "false", lid  # events carry run tokens


def test_step_functions_time_out_before_their_task_state_does(raw: dict[str, Any]) -> None:
    # A Lambda outliving its Task's TimeoutSeconds would be retried while still running.
    for task in STATE_TASKS:
        _, function = function_for(raw, task.step)
        assert function["Timeout"] < ASL["States"][task.state]["TimeoutSeconds"], task.state


def test_route_functions_fit_the_api_gateway_integration_timeout(raw: dict[str, Any]) -> None:
    for spec in _specs():
        if spec.role in (Role.ROUTE, Role.AUTHORIZER):
            _, function = function_for(raw, spec.module)
            assert function["Timeout"] <= API_GATEWAY_INTEGRATION_TIMEOUT, spec.module


def test_memory_follows_the_role_and_recognition_steps_get_the_most(raw: dict[str, Any]) -> None:
    memory = {spec.module: function_for(raw, spec.module)[1]["MemorySize"] for spec in _specs()}
    assert memory == {spec.module: spec.sizing.memory_mb for spec in _specs()}
    recognizing = [spec.module for spec in _specs() if Need.RECOGNIZE in spec.needs]
    others = [spec.module for spec in _specs() if Need.RECOGNIZE not in spec.needs]
    assert recognizing and min(memory[m] for m in recognizing) > max(memory[m] for m in others)


def test_the_default_context_reserves_no_concurrency(raw: dict[str, Any]) -> None:
    # Given cdk.json's context / Then no function reserves any: a reservation needs the account's quota
    # to hold it plus the 100 Lambda keeps unreserved, and a new account's quota may be 10
    functions = resources(raw, "AWS::Lambda::Function").values()
    assert [f for f in functions if "ReservedConcurrentExecutions" in f["Properties"]] == []


def _reserving(quota: int) -> DeploymentSettings:
    return DeploymentSettings.from_mapping(
        {"reservedConcurrency": "true", "accountConcurrencyQuota": str(quota)}
    )


def test_reservations_that_leave_lambda_its_100_unreserved_are_accepted() -> None:
    # Given the reservations of every function of the table
    specs = handler_table()
    total = sum(spec.sizing.reserved_concurrency for spec in specs)
    assert total > 0

    # Then a quota of exactly the total plus 100 is enough
    check_reservations(specs, _reserving(total + LAMBDA_UNRESERVED_MINIMUM))


def test_reservations_over_the_stated_quota_are_refused_naming_the_numbers() -> None:
    # Given a quota one short of the reservations plus Lambda's 100
    specs = handler_table()
    total = sum(spec.sizing.reserved_concurrency for spec in specs)
    quota = total + LAMBDA_UNRESERVED_MINIMUM - 1

    # When checked / Then the error names the total, the 100, the quota needed and the quota stated
    with pytest.raises(ConfigurationError) as caught:
        check_reservations(specs, _reserving(quota))
    message = str(caught.value)
    assert f"reserves {total:,} concurrent executions across {len(specs)} functions" in message
    assert f"keeps {LAMBDA_UNRESERVED_MINIMUM} of the account's quota unreserved" in message
    assert f"at least {total + LAMBDA_UNRESERVED_MINIMUM:,}; accountConcurrencyQuota is {quota:,}" in message
    assert "reservedConcurrency=false" in message


def test_a_new_accounts_quota_cannot_hold_any_reservation() -> None:
    with pytest.raises(ConfigurationError, match="accountConcurrencyQuota is 10"):
        check_reservations(handler_table(), _reserving(10))


def test_reservations_off_need_no_quota() -> None:
    check_reservations(handler_table(), DeploymentSettings())


def test_environment_names_exactly_the_resources_a_function_may_use(raw: dict[str, Any]) -> None:
    secrets = resources(raw, "AWS::SecretsManager::Secret")
    provider_secret = next(lid for lid in secrets if "ProviderKeys" in lid)
    tokens_secret = next(lid for lid in secrets if "ClientTokens" in lid)
    run_needs = {Need.START_RUN, Need.STOP_RUN, Need.DESCRIBE_RUN}

    for spec in _specs():
        env = function_for(raw, spec.module)[1]["Environment"]["Variables"]
        reads_runs = bool(spec.needs & {Need.MEMORY, Need.READ_RUN_ACCESS})
        assert (ENV_TABLE_NAME in env) == reads_runs, spec.module
        assert (ENV_WEBSOCKET_ENDPOINT in env) == (Need.PUSH in spec.needs), spec.module
        assert (ENV_STATE_MACHINE_ARN in env) == bool(spec.needs & run_needs), spec.module
        if Need.PROVIDER_KEYS in spec.needs:
            assert env[ENV_SECRET_ARN] == {"Ref": provider_secret}, spec.module
        elif Need.CLIENT_TOKENS in spec.needs:
            assert env[ENV_SECRET_ARN] == {"Ref": tokens_secret}, spec.module
        else:
            assert ENV_SECRET_ARN not in env, spec.module


def test_no_environment_variable_carries_a_secret(raw: dict[str, Any]) -> None:
    # Names that would hold a key or token are refused; the only secret reference is an ARN.
    secretish = re.compile(r"(API_KEY|TOKEN|PASSWORD|SECRET)(?!_ARN$)")
    for lid, function in resources(raw, "AWS::Lambda::Function").items():
        for name, value in function["Properties"]["Environment"]["Variables"].items():
            assert not secretish.search(name), f"{lid}: {name}"
            assert "resolve:secretsmanager" not in json.dumps(value), f"{lid}: {name}"


def test_each_function_logs_to_its_own_group_with_the_context_retention(
    raw: dict[str, Any], context: dict[str, Any]
) -> None:
    groups = resources(raw, "AWS::Logs::LogGroup")
    seen: set[str] = set()
    for lid, function in resources(raw, "AWS::Lambda::Function").items():
        group = function["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert groups[group]["Properties"]["RetentionInDays"] == context["logRetentionDays"], lid
        seen.add(group)
    assert len(seen) == len(resources(raw, "AWS::Lambda::Function"))


def _code_asset_dir(synth: Synthesis) -> Path:
    (function,) = list(resources(synth.template, "AWS::Lambda::Function").values())[:1]
    key = function["Properties"]["Code"]["S3Key"].removesuffix(".zip")
    manifest = json.loads((synth.outdir / f"{synth.stack_name}.assets.json").read_text(encoding="utf-8"))
    return synth.outdir / manifest["files"][key]["source"]["path"]


def test_the_code_asset_ships_what_the_handlers_run_without_caches(synth: Synthesis) -> None:
    # Given the staged code asset of the functions
    root = _code_asset_dir(synth)
    files = [p.relative_to(root).as_posix() for p in root.rglob("*")]

    # Then it holds the runtime package, no bytecode, caches, egg-info or tests
    assert (root / "visual_degrees" / "constants.py").is_file()
    assert (root / "visual_degrees" / "handlers" / "__init__.py").is_file()
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc") or ".egg-info" in f]
    assert not [f for f in files if "/tests/" in f or f.startswith("tests/")]
    # And every step a Task state runs, with the modules it executes
    for task in STATE_TASKS:
        assert (root / "visual_degrees" / "steps" / f"{task.step}.py").is_file()
        assert (root / "visual_degrees" / "handlers" / f"{task.step}.py").is_file()
    # And nothing else: the tools that run on one machine (engine, server, page, sandbox, bench, CLI)
    # are a package of their own, outside the asset
    assert sorted(p.name for p in root.iterdir()) == ["visual_degrees"]
    # And every import any shipped module makes (at the top or inside a function) resolves in it
    missing = sorted(
        f"{path.relative_to(root)}: {module}"
        for path in root.rglob("*.py")
        for module in _package_imports(path, root)
        if not _resolves(root, module)
    )
    assert not missing, missing


def _package_imports(path: Path, root: Path) -> set[str]:
    """The visual_degrees modules (or names in them) `path` imports, resolved to absolute names."""
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            found.add(base)
            # `from package import module` imports a module; `from module import name` does not
            found |= {f"{base}.{a.name}" for a in node.names if _resolves(SOURCE, f"{base}.{a.name}")}
    return {name for name in found if name.split(".")[0] in {"visual_degrees", "visual_degrees_tools"}}


def _resolves(root: Path, name: str) -> bool:
    path = root.joinpath(*name.split("."))
    return (path / "__init__.py").is_file() or path.with_suffix(".py").is_file()
