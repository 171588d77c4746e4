"""`visual-degrees show RUN_ID`: a past run's answer printed again, whatever way it ended and however
long ago; and every ending says, in words, what happened and what the user can do next."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from tests.support.ws_client import WsClient, is_terminal
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees_tools.cli import main
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR

A, B = EXAMPLE_PAIR
# What no message a user reads may carry: error codes, outcome codes, wire field names.
CODES = re.compile(r"provider_unavailable|no_path|candidates_exhausted|unknown_person|llmCalls|\(\w+_\w+\)")


def ran(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["run", *argv])
    out = capsys.readouterr().out
    return code, out, re.search(r"run id (\S+)", out)[1]


def shown(capsys: pytest.CaptureFixture[str], run_id: str, *more: str) -> str:
    assert main(["show", run_id, *more]) == 0
    return capsys.readouterr().out


def expire_run_memory(state_dir: Path) -> None:
    """As the run memory's TTL would, later: every item that has an expiry is past it."""
    with sqlite3.connect(state_dir / "memory.sqlite3") as db:
        db.execute("UPDATE items SET expires_at = 1 WHERE expires_at IS NOT NULL")


def test_show_prints_a_found_chain_again_after_the_runs_memory_has_expired(state_dir, capsys) -> None:
    # Given a run that found a chain, and what it printed when it ended
    code, out, run_id = ran(capsys, A, B)
    answer = out[out.index("Path (") : out.index("run id")]
    assert code == 0

    # When its memory has expired and the user asks for it again
    expire_run_memory(state_dir)
    again = shown(capsys, run_id)

    # Then the same answer is printed: the chain, each link's photo (image and page) and
    # confidences, the spend; under a heading that says who, when, where and how it ended
    assert answer in again
    assert again.startswith(f"Run {run_id}: {A} → {B}\nstarted ")
    assert "world bundled · found a path" in again
    assert again.count("      image https://") == again.count("      page  https://") == 2
    assert again.rstrip().endswith(f"how it ran, state by state: visual-degrees trace {run_id}")


def test_show_of_a_run_that_stopped_on_a_budget_and_was_continued(state_dir, capsys) -> None:
    # Given a run that ran out of searches
    code, _, run_id = ran(capsys, *FAR_PAIR, "--budget-searches", "1")
    assert code == 3
    # Then show says so, and how to continue it
    first = shown(capsys, run_id)
    assert "No path: The searches budget ran out before a chain was proven." in first
    assert f"continue with: visual-degrees run --continue {run_id} --budget-searches 20" in first

    # When it is continued to its end
    assert main(["run", "--continue", run_id, "--budget-searches", "20"]) in (0, 3)
    capsys.readouterr()
    # Then show tells the run's latest ending, that it was continued, and each part's spend
    later = shown(capsys, run_id)
    assert "continued 1 time" in later
    assert "Spent (first run): 1 search ·" in later and "Spent (continuation 1): " in later


def test_show_of_a_failed_run_says_why_in_words_and_how_to_start_again(state_dir, capsys) -> None:
    code, out, run_id = ran(capsys, A, B, "--faults", "search_5xx=1.0", "--seed", "3")
    assert code == 1
    again = shown(capsys, run_id)
    assert "world bundled seed 3 · failed" in again
    assert "Run failed: image search failed 4 times in a row (the service did not answer)" in again
    assert "start it again" in again
    assert f"visual-degrees run '{A}' '{B}' --seed 3 --faults search_5xx=1" in again
    # And neither `run` nor `show` nor `trace` named an error code
    assert main(["trace"]) == 0
    listing = capsys.readouterr().out
    assert main(["trace", run_id]) == 0
    history = capsys.readouterr().out
    for text in (out, again, listing):
        assert not CODES.search(text), text
    assert "· failed ·" in history


