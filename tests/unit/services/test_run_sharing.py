"""Share tokens: read-only access to one run (services/run_sharing.py, the rules in run_access.py and
their use in the protocol's use case, over fakes of its ports)."""

from __future__ import annotations

import json
import re

import pytest

from tests.unit.handlers.test_runs_api import ALICE, BOB, start, world_
from visual_degrees.domain.errors import RunNotFound
from visual_degrees.protocol import (
    READ_ONLY,
    CancelRun,
    ContinueRun,
    GetGraph,
    GetRun,
    ProtocolError,
    StartRun,
    Subscribe,
)
from visual_degrees.services import run_sharing
from visual_degrees.services.event_log import run_pk
from visual_degrees.services.run_access import RunAccess
from visual_degrees.services.runs_api import Caller

URL_SAFE = re.compile(r"^[A-Za-z0-9_-]+$")


def _shared_run(world) -> tuple[str, str, str]:
    """Alice's run: its id, run token and share token (from runAccepted)."""
    run_id = start(world)
    accepted = world.connections.sent[ALICE.connection_id][0]
    return run_id, accepted["runToken"], accepted["shareToken"]


# ---- the token ------------------------------------------------------------------------------------


def test_a_share_token_is_192_random_bits_in_url_safe_characters():
    tokens = {run_sharing.new_share_token() for _ in range(2_000)}
    assert len(tokens) == 2_000
    assert all(len(t) == 32 and URL_SAFE.match(t) for t in tokens)


@pytest.mark.parametrize("offered", [None, "", "x", "A" * 32, "A" * 10_000])
def test_only_the_token_whose_digest_is_stored_matches(offered):
    token = run_sharing.new_share_token()
    stored = run_sharing.digest(token)
    assert run_sharing.matches(stored, token)
    assert not run_sharing.matches(stored, offered)
    assert not run_sharing.matches(stored, token[:-1])
    assert not run_sharing.matches(None, token) and not run_sharing.matches("", token)


def test_a_viewer_is_named_by_the_run_it_may_view_and_a_client_is_no_viewer():
    assert run_sharing.viewed_run(run_sharing.viewer_id("20261125T101500-3f9c1d")) == "20261125T101500-3f9c1d"
    assert run_sharing.viewed_run("default") is None


# ---- who may read a run ---------------------------------------------------------------------------


def test_the_run_record_keeps_the_share_tokens_digest_never_the_token():
    world = world_()
    run_id, run_token, share = _shared_run(world)
    record = world.memory.get(run_pk(run_id), "owner")
    assert record is not None
    text = json.dumps(record.data)
    assert share not in text and run_token not in text
    assert record.data[run_sharing.RECORD_FIELD] == run_sharing.digest(share)
    assert share != run_token


def test_a_share_token_reads_its_run_but_neither_controls_it_nor_opens_another():
    # Given Alice's two runs
    world = world_()
    run_id, _, share = _shared_run(world)
    other = start(world)
    access = RunAccess(world.memory)
    # Then Bob, holding the first run's share token, may read that run
    assert access.readable(run_id, BOB.client_id, share_token=share)["clientId"] == ALICE.client_id
    assert access.shared(run_id, share)
    # But not as its run token (the rule of cancel and continue), nor the other run
    with pytest.raises(RunNotFound):
        access.record(run_id, BOB.client_id, share)
    with pytest.raises(RunNotFound):
        access.readable(other, BOB.client_id, share_token=share)
    assert not access.shared(other, share)
    # And a viewer of the first run reads it with no token at all, and only it
    viewer = run_sharing.viewer_id(run_id)
    assert access.readable(run_id, viewer)
    with pytest.raises(RunNotFound):
        access.readable(other, viewer)


# ---- the protocol's use case ---------------------------------------------------------------------


def test_a_share_token_lets_another_client_watch_get_and_read_the_graph_of_the_run():
    # Given Alice's run and Bob holding its share token
    world = world_()
    run_id, _, share = _shared_run(world)
    # When Bob subscribes, gets the run and its graph with it
    world.api.handle(BOB, Subscribe(action="subscribe", run_id=run_id, share_token=share))
    world.api.handle(BOB, GetRun(action="getRun", run_id=run_id, share_token=share))
    world.api.handle(BOB, GetGraph(action="getGraph", run_id=run_id, share_token=share))
    # Then he is subscribed and answered
    assert (BOB.connection_id, run_id, 1800) in world.connections.subscribed
    assert world.connections.types(BOB.connection_id)[0] == "subscribed"
    assert {"run", "graph"} <= set(world.connections.types(BOB.connection_id))


@pytest.mark.parametrize(
    "message",
    [
        lambda run_id, share: CancelRun(action="cancelRun", run_id=run_id, run_token=share),
        lambda run_id, share: ContinueRun(action="continueRun", run_id=run_id, run_token=share),
    ],
)
def test_a_share_token_cannot_cancel_or_continue_its_run(message):
    world = world_()
    run_id, _, share = _shared_run(world)
    with pytest.raises(RunNotFound) as refused:
        world.api.handle(BOB, message(run_id, share))
    assert share not in refused.value.message
    assert world.executions.stopped == [] and world.connections.sent.get(BOB.connection_id) is None


@pytest.mark.parametrize(
    "message",
    [
        StartRun(action="startRun", person_a="Vesna Hawthorne", person_b="Niall Halloran"),
        CancelRun(action="cancelRun", run_id="RUN"),
        ContinueRun(action="continueRun", run_id="RUN"),
    ],
)
def test_a_viewers_connection_may_not_start_cancel_or_continue_runs(message):
    # Given a connection a share token opened for Alice's run
    world = world_()
    run_id, _, _ = _shared_run(world)
    viewer = Caller("conn-viewer", run_sharing.viewer_id(run_id))
    if hasattr(message, "run_id"):
        message = message.model_copy(update={"run_id": run_id})
    # When it asks for more than reading
    with pytest.raises(ProtocolError) as refused:
        world.api.handle(viewer, message)
    # Then it is refused as read-only, and nothing started, stopped or was asked to stop
    assert refused.value.code == READ_ONLY
    assert list(world.executions.started) == [run_id] and world.executions.stopped == []
    assert world.connections.sent.get("conn-viewer") is None


def test_a_viewers_connection_reads_its_run_and_no_other():
    world = world_()
    run_id, _, _ = _shared_run(world)
    other = start(world)
    viewer = Caller("conn-viewer", run_sharing.viewer_id(run_id))
    world.api.handle(viewer, GetRun(action="getRun", run_id=run_id))
    assert world.connections.types("conn-viewer") == ["run"]
    with pytest.raises(RunNotFound):
        world.api.handle(viewer, Subscribe(action="subscribe", run_id=other))
    with pytest.raises(RunNotFound):
        world.api.handle(viewer, GetGraph(action="getGraph", run_id=other))
