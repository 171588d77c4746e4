"""Zombie runs (issue 9.6), with a real `visual-degrees serve` process: runs in flight when the server
is killed with SIGKILL are ended when it starts again on the same state directory, with one `error`
event (code `server_stopped`) that `getRun`, `subscribe` and `trace` all tell, and `cancelRun` finds
nothing left to stop. Before: all 14 stayed `running` for ever."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.support.ws_client import WsClient, is_event
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

RUNS = 14
PER_CONNECTION = 4  # the server's per-connection cap on unfinished runs
GUARD_SECONDS = 60.0
CLI = [sys.executable, "-c", "import sys; from visual_degrees_tools.cli import main; sys.exit(main())"]
_URL = re.compile(r"\(WebSocket (ws://\S+)\)")


@contextmanager
def serve(state_dir: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`visual-degrees serve` in its own process on a free port; its WebSocket URL once listening."""
    process = subprocess.Popen(
        [*CLI, "--state-dir", str(state_dir), "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "Visual Degrees: open http://… (WebSocket ws://…/ws)"
        found = _URL.search(line)
        assert found, (line, process.stderr.read() if process.poll() is not None else "")
        yield process, found.group(1)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(GUARD_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def trace(state_dir: Path, *args: str) -> dict | list:
    done = subprocess.run(
        [*CLI, "--state-dir", str(state_dir), "trace", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        check=True,
    )
    return json.loads(done.stdout)


def test_runs_in_flight_when_the_server_is_killed_are_ended_when_it_starts_again(tmp_path: Path) -> None:
    a, b = EXAMPLE_PAIR
    accepted: list[dict] = []
    # Given a server pacing its runs slowly (a simulated second takes ten real ones)
    with serve(tmp_path, "--speed", "0.1") as (process, url), ExitStack() as clients:
        # With 14 runs accepted over four connections (8 of them executing, 6 waiting their turn)
        # (their server will not answer a closing handshake: give up on it at once)
        connections = [
            clients.enter_context(WsClient(url, close_timeout=0.1)) for _ in range(-(-RUNS // PER_CONNECTION))
        ]
        for n in range(RUNS):
            reply = connections[n // PER_CONNECTION].start(a, b)
            assert reply["type"] == "runAccepted", reply
            accepted.append(reply)
        started = connections[0].until(lambda m: is_event(m) and m["type"] == "status")
        assert not any(m.get("type") in ("final", "no_path", "error", "cancelled") for m in started)
        # When the server is killed outright, with no chance to clean up
        process.send_signal(signal.SIGKILL)
        process.wait(GUARD_SECONDS)

    # And a new server starts on the same state directory
    with serve(tmp_path, "--speed", "0.1") as (_, url):
        for run in accepted:
            client = WsClient(url)  # a connection each: a client asking this much is rate-limited
            run_id, token = run["runId"], run["runToken"]
            # Then getRun says the run failed, because the server stopped, and what it had spent
            client.send("getRun", runId=run_id, runToken=token)
            described = client.reply()
            assert described["status"] == "failed", described
            assert described["executionStatus"] == "FAILED"
            ending = described["final"]
            assert ending["type"] == "error" and ending["data"]["code"] == "server_stopped"
            assert "server stopped" in ending["data"]["message"]
            assert set(ending["data"]["usage"]) >= {"searches", "recognitions", "costUsd"}
            # And subscribe replays the run, gap-free, ending with that same event, exactly once
            client.send("subscribe", runId=run_id, fromSeq=1, runToken=token)
            subscribed = client.reply()
            assert subscribed["type"] == "subscribed", subscribed
            replay = client.until(lambda m: is_event(m) and m["type"] == "error")
            assert [e["seq"] for e in replay] == list(range(1, len(replay) + 1))
            assert replay[-1] == ending
            # And cancelRun has nothing left to stop: the ending stays the one it was
            client.send("cancelRun", runId=run_id, runToken=token)
            assert client.reply() == {"type": "cancelRequested", "runId": run_id}
            client.send("getRun", runId=run_id, runToken=token)
            after = client.reply()
            assert (after["status"], after["lastSeq"], after["final"]) == ("failed", ending["seq"], ending)
            client.close()

    # And `trace` lists every one as failed, with the reason in its history
    listed = {r["runId"]: r for r in trace(tmp_path)}
    for run in accepted:
        assert listed[run["runId"]]["status"] == "FAILED" and listed[run["runId"]]["outcome"] == "error"
    history = trace(tmp_path, accepted[0]["runId"])
    (failed,) = [e for e in history["events"] if e["type"] == "ExecutionFailed"]
    assert failed["executionFailedEventDetails"]["error"] == "ServerStopped"