def test_show_of_a_run_cancelled_on_the_server(tmp_path: Path, capsys) -> None:
    # Given a run started and cancelled through the local server
    gate = Gate(bundled_sandbox())
    with running_server(tmp_path, environment=gate) as srv, WsClient(srv.ws_url) as client:
        run_id = client.start(A, B)["runId"]
        gate.wait_until_held()
        client.send("cancelRun", runId=run_id)
        assert client.reply()["type"] == "cancelRequested"
        gate.open()
        client.until(is_terminal)
    # Then show says it was cancelled and how to ask again
    again = shown(capsys, run_id, "--state-dir", str(tmp_path))
    assert f"Run {run_id}: {A} → {B}" in again and "· cancelled" in again
    assert "Run cancelled: it was stopped before it found a chain." in again
    start_again = "The run was cancelled; start it again (a new run reuses every photo this one recognised)"
    assert f"{start_again}:\n  visual-degrees run '{A}' '{B}'" in again


def test_show_reads_the_event_log_of_a_run_recorded_before_endings_were_kept(state_dir, capsys) -> None:
    _, out, run_id = ran(capsys, A, B)
    with sqlite3.connect(state_dir / "memory.sqlite3") as db:
        db.execute("DELETE FROM items WHERE sk = 'ending'")
    assert out[out.index("Path (") : out.index("Spent")] in shown(capsys, run_id)
    expire_run_memory(state_dir)
    assert "How the run ended was not kept (its memory has expired)." in shown(capsys, run_id)


def test_show_as_json_gives_the_record_and_the_ending(state_dir, capsys) -> None:
    _, _, run_id = ran(capsys, A, B)
    answer = json.loads(shown(capsys, run_id, "--json"))
    assert answer["run"]["runId"] == run_id and answer["run"]["outcome"] == "path"
    assert answer["ending"]["type"] == "final" and answer["ending"]["data"]["path"][0] == A


def test_an_unknown_run_is_refused_with_where_to_find_runs(state_dir, capsys) -> None:
    assert main(["show", "nope"]) == 2
    assert "no local runs yet" in capsys.readouterr().err
    ran(capsys, A, B)
    assert main(["show", "20260101T000000-000000"]) == 2
    assert (
        "error: no run '20260101T000000-000000' here; `visual-degrees trace` lists the recent runs"
        in capsys.readouterr().err
    )


def test_a_provider_that_is_not_set_up_is_told_without_its_code(state_dir, capsys, monkeypatch) -> None:
    for name in ("VD_CONFIG_FILE", "VD_BRAVE_API_KEY", "VD_GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VD_SEARCH_ENGINE", "brave")
    assert main(["run", "Kevin Bacon", "Tom Hanks", "--providers", "live"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("visual-degrees: error: brave image search is not configured")
    assert "configuration_error" not in err


def test_a_run_made_by_the_server_on_a_world_file_is_shown_and_continued_on_that_world(
    tmp_path: Path, capsys
) -> None:
    # Given a server on a world file's clean web (where Kevin Bacon is seen in a photo with someone,
    # so the run may be continued without a hint), and a run of it that spent its one search and one
    # recognition
    world = tmp_path / "credits.txt"
    world.write_text(
        "Footloose (1984)/Bacon, Kevin (I)/Lithgow, John\nA Gala (1999)/Lithgow, John/Andrews, Julie (I)\n"
    )
    state = tmp_path / "state"
    clean = sandbox_environment(world, web="clean")
    with running_server(state, sandbox=clean) as srv, WsClient(srv.ws_url) as client:
        least = {"searches": 1, "recognitions": 1}
        run_id = client.start("Kevin Bacon", "Julie Andrews", budgets=least)["runId"]
        client.until(is_terminal)
    # Then show offers to continue it, or to ask again on that very world
    again = shown(capsys, run_id, "--state-dir", str(state))
    assert "world credits.txt" in again and f"continue with: visual-degrees run --continue {run_id}" in again
    # And the command line continues it on that world and web without being told which
    code = main(["--state-dir", str(state), "run", "--continue", run_id, "--budget-searches", "5"])
    assert code in (0, 3)
    assert "run_continued" not in capsys.readouterr().err
