"""Figures for the deployed system, measured locally (no AWS account):

1. cold-start import time of a step handler and a route handler (`python -X importtime`), with the
   modules that cost most, and what a searching step imports on its first provider call;
2. sandbox runs driven through the Lambda handlers exactly as Step Functions would invoke them
   (the definition file on the local engine, run memory on moto's DynamoDB built from the synthesized
   template, pushes through moto's management API, sandbox providers): state transitions, Lambda
   invocations, AWS requests by operation, and what a run costs at list price.

    python scripts/aws_figures.py            # both
    python scripts/aws_figures.py --imports  # only the import times
    python scripts/aws_figures.py --runs     # only the runs
    python scripts/aws_figures.py --json     # machine-readable
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from visual_degrees_tools.bench.capacity import (
    DYNAMODB_PER_RRU,
    DYNAMODB_PER_WRU,
    LAMBDA_ARM_PER_GB_SECOND,
    LAMBDA_PER_REQUEST,
    SFN_STANDARD_PER_TRANSITION,
    WEBSOCKET_PER_MESSAGE,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
STEP_MODULE = "visual_degrees.handlers.candidate_discovery"
ORCHESTRATION_MODULE = "visual_degrees.handlers.finalize_success"
ROUTE_MODULE = "visual_degrees.handlers.ws_start_run"
PROVIDERS_MODULE = "visual_degrees.adapters.live.providers"
RUNS = 5


# ---- 1. import times ---------------------------------------------------------------------------


def import_profile(module: str, after: str | None = None) -> dict[str, Any]:
    """One fresh interpreter importing `module` (after `after`, if given, which is not counted)."""
    code = f"import {after}\nimport {module}" if after else f"import {module}"
    # As in Lambda: LAMBDA_TASK_ROOT set, so the Tracer is on and patches botocore at import.
    env = {
        **os.environ,
        "LAMBDA_TASK_ROOT": str(REPO_ROOT / "lambdas"),
        "AWS_LAMBDA_FUNCTION_NAME": "figures",
    }
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    rows: list[tuple[str, int, int]] = []  # (module, self µs, cumulative µs), in completion order
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((name.strip(), int(own), int(cumulative)))
    if after:
        # `after` and everything it imported complete first; only what `module` adds is counted.
        boundary = next(i for i, row in enumerate(rows) if row[0] == after)
        rows = rows[boundary + 1 :]
    total = next((c for n, _, c in rows if n == module), 0)
    by_package: Counter[str] = Counter()
    for name, own_us, _ in rows:
        by_package[name.split(".")[0]] += own_us
    return {"total_ms": total / 1000, "by_package_ms": {k: v / 1000 for k, v in by_package.most_common(8)}}


def import_figures() -> dict[str, Any]:
    def median(module: str, after: str | None = None) -> dict[str, Any]:
        profiles = [import_profile(module, after) for _ in range(RUNS)]
        middle = sorted(profiles, key=lambda p: p["total_ms"])[RUNS // 2]
        return {**middle, "runs_ms": [round(p["total_ms"], 1) for p in profiles]}

    return {
        "step_handler": median(STEP_MODULE),
        "orchestration_handler": median(ORCHESTRATION_MODULE),
        "route_handler": median(ROUTE_MODULE),
        "first_provider_call": median(PROVIDERS_MODULE, after=STEP_MODULE),
    }


# ---- 2. runs through the handlers --------------------------------------------------------------


class AwsCalls:
    """Counts every AWS request of a boto3 client, and DynamoDB capacity units as AWS would bill
    them (strong reads: 1 RRU per started 4 KB an item; writes, batched or not, 1 WRU per started 1 KB
    an item; transactional writes twice that)."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self.rru = 0.0
        self.wru = 0.0

    def watch(self, client: Any) -> Any:
        client.meta.events.register("provide-client-params.*.*", self._before)
        client.meta.events.register("after-call.*.*", self._after)
        return client

    def _before(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        self.requests[f"{model.service_model.service_name}:{model.name}"] += 1
        if model.name == "PutItem":
            self.wru += _units(params["Item"], 1024)
        elif model.name in {"UpdateItem", "DeleteItem"}:
            self.wru += 1
        elif model.name == "BatchWriteItem":
            for requests in params["RequestItems"].values():
                for request in requests:
                    put = request.get("PutRequest")
                    self.wru += _units(put["Item"], 1024) if put else 1
        elif model.name == "TransactWriteItems":
            for action in params["TransactItems"]:
                item = next(iter(action.values()))
                self.wru += 2 * (_units(item["Item"], 1024) if "Item" in item else 1)

    def _after(self, parsed: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "GetItem":
            self.rru += _units(parsed.get("Item", {}), 4096)
        elif model.name == "Query":
            size = sum(len(json.dumps(i)) for i in parsed.get("Items", []))
            self.rru += max(1, math.ceil(size / 4096))
        elif model.name == "BatchGetItem":
            for items in parsed.get("Responses", {}).values():
                self.rru += sum(_units(i, 4096) for i in items)


def _units(item: dict[str, Any], unit: int) -> int:
    return max(1, math.ceil(len(json.dumps(item)) / unit))


def run_figures(pairs: list[tuple[str, str]], world_path: Path | None = None) -> list[dict[str, Any]]:
    sys.path.insert(0, str(REPO_ROOT))
    import boto3
    from moto import mock_aws

    from infra.constructs.functions import DEFAULT_STEP_PROFILE, STEP_PROFILES
    from tests.support.cdk_template import run_table_definition
    from visual_degrees.constants import STATE_TASKS
    from visual_degrees.handlers import ws_connect, ws_start_run
    from visual_degrees.handlers.wiring import AwsRuntime, using_runtime
    from visual_degrees_tools.local.asl.definition import load_definition, render_definition
    from visual_degrees_tools.local.asl.engine import LocalEngine
    from visual_degrees_tools.sandbox import PhotoWeb, build_sandbox, default_world_path, load_world

    memory_mb = {
        f"${{{t.substitution}}}": STEP_PROFILES.get(t.step, DEFAULT_STEP_PROFILE)[0].memory_mb
        for t in STATE_TASKS
    }
    table_definition = run_table_definition()
    web = PhotoWeb(load_world(world_path or default_world_path()), 0)
    context = _Context()
    results = []
    for person_a, person_b in pairs:
        with mock_aws():
            calls = AwsCalls()
            region = "us-east-1"
            dynamodb = calls.watch(boto3.client("dynamodb", region_name=region))
            dynamodb.create_table(TableName="runs", **table_definition)
            stepfunctions = calls.watch(boto3.client("stepfunctions", region_name=region))
            arns = {
                t.substitution: f"arn:aws:lambda:{region}:123456789012:function:{t.step}" for t in STATE_TASKS
            }
            machine = stepfunctions.create_state_machine(
                name="vd", definition=render_definition(arns), roleArn="arn:aws:iam::123456789012:role/vd"
            )["stateMachineArn"]
            endpoint = "https://abc123.execute-api.us-east-1.amazonaws.com/live"
            management = calls.watch(
                boto3.client("apigatewaymanagementapi", region_name=region, endpoint_url=endpoint)
            )
            sandbox = build_sandbox(web, seed=0)
            providers = sandbox.providers
            runtime = AwsRuntime(
                {"VD_TABLE_NAME": "runs", "VD_WEBSOCKET_ENDPOINT": endpoint, "VD_STATE_MACHINE_ARN": machine},
                dynamodb=dynamodb,
                stepfunctions=stepfunctions,
                management_api=management,
                providers=providers,
                clock=sandbox.clock,
            )
            invocations: Counter[str] = Counter()
            handlers = {
                f"${{{t.substitution}}}": __import__(
                    f"visual_degrees.handlers.{t.step}", fromlist=["handler"]
                ).handler
                for t in STATE_TASKS
            }

            gb_seconds: list[float] = []
            lambda_seconds: list[float] = []

            def invoke(
                resource: str,
                payload: dict[str, Any],
                invocations: Counter[str] = invocations,
                handlers: dict[str, Any] = handlers,
                clock: Any = sandbox.clock,
                gb_seconds: list[float] = gb_seconds,
                lambda_seconds: list[float] = lambda_seconds,
            ) -> Any:
                invocations[resource] += 1
                began = clock.now()
                try:
                    return handlers[resource](payload, context)
                finally:
                    # Simulated provider latency stands in for the function's wall time; a step's own
                    # work (memory, events) adds ~0.1 s, at the function's memory size.
                    seconds = clock.now() - began + 0.1
                    lambda_seconds.append(seconds)
                    gb_seconds.append(seconds * memory_mb[resource] / 1024)

            with using_runtime(runtime), _quiet():
                ws_connect.handler(_event("$connect", None), context)
                body = json.dumps({"action": "startRun", "personA": person_a, "personB": person_b})
                ws_start_run.handler(_event("startRun", body), context)
                routes_requests = dict(calls.requests)
                (listed,) = stepfunctions.list_executions(stateMachineArn=machine)["executions"]
                described = stepfunctions.describe_execution(executionArn=listed["executionArn"])
                engine = LocalEngine(load_definition(), invoke)
                execution = engine.execute(json.loads(described["input"]), name=described["name"])
            history = Counter(e["type"] for e in execution.history)
            final: dict[str, Any] = next(
                (
                    e
                    for e in reversed(_pushed(region, "conn-1"))
                    if e.get("type") in {"final", "no_path", "cancelled", "error"}
                ),
                {},
            )
            transitions = (
                history["TaskStateEntered"] + history["ChoiceStateEntered"] + history["PassStateEntered"]
            )
            transitions += history["SucceedStateEntered"] + history["FailStateEntered"]
            lambda_calls = sum(invocations.values()) + 2  # + $connect and startRun
            messages = calls.requests["apigatewaymanagementapi:PostToConnection"]
            usage = final.get("data", {}).get("usage", {})
            results.append(
                {
                    "pair": f"{person_a} → {person_b}",
                    "outcome": final.get("type"),
                    "hops": len(final.get("data", {}).get("path", [])) - 1
                    if final.get("type") == "final"
                    else None,
                    "execution": execution.status,
                    "state_transitions": transitions,
                    "task_invocations": sum(invocations.values()),
                    "lambda_invocations_with_routes": lambda_calls,
                    "retries": history["LambdaFunctionScheduled"] - history["TaskStateEntered"],
                    "events_pushed": sum(1 for m in _pushed(region, "conn-1") if "seq" in m),
                    "post_to_connection": messages,
                    "aws_requests": dict(sorted(calls.requests.items())),
                    "aws_requests_by_routes": routes_requests,
                    "dynamodb_rru": round(calls.rru),
                    "dynamodb_wru": round(calls.wru),
                    "provider_calls": sandbox.calls(),
                    "provider_cost_usd": usage.get("costUsd"),
                    "lambda_gb_seconds_estimate": round(sum(gb_seconds), 1),
                    "lambda_seconds_estimate": round(sum(lambda_seconds), 1),
                    "sim_seconds": final.get("data", {}).get("simSeconds"),
                    "cost_usd": {
                        "step_functions": transitions * SFN_STANDARD_PER_TRANSITION,
                        "lambda_requests": lambda_calls * LAMBDA_PER_REQUEST,
                        "lambda_duration_estimate": sum(gb_seconds) * LAMBDA_ARM_PER_GB_SECOND,
                        "dynamodb": calls.rru * DYNAMODB_PER_RRU + calls.wru * DYNAMODB_PER_WRU,
                        "websocket_messages": (messages + 2) * WEBSOCKET_PER_MESSAGE,
                    },
                }
            )
    return results


class _Context:
    function_name = "VisualDegrees-Figures"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:VisualDegrees-Figures"
    aws_request_id = "figures"


def _event(route_key: str, body: str | None) -> dict[str, Any]:
    """An API Gateway WebSocket event as the route handlers parse it (every field API Gateway sends
    that the request context requires)."""
    return {
        "requestContext": {
            "routeKey": route_key,
            "connectionId": "conn-1",
            "eventType": "CONNECT" if route_key == "$connect" else "MESSAGE",
            "authorizer": {"principalId": "default", "clientId": "default"},
            "extendedRequestId": "figures",
            "requestId": "figures",
            "requestTime": "01/Dec/2026:10:00:00 +0000",
            "requestTimeEpoch": 1796119200000,
            "connectedAt": 1796119200000,
            "stage": "live",
            "identity": {"sourceIp": "127.0.0.1"},
            "domainName": "figures.execute-api.us-east-1.amazonaws.com",
            "apiId": "figures",
        },
        "body": body,
        "isBase64Encoded": False,
    }


def _pushed(region: str, connection_id: str) -> list[dict[str, Any]]:
    from moto.apigatewaymanagementapi.models import apigatewaymanagementapi_backends
    from moto.core import DEFAULT_ACCOUNT_ID

    connection = apigatewaymanagementapi_backends[DEFAULT_ACCOUNT_ID][region].connections.get(connection_id)
    text = connection.data.decode() if connection else ""
    out, decoder, at = [], json.JSONDecoder(), 0
    while at < len(text):
        message, at = decoder.raw_decode(text, at)
        out.append(message)
    return out


class _quiet:
    """Handlers log and print EMF to stdout; the figures are the output here."""

    def __enter__(self) -> None:
        import logging
        import warnings

        self._stdout = sys.stdout
        sys.stdout = open(os.devnull, "w")  # closed in __exit__
        logging.disable(logging.CRITICAL)
        warnings.simplefilter("ignore")

    def __exit__(self, *_: object) -> None:
        import logging

        sys.stdout.close()
        sys.stdout = self._stdout
        logging.disable(logging.NOTSET)


# ---- output ------------------------------------------------------------------------------------


def show_imports(figures: dict[str, Any]) -> None:
    labels = {
        "step_handler": f"import {STEP_MODULE}",
        "orchestration_handler": f"import {ORCHESTRATION_MODULE}",
        "route_handler": f"import {ROUTE_MODULE}",
        "first_provider_call": f"+ import {PROVIDERS_MODULE} (a searching step's first provider call)",
    }
    print(
        f"Cold-start imports (python -X importtime, tracing on as in Lambda, median of {RUNS} fresh "
        "interpreters, this machine)"
    )
    for key, label in labels.items():
        f = figures[key]
        top = ", ".join(f"{name} {ms:.0f}" for name, ms in f["by_package_ms"].items())
        print(f"  {label}: {f['total_ms']:.0f} ms   (runs: {f['runs_ms']})")
        print(f"      self time by top-level package, ms: {top}")


def show_runs(runs: list[dict[str, Any]]) -> None:
    print("\nSandbox runs through the handlers (seed 0)")
    for r in runs:
        cost = r["cost_usd"]
        aws_total = sum(cost.values())
        print(f"  {r['pair']}: {r['outcome']}" + (f" in {r['hops']} hops" if r["hops"] else ""))
        print(
            f"      state transitions {r['state_transitions']}, Task invocations {r['task_invocations']} "
            f"(+ $connect and startRun = {r['lambda_invocations_with_routes']} Lambda invocations), "
            f"retries {r['retries']}"
        )
        print(f"      events pushed {r['events_pushed']}, PostToConnection calls {r['post_to_connection']}")
        print(f"      DynamoDB ≈ {r['dynamodb_rru']} RRU + {r['dynamodb_wru']} WRU")
        print(f"      AWS requests: {r['aws_requests']}")
        print(
            f"      provider calls {r['provider_calls']}, provider cost ${r['provider_cost_usd']}, "
            f"simulated run time {r['sim_seconds']} s"
        )
        print(
            f"      AWS at list price: Step Functions ${cost['step_functions']:.5f} "
            f"({r['state_transitions']} × $0.025/1,000), Lambda requests ${cost['lambda_requests']:.6f}, "
            f"Lambda duration ≈ ${cost['lambda_duration_estimate']:.5f} "
            f"({r['lambda_gb_seconds_estimate']} GB-s), DynamoDB ${cost['dynamodb']:.5f}, "
            f"WebSocket ${cost['websocket_messages']:.5f}; total ${aws_total:.5f} (logs not included)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--imports", action="store_true", help="only the import times")
    parser.add_argument("--runs", action="store_true", help="only the runs (scripts/capacity_model.py)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--world", type=Path, help="a world file (default: the bundled synthetic world)")
    parser.add_argument(
        "--pair",
        action="append",
        default=[],
        metavar="A|B",
        help="a pair to run (repeatable; default: the sandbox's example and far pairs)",
    )
    args = parser.parse_args()
    from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR

    given = [p.split("|", 1) for p in args.pair]
    pairs = [(a, b) for a, b in given] or [EXAMPLE_PAIR, FAR_PAIR]
    figures: dict[str, Any] = {} if args.runs else {"imports": import_figures()}
    if not args.imports:
        figures["runs"] = run_figures(pairs, args.world)
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return
    if "imports" in figures:
        show_imports(figures["imports"])
    if "runs" in figures:
        show_runs(figures["runs"])


if __name__ == "__main__":
    main()
