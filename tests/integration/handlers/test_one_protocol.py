"""One use case serves the protocol on both servers: the deployed routes (handlers over moto) and the
local server (real sockets on 127.0.0.1) hand every action to services/runs_api.RunsApi, so they
answer alike from the same code, with only their adapters differing."""

from __future__ import annotations

from pathlib import Path

from tests.integration.handlers.helpers import drive_execution, message
from tests.support.ws_client import WsClient
from tests.support.ws_server import bundled_sandbox, running_server
from visual_degrees.handlers import ws_get_graph, ws_get_run, ws_start_run
from visual_degrees.handlers.wiring import using_runtime
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, build_sandbox

A, B = EXAMPLE_PAIR


def test_both_servers_answer_every_action_through_the_one_use_case(
    aws, runtime, context, tmp_path: Path, served
):
    unknown = {"action": "getRun", "runId": "20260101T000000-000000"}
    # Given the deployed route and the local server, each asked about a run nobody started
    ws_get_run.handler(message("getRun", unknown), context)
    deployed = aws.pushed("conn-1")
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        client.send("getRun", runId=unknown["runId"])
        local = client.reply()
        # And each starting a run, then asking about it
        ws_start_run.handler(message("startRun", {"action": "startRun", "personA": A, "personB": B}), context)
        accepted = aws.pushed("conn-1")[-1]
        ws_get_run.handler(message("getRun", {"action": "getRun", "runId": accepted["runId"]}), context)
        deployed_run = aws.pushed("conn-1")[-1]
        local_run_id = client.start(A, B)["runId"]
        client.send("getRun", runId=local_run_id)
        local_run = client.reply()

    # Then both refused the unknown run with the same reply
    assert deployed == [local]
    assert local["type"] == "error" and local["code"] == "run_not_found" and local["action"] == "getRun"
    # And described their runs in the same shape (status by the one rule of domain/outcomes.py)
    assert accepted["type"] == "runAccepted"
    assert deployed_run["type"] == local_run["type"] == "run"
    assert deployed_run.keys() == local_run.keys()
    # And every one of those actions went through RunsApi, on either server
    actions = [action for _, action in served]
    assert actions.count("getRun") == 4 and actions.count("startRun") == 2
    assert len({client for client, _ in served}) == 2  # the authorizer's client, the local connection


def test_both_servers_serve_the_run_graph_in_pages_through_the_one_use_case(
    aws, context, tmp_path: Path, served
):
    # Given a finished run on each server (the deployed one on the sandbox's providers)
    sandbox = build_sandbox(bundled_sandbox().web, seed=0)
    with using_runtime(aws.runtime(providers=sandbox.providers, clock=sandbox.clock)):
        start = {"action": "startRun", "personA": A, "personB": B}
        ws_start_run.handler(message("startRun", start), context)
        deployed_id = aws.pushed("conn-1")[-1]["runId"]
        (execution,) = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]
        drive_execution(aws.stepfunctions, execution["executionArn"], context)
        # When each client reads the run's graph with getGraph (and a stranger tries to)
        ask = {"action": "getGraph", "runId": deployed_id}
        ws_get_graph.handler(message("getGraph", ask), context)
        deployed = aws.pushed("conn-1")[-1]
        ws_get_graph.handler(message("getGraph", ask, connection_id="c9", client_id="other"), context)
        stranger = aws.pushed("c9")[-1]
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        local_id = client.start(A, B)["runId"]
        local_final = client.events_until_terminal(local_id)[-1]
        client.send("getGraph", runId=local_id)
        local = client.reply()
        client.send("getGraph", runId=local_id, cursor="zzzz")
        after_the_end = client.reply()

    # Then both answer a `graph` page of the same shape: every link with its photo, its people, no
    # further page (a small run), and a cursor past the last link is an empty last page
    for page, run_id in ((local, local_id), (deployed, deployed_id)):
        assert page.keys() == {"type", "runId", "nodes", "edges", "cursor"}
        assert (page["type"], page["runId"], page["cursor"]) == ("graph", run_id, None)
        assert page["edges"] and all(e["imageUrl"] for e in page["edges"])
        named = {n["id"] for n in page["nodes"]}
        assert all({e["source"], e["target"]} <= named for e in page["edges"])
    # The final's summary and the pages agree on the whole graph (nothing was left out of either)
    summary = local_final["data"]["graph"]
    assert summary["truncated"] == {"nodes": 0, "edges": 0}
    assert len(local["edges"]) == len(summary["edges"])
    assert after_the_end == {"type": "graph", "runId": local_id, "nodes": [], "edges": [], "cursor": None}
    # And another client's run is not found, as for every action
    assert (stranger["code"], stranger["action"]) == ("run_not_found", "getGraph")
    assert [a for _, a in served].count("getGraph") == 4
