"""Bad input over real sockets: malformed frames, oversize frames, floods, markup in names. Every
error reply names the problem with a stable code, and the connection stays usable afterwards."""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed

from tests.support.ws_client import GUARD_SECONDS, WsClient
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees.constants import MAX_MESSAGE_BYTES
from visual_degrees.protocol import AnyMessage, parse_message
from visual_degrees_tools.local.server import session as session_module
from visual_degrees_tools.local.server.app import HARD_FRAME_LIMIT
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR


@pytest.mark.parametrize(
    ("frame", "code", "action"),
    [
        ("{not json", "invalid_json", None),
        (b"\xff\xfe binary garbage", "invalid_json", None),
        ("[1, 2, 3]", "invalid_message", None),
        ('{"action": "dropTables"}', "unknown_action", None),
        ('{"personA": "x"}', "unknown_action", None),
        ('{"action": "subscribe"}', "invalid_message", "subscribe"),
        ('{"action": "subscribe", "runId": "r", "fromSeq": 0}', "invalid_message", "subscribe"),
        ('{"action": "getRun", "runId": "../../etc/passwd"}', "invalid_message", "getRun"),
        ('{"action": "startRun", "personA": "a", "personB": "b", "extra": 1}', "invalid_message", "startRun"),
        # Issue 9.8: nesting that would exhaust the parser; values of the wrong JSON type
        ("[" * 50_000, "invalid_json", None),
        ('{"action": "startRun", "options": ' + "[" * 50_000, "invalid_json", None),
        ('{"action": "subscribe", "runId": "r", "fromSeq": "3"}', "invalid_message", "subscribe"),
        ('{"action": "subscribe", "runId": "r", "fromSeq": true}', "invalid_message", "subscribe"),
        ('{"action": "getRun", "runId": 7}', "invalid_message", "getRun"),
    ],
)
def test_malformed_messages_get_a_coded_error_and_the_connection_stays_usable(
    tmp_path: Path, frame: str | bytes, code: str, action: str | None
) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client sends a malformed frame
        client.send_raw(frame)
        reply = client.reply()

        # Then it gets an error with the stable code (and the action, when it named a known one)
        assert reply["type"] == "error"
        assert reply["code"] == code
        assert reply.get("action") == action
        assert reply["message"]
        # And the same connection still serves a proper request
        assert client.start(A, B)["type"] == "runAccepted"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"maxHops": True}, "options.maxHops"),
        ({"maxHops": "3"}, "options.maxHops"),
        ({"maxHops": 3.0}, "options.maxHops"),
        ({"imagesPerSearch": "5"}, "options.imagesPerSearch"),
        ({"threshold": True}, "options.threshold"),
        ({"budgets": {"searches": "10"}}, "options.budgets.searches"),
        ({"budgets": {"runtimeSeconds": False}}, "options.budgets.runtimeSeconds"),
        ({"budgets": {"shortenMinUsd": "0.002"}}, "options.budgets.shortenMinUsd"),
        ({"knobs": {"both_ends": 0}}, "options.knobs.both_ends"),
    ],
)
def test_options_of_the_wrong_json_type_are_refused_not_coerced(
    tmp_path: Path, options: dict[str, object], field: str
) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client sends an option whose value is not of its JSON type ("3", true for a number)
        reply = client.start(A, B, **options)

        # Then the run is refused and the message names the field
        assert (reply["type"], reply["code"], reply["action"]) == ("error", "invalid_input", "startRun")
        assert reply["message"].startswith(field + ":")
        # And the same options with their proper types are accepted
        assert client.start(A, B, maxHops=3, budgets={"searches": 10})["type"] == "runAccepted"


@pytest.mark.parametrize(
    ("budgets", "field"),
    [
        ({"searches": 0}, "options.budgets.searches must be at least 1"),
        ({"recognitions": 0}, "options.budgets.recognitions must be at least 1"),
        ({"runtimeSeconds": 0.5}, "options.budgets.runtimeSeconds must be at least 5 seconds"),
    ],
)
def test_budgets_a_run_cannot_start_with_are_refused(
    tmp_path: Path, budgets: dict[str, float], field: str
) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client asks for a run with no search (or recognition, or time) for its first step
        reply = client.start(A, B, budgets=budgets)
        # Then it is refused, naming the field, and no run is started
        assert (reply["type"], reply["code"], reply["action"]) == ("error", "invalid_input", "startRun")
        assert field in reply["message"]


