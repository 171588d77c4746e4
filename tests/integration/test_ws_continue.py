"""continueRun and hints on the local server, over real sockets on 127.0.0.1 (issue 13): a run that
stopped on a budget goes on in the same log, whoever follows it keeps following, and every refusal
has its stable code and says why."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.support.ws_client import WsClient, is_event, is_terminal, seqs
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR
BRIDGE = "Dorian Ivesdale"
SHORT = {"budgets": {"searches": 1}}  # runs out of searches with a chain in sight


def ended_on_budget(client: WsClient) -> tuple[str, str, list[dict[str, Any]]]:
    accepted = client.start(A, B, **SHORT)
    events = client.events_until_terminal(accepted["runId"])
    assert events[-1]["type"] == "no_path" and events[-1]["data"]["continuable"] is True
    return accepted["runId"], accepted["runToken"], events


def settled(client: WsClient, run_id: str) -> dict[str, Any]:
    """getRun once the engine has closed the execution (it ends just after its terminal event)."""
    for _ in range(200):
        client.send("getRun", runId=run_id)
        reply = client.reply()
        if reply["executionStatus"] not in (None, "RUNNING"):
            return reply
        time.sleep(0.02)
    raise AssertionError("the execution never ended")


def test_continue_run_goes_on_in_the_same_log(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # Given a run that ran out of searches
        run_id, _, before = ended_on_budget(client)
        # When the client continues it
        client.send("continueRun", runId=run_id)
        accepted = client.reply()
        after = client.events_until_terminal(run_id)
        described = settled(client, run_id)
        stored = [e.dump() for e in EventLog(srv.memory).read(run_id)]

    # Then it is told the segment and what it may spend (the run's own budgets again)
    assert accepted == {
        "type": "continueAccepted",
        "runId": run_id,
        "segment": 1,
        "budgets": {
            "searches": 1,
            "recognitions": 120,
            "llmCalls": 12,
            "runtimeSeconds": 120.0,
            "shortenShare": 0.25,
            "shortenMinUsd": 0.0,
        },
        "via": None,
    }
    # And the events go on where they stopped, gap-free, as stored, first the continuation itself
    events = before + after
    assert seqs(events) == list(range(1, len(events) + 1))
    assert events == stored
    assert after[0]["type"] == "run_continued" and after[0]["data"]["segment"] == 1
    assert after[-1]["type"] == "final"
    # And getRun reports the latest ending, and the continuation's execution
    assert described["status"] == "succeeded"
    assert described["final"] == after[-1]
    assert described["executionStatus"] == "SUCCEEDED"


def test_whoever_follows_the_run_keeps_following_it(tmp_path: Path) -> None:
    with (
        running_server(tmp_path) as srv,
        WsClient(srv.ws_url) as owner,
        WsClient(srv.ws_url) as watcher,
    ):
        # Given a run that ran out of searches, and a second client following it with its token
        run_id, token, before = ended_on_budget(owner)
        watcher.send("subscribe", runId=run_id, fromSeq=1, runToken=token)
        watched = watcher.until(lambda m: is_terminal(m))
        # When the owner continues it
        owner.send("continueRun", runId=run_id)
        assert owner.reply()["type"] == "continueAccepted"
        owner.events_until_terminal(run_id)
        # Then the watcher, without subscribing again, gets the continuation's events live
        more = watcher.until(lambda m: is_terminal(m))

    assert watched[0] == {"type": "subscribed", "runId": run_id, "fromSeq": 1}
    assert watched[1:] == before
    assert more[0]["type"] == "run_continued" and more[0]["seq"] == before[-1]["seq"] + 1
    assert more[-1]["type"] == "final"
    assert seqs(watched[1:] + more) == list(range(1, more[-1]["seq"] + 1))


def test_refusals_say_why_with_stable_codes(tmp_path: Path) -> None:
    ceilings = RunCeilings.model_validate({"budgets": {"searches": 3}})
    with (
        running_server(tmp_path, ceilings=ceilings) as srv,
        WsClient(srv.ws_url) as client,
        WsClient(srv.ws_url) as stranger,
    ):
        run_id, _, _ = ended_on_budget(client)
        answers: dict[str, dict[str, Any]] = {}
        # Another client without the token, and a run nobody started
        stranger.send("continueRun", runId=run_id)
        answers["stranger"] = stranger.reply()
        client.send("continueRun", runId="20260101T000000-000000")
        answers["unknown"] = client.reply()
        # Above the operator's ceiling on the run's total (1 spent + 3 more > 3)
        client.send("continueRun", runId=run_id, budgets={"searches": 3})
        answers["ceiling"] = client.reply()
        # A budget of the wrong type, a hint nobody in the world has, a hint naming an end
        client.send("continueRun", runId=run_id, budgets={"searches": "2"})
        answers["type"] = client.reply()
        client.send("continueRun", runId=run_id, via="Dorian Ivesdalle")
        answers["via"] = client.reply()
        client.send("continueRun", runId=run_id, via=A)
        answers["end"] = client.reply()
        # Within the ceiling: accepted, and once it found the chain, there is nothing to continue
        client.send("continueRun", runId=run_id, budgets={"searches": 2})
        accepted = client.reply()
        assert client.events_until_terminal(run_id)[-1]["type"] == "final"
        client.send("continueRun", runId=run_id)
        answers["solved"] = client.reply()

    assert (answers["stranger"]["code"], answers["unknown"]["code"]) == ("run_not_found", "run_not_found")
    assert answers["ceiling"]["code"] == "above_ceiling"
    assert "budgets.searches: 3 more on top of the 1 already spent is 4" in answers["ceiling"]["message"]
    assert answers["ceiling"]["ceilings"] == ceilings.dump()  # what a client needs to offer what fits
    assert answers["ceiling"]["spent"]["searches"] == 1
    assert answers["type"]["code"] == "invalid_input" and "budgets.searches" in answers["type"]["message"]
    assert answers["via"]["code"] == "unknown_person"
    assert answers["via"]["suggestions"] == {"via": [BRIDGE]}
    assert answers["end"]["code"] == "invalid_input" and "someone other than" in answers["end"]["message"]
    assert accepted["type"] == "continueAccepted" and accepted["segment"] == 1
    assert answers["solved"]["code"] == "not_continuable"
    assert "already found a chain" in answers["solved"]["message"]
    assert all(a["action"] == "continueRun" for a in answers.values())


def test_a_run_going_is_not_continued(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv, WsClient(srv.ws_url) as client:
        # Given a run held after its first state
        gate.allow(1)
        run_id = client.start(A, B, **SHORT)["runId"]
        gate.wait_until_held()
        # When the client asks to continue it
        client.send("continueRun", runId=run_id)
        refused = client.reply()
        gate.open()
        client.events_until_terminal(run_id)

    assert (refused["code"], refused["action"]) == ("run_in_progress", "continueRun")


def test_a_hint_on_start_is_checked_first_and_reported(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        accepted = client.start(A, B, via=BRIDGE)
        events = client.events_until_terminal(accepted["runId"])
        client.send("startRun", personA=A, personB=B, options={"via": "Dorian Ivesdalle"})
        unknown = client.reply()

    hint = events[-1]["data"]["hint"]
    assert (hint["name"], hint["confirmed"]) == (BRIDGE, True)
    started = events[0]["data"]["options"]
    assert started["via"] == BRIDGE
    assert (unknown["code"], unknown["suggestions"]) == ("unknown_person", {"via": [BRIDGE]})
    assert not any(is_event(m) and m["type"] == "error" for m in events)
