"""The local server over real sockets on 127.0.0.1: startRun, subscribe, getRun, cancelRun, and two
clients kept apart, exactly as protocol.py describes the deployed API."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from tests.support.ws_client import WsClient, is_event, seqs
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees.domain.models import RunOptions
from visual_degrees.ports import Memory
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_memory import RunControl
from visual_degrees_tools.local.server.runs import RunLimits, Stopped
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR


def stored(memory: Memory, run_id: str) -> list[dict[str, Any]]:
    return [e.dump() for e in EventLog(memory).read(run_id)]


def test_start_run_streams_every_stored_event_in_order(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # Given a client connected to the server
        # When it starts a run between the bundled world's example pair
        accepted = client.start(A, B)
        events = client.events_until_terminal(accepted["runId"])

        # Then the reply names the run and hands over a token
        assert accepted["type"] == "runAccepted"
        assert accepted["runToken"]
        # And it receives the run's events exactly as stored: 1..N, no gap, ending with the path
        assert events == stored(srv.memory, accepted["runId"])
        assert seqs(events) == list(range(1, len(events) + 1))
        assert events[0]["type"] == "run_started"
        final = events[-1]
        assert final["type"] == "final"
        assert final["data"]["path"][0] == A and final["data"]["path"][-1] == B


def test_get_run_reports_status_and_last_seq(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # Given a run that has finished
        run_id = client.start(A, B)["runId"]
        events = client.events_until_terminal(run_id)

        # When the client asks about it (once the engine has closed the execution: its terminal
        # event goes out just before, as a Step Functions execution ends just after its last state)
        reply = _get_run_once_settled(client, run_id)

        # Then it gets the run's status, its people, how far its event log goes and how it ended
        assert reply == {
            "type": "run",
            "runId": run_id,
            "status": "succeeded",
            "personA": A,
            "personB": B,
            "lastSeq": events[-1]["seq"],
            "executionStatus": "SUCCEEDED",
            "cancelRequested": False,
            "final": events[-1],
        }


def test_subscribe_replays_from_the_requested_seq(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # Given a finished run whose events the client has seen
        run_id = client.start(A, B)["runId"]
        events = client.events_until_terminal(run_id)
        resume = len(events) // 2 + 1

        # When it subscribes again from a seq half-way through
        client.send("subscribe", runId=run_id, fromSeq=resume)
        replies = client.until(lambda m: is_event(m) and m["seq"] == events[-1]["seq"])

        # Then it is told so, and gets the events from there to the end once each, as stored
        assert replies[0] == {"type": "subscribed", "runId": run_id, "fromSeq": resume}
        assert replies[1:] == events[resume - 1 :]


def test_cancel_stops_the_run_at_its_next_state_boundary(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv, WsClient(srv.ws_url) as client:
        # Given a run held after its first state (S0 has announced it)
        gate.allow(1)
        run_id = client.start(A, B)["runId"]
        gate.wait_until_held()
        first = client.until(lambda m: m.get("type") == "status")

        # When the client cancels it, and the run may go on
        client.send("cancelRun", runId=run_id)
        reply = client.reply()
        gate.open()
        rest = client.events_until_terminal(run_id)

        # Then the cancel is acknowledged, and the run ends with `cancelled`, no path
        assert reply == {"type": "cancelRequested", "runId": run_id}
        assert first[0]["type"] == "run_started"
        assert rest[-1]["type"] == "cancelled"
        assert not any(e["type"] in ("final", "no_path", "evidence") for e in rest)
        client.send("getRun", runId=run_id)
        assert client.reply()["status"] == "cancelled"


def test_clients_see_only_their_own_runs(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with (
        running_server(tmp_path, environment=gate) as srv,
        WsClient(srv.ws_url) as alice,
        WsClient(srv.ws_url) as bob,
    ):
        # Given Alice's run, held after its first state
        gate.allow(1)
        accepted = alice.start(A, B)
        run_id = accepted["runId"]
        gate.wait_until_held()

        # When Bob, without the token, tries to follow, inspect or cancel it
        answers = []
        for action in ("subscribe", "getRun", "cancelRun"):
            bob.send(action, runId=run_id)
            answers.append(bob.reply())
        bob.send("getRun", runId="no-such-run")
        unknown = bob.reply()

        # Then each answer is the same `run_not_found` a run that does not exist gets
        assert [a["code"] for a in answers] == ["run_not_found"] * 3
        assert unknown["code"] == "run_not_found"
        # And Alice's run goes on untouched: all its events reach Alice, none reach Bob
        gate.open()
        events = alice.events_until_terminal(run_id)
        assert events[-1]["type"] == "final"
        bob.send("getRun", runId="no-such-run")
        assert not any(is_event(m) for m in bob.until(lambda m: m.get("type") == "error"))
        # And with the token Bob may follow it (that is how a reconnecting client gets back in)
        bob.send("subscribe", runId=run_id, fromSeq=1, runToken=accepted["runToken"])
        assert bob.reply()["type"] == "subscribed"
        assert bob.events_until_terminal(run_id) == events


@pytest.mark.parametrize(
    ("person_a", "person_b", "options", "code", "mentions"),
    [
        (A, A, None, "invalid_input", "same person"),
        (A, "Nobody Atall", None, "unknown_person", "Nobody Atall"),
        (A, B, {"maxHops": 99}, "invalid_input", "options.maxHops"),
        ("", B, None, "invalid_input", "personA"),
    ],
)
def test_start_run_refuses_bad_input_and_stays_usable(
    tmp_path: Path, person_a: str, person_b: str, options: dict[str, int] | None, code: str, mentions: str
) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client asks for a run the rules forbid
        reply = client.start(person_a, person_b, **(options or {}))

        # Then it gets an error naming the problem, for the action it sent
        assert reply["type"] == "error"
        assert reply["code"] == code
        assert reply["action"] == "startRun"
        assert mentions in reply["message"]
        # And the connection still works
        assert client.start(A, B)["type"] == "runAccepted"


def test_a_client_may_not_have_too_many_unfinished_runs(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with (
        running_server(tmp_path, environment=gate, limits=RunLimits(per_client=2)) as srv,
        WsClient(srv.ws_url) as client,
    ):
        # Given two unfinished runs (held at the gate)
        first = client.start(A, B)
        second = client.start(B, A)

        # When the client asks for a third
        third = client.start(A, B)

        # Then it is refused with `too_many_runs`, and the first two are unaffected
        assert [first["type"], second["type"]] == ["runAccepted", "runAccepted"]
        assert third["code"] == "too_many_runs"
        gate.open()
        client.follow(first["runId"], second["runId"])
        # And once they are done, the client may start again
        assert _eventually_accepted(client)


def test_shutdown_cancels_unfinished_runs_and_leaves_no_thread(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv, WsClient(srv.ws_url) as client:
        # Given a run that has announced itself and is held before its next state
        gate.allow(1)
        run_id = client.start(A, B)["runId"]
        gate.wait_until_held()
        client.until(lambda m: m.get("type") == "status")

        # When the server stops (and, once it has asked the run to stop, the run may move on)
        outcome: dict[str, Stopped] = {}
        stopping = threading.Thread(target=lambda: outcome.update(stopped=srv.stop()))
        stopping.start()
        cancel = RunControl(srv.memory, run_id, RunOptions().ttl_seconds)
        while not cancel.cancel_requested():
            threading.Event().wait(0.01)
        gate.open()
        stopping.join()

        # Then the run was cancelled, and its client told so before the connection closed
        assert outcome["stopped"] == Stopped(cancelled=1)
        events = client.events_until_terminal(run_id)
        assert events[-1]["type"] == "cancelled"
        assert client.close_code() == 1001
    assert not [t.name for t in threading.enumerate() if t.name.startswith(("vd-run", "vd-io"))]


def _get_run_once_settled(client: WsClient, run_id: str) -> dict[str, Any]:
    for _ in range(500):
        client.send("getRun", runId=run_id)
        reply = client.reply()
        if reply["executionStatus"] != "RUNNING":
            return reply
        threading.Event().wait(0.01)
    raise AssertionError("the execution never ended")


def _eventually_accepted(client: WsClient) -> bool:
    # A run's slot is released just after its terminal event is sent; a refused start is retried.
    for _ in range(200):
        reply = client.start(A, B)
        if reply["type"] == "runAccepted":
            return True
        assert reply["code"] == "too_many_runs"
        threading.Event().wait(0.01)
    return False