def test_deep_nesting_is_invalid_json_and_logs_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client sends 50,000 opening brackets (50 KB: under every size limit)
        client.send_raw("[" * 50_000)

        # Then it is told the message is not valid JSON; nothing is logged as a failure of ours
        assert client.reply()["code"] == "invalid_json"
        assert client.start(A, B)["type"] == "runAccepted"
    assert "RecursionError" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= 40]


HOSTILE = "[" * 40 + '"' + '\\"' * 20_000  # issue 17: a string that never closes


def test_a_frame_being_parsed_delays_no_other_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a parser that holds the hostile frame until the test lets it go (however slow a frame
    # is to parse, the test decides when its parse ends)
    parsing, release = threading.Event(), threading.Event()
    held: list[bool] = []

    def held_parse(frame: str | bytes) -> AnyMessage:
        if frame == HOSTILE:
            parsing.set()
            held.append(release.wait(GUARD_SECONDS))  # False: nobody released it (a deadlock guard)
        return parse_message(frame)

    monkeypatch.setattr(session_module, "parse_message", held_parse)
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as attacker, WsClient(srv.ws_url) as user:
        run_id = user.start(A, B)["runId"]
        # When one connection's frame is being parsed
        attacker.send_raw(HOSTILE)
        assert parsing.wait(GUARD_SECONDS)
        # Then another, already open connection is answered meanwhile
        user.send("getRun", runId=run_id)
        answered = user.reply()
        release.set()
        assert (answered["type"], answered["runId"]) == ("run", run_id)
        # And the hostile frame, once parsed, is refused as invalid JSON
        assert attacker.reply()["code"] == "invalid_json"
    assert held == [True]  # it was answered while the frame was held, not after the guard gave up


def test_a_frame_over_the_deployed_limit_is_refused_and_the_connection_stays_usable(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client sends a message just over the deployed API's 128 KB
        padding = "x" * (MAX_MESSAGE_BYTES + 1)
        client.send_raw(json.dumps({"action": "getRun", "runId": "r", "pad": padding}))
        reply = client.reply()

        # Then it is told the message is too large, and may carry on
        assert reply["code"] == "message_too_large"
        assert str(MAX_MESSAGE_BYTES) in reply["message"]
        assert client.start(A, B)["type"] == "runAccepted"


def test_a_huge_frame_is_refused_unread_and_the_connection_closed(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client, WsClient(srv.ws_url) as other:
        # When a client sends a frame far beyond any limit
        with contextlib.suppress(ConnectionClosed, OSError):  # closed before it is all written
            client.send_raw("x" * (HARD_FRAME_LIMIT * 8))

        # Then the server closes that connection with 1009 (message too big), as API Gateway does
        assert client.close_code() == 1009
        # And other clients are unaffected
        assert other.start(A, B)["type"] == "runAccepted"


def test_a_flooding_client_is_rate_limited_then_cut_off_while_others_carry_on(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with (
        running_server(tmp_path, environment=gate) as srv,
        WsClient(srv.ws_url) as flooder,
        WsClient(srv.ws_url) as neighbour,
    ):
        # Given a neighbour with a run in progress
        accepted = neighbour.start(A, B)

        # When another client sends 1,000 messages as fast as it can
        sent = 0
        try:
            for _ in range(1000):
                flooder.send("getRun", runId="nope")
                sent += 1
        except ConnectionClosed:
            pass
        replies = []
        try:
            while True:
                replies.append(flooder.recv())
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None

        # Then the flooder first got answers, then `rate_limited` errors, then was disconnected (1008)
        codes = [r["code"] for r in replies]
        assert codes[0] == "run_not_found"
        assert "rate_limited" in codes
        assert codes.index("rate_limited") < len(codes) - 1
        assert set(codes[codes.index("rate_limited") :]) <= {"rate_limited", "run_not_found"}
        assert len(replies) < sent
        assert code == 1008
        # And the neighbour's connection and run are untouched: every event arrives, no rate limit
        neighbour.send("getRun", runId=accepted["runId"])
        assert neighbour.reply()["type"] == "run"
        gate.open()
        events = neighbour.events_until_terminal(accepted["runId"])
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert events[-1]["type"] == "final"


def test_names_with_markup_are_data_not_markup(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client asks for a person whose "name" is a script tag
        name = "<script>alert('x')</script>"
        reply = client.start(name, B)

        # Then the error names the person exactly as typed: the page renders it as text
        assert reply["code"] == "unknown_person"
        assert name in reply["message"]
        # And the connection stays usable
        assert client.start(A, B)["type"] == "runAccepted"
