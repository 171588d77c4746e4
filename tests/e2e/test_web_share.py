"""A run's own address and its share link, in Debian's chromium against the local server: the page
shows `?run=ID` for every run it starts and lists them under "Your runs"; the share link, opened in
another browser context (no storage shared), replays the run (path, evidence cards, graph)
read-only; a run opened without its share token stays unreadable, with a clear message, because the
server refuses it. Screenshots: artifacts/share_*.png."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser import artifact, open_page, start_run, wait_for_seq
from tests.support.ws_client import WsClient
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

pytestmark = pytest.mark.browser

A, B = EXAMPLE_PAIR


def what_it_shows(page: Any) -> dict[str, Any]:
    """The run as the page shows it: the ending, the evidence cards, the graph's people and chain."""
    return {
        "title": page.text_content("#result-title"),
        "message": page.text_content("#result-message"),
        "path": page.inner_text("#path"),
        "cards": page.eval_on_selector_all("#cards .card", "cs => cs.map(c => c.dataset.photo)"),
        "people": sorted(page.eval_on_selector_all("#graph .node title", "ts => ts.map(t => t.textContent)")),
        "chain": len(page.query_selector_all("#graph .node.on-path")),
        "links": len(page.query_selector_all("#graph .edge")),
    }


def received(page: Any) -> list[dict[str, Any]]:
    """Every message the page receives over its WebSockets, parsed."""
    frames: list[dict[str, Any]] = []

    def keep(frame: Any) -> None:
        payload = frame if isinstance(frame, str) else getattr(frame, "payload", frame)
        with contextlib.suppress(TypeError, ValueError):
            frames.append(json.loads(payload))

    page.on("websocket", lambda ws: ws.on("framereceived", keep))
    return frames


def test_a_share_link_opened_in_another_browser_replays_the_run(tmp_path: Path) -> None:
    with running_server(tmp_path / "state") as srv:
        log = EventLog(srv.memory)
        with open_page() as mine:
            # Given a user who found a chain on the page
            start_run(mine, srv.http_url, A, B)
            mine.wait_for_selector("#result[data-outcome='path']:not([hidden])")
            run_id = mine.evaluate("window.visualDegrees.run.runId")
            wait_for_seq(mine, log.last_seq(run_id))
            shown = what_it_shows(mine)
            # Then the address bar is the run's own address, the run is listed under Your runs, and
            # its share link is offered
            assert mine.url == f"{srv.http_url}?run={run_id}"
            mine.click("#my-runs summary")
            assert mine.is_visible("#my-runs-list a")
            assert mine.text_content("#my-runs-list a") == f"{A} → {B}"
            assert mine.get_attribute("#my-runs-list a", "href") == f"?run={run_id}"
            share_url = mine.input_value("#share-url")
            assert share_url.startswith(f"{srv.http_url}?run={run_id}#share=")
            token = share_url.split("#share=", 1)[1]
            mine.screenshot(path=str(artifact("share_starter.png")), full_page=True)
            # And a reload replays it from its address, the same as before
            mine.reload()
            mine.wait_for_selector("#result[data-outcome='path']:not([hidden])")
            wait_for_seq(mine, log.last_seq(run_id))
            assert what_it_shows(mine) == shown
            assert mine.is_hidden("#viewing")

        # When the link is opened in another browser, which has never seen the run
        with open_page() as theirs:
            requests: list[str] = []
            theirs.on("request", lambda request: requests.append(request.url))
            theirs.goto(share_url)
            theirs.wait_for_selector("#result[data-outcome='path']:not([hidden])")
            wait_for_seq(theirs, log.last_seq(run_id))
            theirs.screenshot(path=str(artifact("share_friend.png")), full_page=True)

            # Then it shows the same run: the path hop by hop, every evidence card, the same graph
            assert what_it_shows(theirs) == shown
            assert shown["chain"] == len(log.read(run_id)[-1].data["path"]) and shown["cards"]
            # Read-only, and saying so: nothing to cancel or continue, no runs of its own listed
            assert theirs.is_visible("#viewing")
            assert theirs.is_disabled("#cancel") and theirs.is_hidden("#continue-form")
            assert theirs.is_hidden("#my-runs")
            # And the token stayed in the fragment: no page, script or photo request carried it
            assert requests and not [url for url in requests if token in url]


def test_a_run_opened_without_its_share_token_stays_unreadable(tmp_path: Path) -> None:
    with running_server(tmp_path / "state") as srv:
        # Given two finished runs someone else started
        with WsClient(srv.ws_url) as owner:
            first = owner.start(A, B)
            owner.events_until_terminal(first["runId"])
            second = owner.start(A, B)
            owner.events_until_terminal(second["runId"])

        with open_page() as page:
            frames = received(page)
            # When a stranger opens the first run's address without its share token
            page.goto(f"{srv.http_url}?run={first['runId']}")
            page.wait_for_selector("#error:not([hidden])")
            page.screenshot(path=str(artifact("share_foreign.png")), full_page=True)
            # Then the server refused it, and the page says why and what to do, showing nothing of it
            refusals = [f for f in frames if f.get("type") == "error"]
            assert [(r["code"], r["action"]) for r in refusals] == [("run_not_found", "subscribe")]
            error = page.text_content("#error") or ""
            assert "not open to this browser" in error
            assert "Ask whoever started it for its share link" in error
            assert page.text_content("#status") == "This run cannot be shown here."
            assert page.is_hidden("#result") and page.query_selector_all("#cards .card") == []
            assert page.is_hidden("#viewing") and page.is_hidden("#share")
            assert page.query_selector_all("#graph .edge") == []

            # When they open the second run with the first run's share token
            frames.clear()
            page.goto(f"{srv.http_url}?run={second['runId']}#share={first['shareToken']}")
            page.wait_for_selector("#error:not([hidden])")
            # Then the server refuses that too, and the page says the link opens no run here
            assert [f.get("code") for f in frames if f.get("type") == "error"] == ["run_not_found"]
            assert "This share link opens no run here" in (page.text_content("#error") or "")
            assert page.is_hidden("#viewing") and page.is_hidden("#share")
            assert page.query_selector_all("#cards .card") == []


def test_a_viewer_follows_a_run_live_on_a_server_that_wants_a_token(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())
    with (
        running_server(tmp_path / "state", environment=gate, token="s3cret") as srv,
        WsClient(srv.ws_url + "?token=s3cret") as owner,
    ):
        log = EventLog(srv.memory)
        # Given a run that is going (held between two states), started by a client with the token
        gate.allow(3)
        accepted = owner.start(A, B)
        run_id = accepted["runId"]
        gate.wait_until_held()
        with open_page() as page:
            # When its share link is opened (the page has no client token: the share token opens a
            # viewer's connection)
            page.goto(f"{srv.http_url}?run={run_id}#share={accepted['shareToken']}")
            wait_for_seq(page, log.last_seq(run_id))
            # Then the page follows it, and offers no Cancel
            assert page.is_visible("#viewing") and page.is_disabled("#cancel")
            # And sees it to its end as it goes on
            gate.open()
            page.wait_for_selector("#result[data-outcome='path']:not([hidden])")
            wait_for_seq(page, log.last_seq(run_id))
            assert page.text_content("#result-title") == " → ".join(log.read(run_id)[-1].data["path"])
            assert page.is_disabled("#cancel") and page.is_hidden("#continue-form")
