"""Reconnect with replay over real sockets: a client that drops and comes back with its run token and
`fromSeq = last seen + 1` gets every missed event exactly once, in order, then the live ones."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.support.ws_client import Message, WsClient, is_event, seqs
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees.services.event_log import EventLog
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR


def test_reconnect_replays_what_was_missed_then_goes_live(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv:
        # Given a client that saw the first state's events, then lost its connection
        first = WsClient(srv.ws_url)
        gate.allow(1)
        accepted = first.start(A, B)
        run_id, token = accepted["runId"], accepted["runToken"]
        gate.wait_until_held()
        before = first.until(lambda m: is_event(m) and m["type"] == "status")
        first.close()
        # ... while the run went on without it (S1 and its Choice)
        gate.allow(2)
        gate.wait_until_held()
        missed = EventLog(srv.memory).last_seq(run_id) - before[-1]["seq"]

        # When it reconnects and subscribes with its token from the last seq it saw + 1
        with WsClient(srv.ws_url) as second:
            resume = before[-1]["seq"] + 1
            second.send("subscribe", runId=run_id, fromSeq=resume, runToken=token)
            reply = second.reply()
            replayed = [second.recv() for _ in range(missed)]
            gate.open()
            live = second.events_until_terminal(run_id)

        # Then it got the missed events (at least one), then the live ones: each exactly once
        assert reply == {"type": "subscribed", "runId": run_id, "fromSeq": resume}
        assert missed > 0
        received = [m for m in before if is_event(m)] + replayed + live
        assert seqs(received) == list(range(1, len(received) + 1))
        assert received == [e.dump() for e in EventLog(srv.memory).read(run_id)]
        assert received[-1]["type"] == "final"


def test_subscribers_joining_mid_run_each_get_every_event_once(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv, WsClient(srv.ws_url) as owner:
        # Given a run that advances one state at a time in the background
        accepted = owner.start(A, B)
        run_id, token = accepted["runId"], accepted["runToken"]
        stepping = threading.Thread(target=_step_through, args=(gate,), daemon=True)
        stepping.start()

        # When eight clients join at different points, from seq 1 or from later seqs
        results: dict[int, list[Message]] = {}
        joiners = [
            threading.Thread(target=_join, args=(srv.ws_url, run_id, token, n, results)) for n in range(8)
        ]
        for joiner in joiners:
            joiner.start()
        for joiner in joiners:
            joiner.join()
        gate.open()
        stepping.join()
        owners = owner.events_until_terminal(run_id)

        # Then each one got exactly the events from its fromSeq to the end, in order, as stored
        stored = [e.dump() for e in EventLog(srv.memory).read(run_id)]
        assert owners == stored
        for n, events in results.items():
            assert events == stored[_from_seq(n) - 1 :], f"joiner {n}"


def test_subscribing_again_restarts_from_the_new_seq(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # Given a finished run the client followed
        run_id = client.start(A, B)["runId"]
        events = client.events_until_terminal(run_id)

        # When it subscribes twice in a row on the same connection
        last = len(events)
        client.send("subscribe", runId=run_id, fromSeq=2)
        client.send("subscribe", runId=run_id, fromSeq=last)
        messages = client.until(lambda m: m.get("type") == "subscribed")
        messages += client.until(lambda m: m.get("type") == "subscribed")
        messages += [client.recv()]

        # Then each subscription replays from its own seq; no event arrives twice after the second
        second = messages.index({"type": "subscribed", "runId": run_id, "fromSeq": last})
        assert messages[second + 1 :] == events[-1:]
        assert seqs([m for m in messages[:second] if is_event(m)]) == list(range(2, last + 1))


def _from_seq(n: int) -> int:
    return 1 if n % 2 == 0 else 1 + n  # half replay everything, half start a few events in


def _join(url: str, run_id: str, token: str, n: int, results: dict[int, list[Message]]) -> None:
    with WsClient(url) as client:
        client.send("subscribe", runId=run_id, fromSeq=_from_seq(n), runToken=token)
        assert client.reply()["type"] == "subscribed"
        results[n] = client.events_until_terminal(run_id)


def _step_through(gate: Gate) -> None:
    """Let the run take its steps one by one while clients join."""
    while not gate.is_open:  # the test opens the gate once every client has its events
        gate.allow(1)
        gate.wait_until_held()
