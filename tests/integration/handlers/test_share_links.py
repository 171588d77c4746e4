"""Share links on both servers, through the one use case: a run's share token lets anyone watch and
read that run (subscribe, getRun, getGraph) and nothing else. On the deployed API the `$connect`
authorizer admits a share token with its run as a viewer (handlers over moto); on the local server
`--token` does the same at its gate; on either, a client may also carry the token in its messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus

from tests.integration.handlers.helpers import CLIENT_TOKENS, drive_execution, event, message
from tests.support.ws_client import WsClient, is_event
from tests.support.ws_server import bundled_sandbox, running_server
from visual_degrees.handlers import (
    ws_authorizer,
    ws_cancel_run,
    ws_continue_run,
    ws_get_graph,
    ws_get_run,
    ws_start_run,
    ws_subscribe,
)
from visual_degrees.handlers.wiring import using_runtime
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, build_sandbox

A, B = EXAMPLE_PAIR
START = {"action": "startRun", "personA": A, "personB": B}


def authorize(context: Any, **query: str) -> dict[str, Any]:
    return ws_authorizer.handler(event("ws_authorizer_request", query=query), context)


def effect(answer: dict[str, Any]) -> str:
    return str(answer["policyDocument"]["Statement"][0]["Effect"])


# ---- the deployed API -----------------------------------------------------------------------------


def test_deployed_a_share_token_connects_a_viewer_who_may_only_watch_and_read_its_run(
    aws, context, logs, served
) -> None:
    # Given a finished run of client "default" (on the sandbox's providers), and another run of theirs
    sandbox = build_sandbox(bundled_sandbox().web, seed=0)
    with using_runtime(aws.runtime(providers=sandbox.providers, clock=sandbox.clock)):
        ws_start_run.handler(message("startRun", START), context)
        accepted = aws.pushed("conn-1")[0]
        run_id, share = accepted["runId"], accepted["shareToken"]
        (execution,) = aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]
        drive_execution(aws.stepfunctions, execution["executionArn"], context)
        ws_start_run.handler(message("startRun", START, connection_id="conn-2"), context)
        other_run = aws.pushed("conn-2")[0]["runId"]
        stored = [m for m in aws.pushed("conn-1") if is_event(m) and m["runId"] == run_id]

        # When someone connects with the share token and the run it opens
        allowed = authorize(context, token=share, run=run_id)
        # Then the authorizer lets them in as that run's viewer, and no one with a wrong token or run
        assert effect(allowed) == "Allow"
        viewer = allowed["context"]["clientId"]
        assert viewer == f"viewer:{run_id}"
        for query in (
            {"token": share[:-1] + ("A" if share[-1] != "A" else "B"), "run": run_id},
            {"token": share, "run": other_run},
            {"token": share},
            {"token": share, "run": "../" + run_id},
        ):
            assert effect(authorize(context, **query)) == "Deny", query

        # When the viewer watches, gets and reads the graph of the run
        def ask(route: str, handler: Any, body: dict[str, Any]) -> dict[str, Any]:
            handler.handler(message(route, body, connection_id="conn-v", client_id=viewer), context)
            return aws.pushed("conn-v")[-1]

        ask("subscribe", ws_subscribe, {"action": "subscribe", "runId": run_id})
        replayed = [m for m in aws.pushed("conn-v") if is_event(m)]
        run = ask("getRun", ws_get_run, {"action": "getRun", "runId": run_id})
        graph = ask("getGraph", ws_get_graph, {"action": "getGraph", "runId": run_id})
        # And asks for anything more: to start, cancel or continue a run, or to read another run
        refused = [
            ask("startRun", ws_start_run, START),
            ask("cancelRun", ws_cancel_run, {"action": "cancelRun", "runId": run_id}),
            ask("continueRun", ws_continue_run, {"action": "continueRun", "runId": run_id}),
            ask("getRun", ws_get_run, {"action": "getRun", "runId": other_run}),
            ask("subscribe", ws_subscribe, {"action": "subscribe", "runId": other_run}),
        ]

    # Then the run is replayed to the viewer as it was stored, and read like its starter reads it
    assert replayed == stored and replayed[-1]["type"] == "final"
    assert run["type"] == "run" and run["status"] == "succeeded"
    assert graph["type"] == "graph" and graph["edges"]
    # And everything else is refused: read_only for actions, run_not_found for another run
    assert [(r["type"], r["code"]) for r in refused] == [("error", "read_only")] * 3 + [
        ("error", "run_not_found")
    ] * 2
    assert len(aws.stepfunctions.list_executions(stateMachineArn=aws.state_machine_arn)["executions"]) == 2
    # And all of it went through the one use case, and the token appears in no log nor refusal
    assert [a for c, a in served if c == viewer] == [
        "subscribe", "getRun", "getGraph", "startRun", "cancelRun", "continueRun", "getRun", "subscribe"
    ]  # fmt: skip
    assert share not in logs.getvalue() and all(share not in str(r) for r in refused)


def test_deployed_a_client_with_the_share_token_reads_the_run_but_cannot_control_it(
    aws, runtime, context, served
) -> None:
    # Given a run of client "default"
    ws_start_run.handler(message("startRun", START), context)
    accepted = aws.pushed("conn-1")[0]
    run_id, share = accepted["runId"], accepted["shareToken"]

    # When client "other" gets it with its share token, then tries to cancel and continue it with
    # the share token in place of the run token
    def ask(route: str, handler: Any, body: dict[str, Any]) -> dict[str, Any]:
        handler.handler(message(route, body, connection_id="conn-o", client_id="other"), context)
        return aws.pushed("conn-o")[-1]

    run = ask("getRun", ws_get_run, {"action": "getRun", "runId": run_id, "shareToken": share})
    cancel = ask("cancelRun", ws_cancel_run, {"action": "cancelRun", "runId": run_id, "runToken": share})
    go_on = ask("continueRun", ws_continue_run, {"action": "continueRun", "runId": run_id, "runToken": share})
    without = ask("getRun", ws_get_run, {"action": "getRun", "runId": run_id})

    # Then it reads the run, and is refused the rest as for a run it does not know
    assert run["type"] == "run" and run["runId"] == run_id
    assert (cancel["code"], go_on["code"], without["code"]) == ("run_not_found",) * 3
    meta = [i for i in aws.items(f"run#{run_id}") if i["sk"]["S"] == "meta"]
    assert all("cancelRequestedAt" not in i["data"]["S"] for i in meta)
    assert {c for c, _ in served} == {"default", "other"}
    # A client token is still a client token, whatever `run` says
    assert authorize(context, token=CLIENT_TOKENS["other"], run=run_id)["context"] == {"clientId": "other"}


# ---- the local server -----------------------------------------------------------------------------


def test_local_with_a_token_a_share_token_connects_a_viewer_who_may_only_watch_and_read_its_run(
    tmp_path: Path, served
) -> None:
    with running_server(tmp_path, token="s3cret") as srv:
        # Given a finished run, and another, of a client with the server's token
        with WsClient(srv.ws_url + "?token=s3cret") as owner:
            accepted = owner.start(A, B)
            run_id, share = accepted["runId"], accepted["shareToken"]
            stored = owner.events_until_terminal(run_id)
            other_run = owner.start(A, B)["runId"]
            owner.events_until_terminal(other_run)
        # When someone connects with a wrong share token, or the right one for another run
        for query in (f"token={share[:-1]}&run={run_id}", f"token={share}&run={other_run}", f"token={share}"):
            with pytest.raises(InvalidStatus) as refused:
                WsClient(f"{srv.ws_url}?{query}")
            # Then the gate refuses them, as the deployed authorizer does
            assert refused.value.response.status_code == 401
        # When someone connects with the share token and its run, and watches, gets and reads it
        with WsClient(f"{srv.ws_url}?token={share}&run={run_id}") as viewer:
            viewer.send("subscribe", runId=run_id)
            subscribed = viewer.recv()
            replayed = viewer.events_until_terminal(run_id)
            viewer.send("getRun", runId=run_id)
            run = viewer.reply()
            viewer.send("getGraph", runId=run_id)
            graph = viewer.reply()
            # And asks for more
            refusals = []
            for action, fields in (
                ("startRun", {"personA": A, "personB": B}),
                ("cancelRun", {"runId": run_id}),
                ("continueRun", {"runId": run_id}),
                ("getRun", {"runId": other_run}),
                ("subscribe", {"runId": other_run}),
            ):
                viewer.send(action, **fields)
                refusals.append(viewer.reply())

    # Then the viewer saw the run as its starter did, and was refused everything else
    assert subscribed["type"] == "subscribed"
    assert replayed == stored
    assert run["type"] == "run" and run["status"] == "succeeded"
    assert graph["type"] == "graph" and graph["edges"]
    assert [r["code"] for r in refusals] == ["read_only"] * 3 + ["run_not_found"] * 2
    assert all(share not in str(r) for r in refusals)
    viewers = [a for c, a in served if c.startswith("viewer:")]
    assert viewers == [
        "subscribe", "getRun", "getGraph", "startRun", "cancelRun", "continueRun", "getRun", "subscribe"
    ]  # fmt: skip


def test_local_a_client_with_the_share_token_reads_the_run_but_cannot_control_it(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as owner, WsClient(srv.ws_url) as other:
        # Given a run on one connection (each connection is its own client here)
        accepted = owner.start(A, B)
        run_id, share = accepted["runId"], accepted["shareToken"]
        stored = owner.events_until_terminal(run_id)
        # When another connection asks with no token, then follows it with the share token
        other.send("subscribe", runId=run_id)
        unknown = other.reply()
        other.send("subscribe", runId=run_id, shareToken=share)
        subscribed = other.reply()
        replayed = other.events_until_terminal(run_id)
        # And tries to cancel and continue it with the share token as a run token
        other.send("cancelRun", runId=run_id, runToken=share)
        cancel = other.reply()
        other.send("continueRun", runId=run_id, runToken=share)
        go_on = other.reply()

    # Then without a token the run is unknown, with it the run is replayed, and control is refused
    assert (unknown["code"], subscribed["type"]) == ("run_not_found", "subscribed")
    assert replayed == stored
    assert (cancel["code"], go_on["code"]) == ("run_not_found", "run_not_found")
