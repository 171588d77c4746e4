"""The page's way on after a budget ran out (issue 13), in Debian's chromium against the local server:
a no_path that may be continued shows "Continue (+N searches)" and a "Try via…" field; each sends
continueRun; the run goes on in the same view (its log continues) to the path, with what each part of
the run spent; a hint is reported confirmed or not. Nothing above the operator's ceilings is offered
(issue 21): a run that spent them is not offered a continuation, and one of a chosen size within
them is accepted. Screenshots: artifacts/continue_*.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser import PHONE, artifact, open_page, start_run, wait_for_seq
from tests.support.ws_server import RunningServer, running_server
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.lifecycle.event_log import EventLog
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

pytestmark = pytest.mark.browser

A, B = EXAMPLE_PAIR
BRIDGE = "Dorian Ivesdale"  # photographed with both
STRANGER = "Quinn Underhill"  # photographed with neither


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    with open_page() as tab:
        yield tab


def start_short_of_searches(page: Any, url: str, *, via: str = "") -> None:
    start_run(page, url, A, B, **{"opt-searches": "1", **({"opt-via": via} if via else {})})


@contextmanager
def ran_out_under_a_ceiling(
    tmp_path: Path, page: Any, *, searches: int
) -> Iterator[tuple[RunningServer, list[str], str]]:
    """A server whose operator allows `searches` searches a run, and a run there that ran out of its
    one search: the server, the frames the page sent, the run id."""
    ceilings = RunCeilings.model_validate({"budgets": {"searches": searches}})
    with running_server(tmp_path / "state", ceilings=ceilings) as srv:
        frames = sent_frames(page)
        start_short_of_searches(page, srv.http_url)
        page.wait_for_selector("#continue-form:not([hidden])")
        yield srv, frames, page.evaluate("window.visualDegrees.run.runId")


def sent_frames(page: Any) -> list[str]:
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: frames.append(str(frame))))
    return frames


def test_continue_after_a_budget_ran_out_goes_on_to_the_path(tmp_path: Path, page: Any) -> None:
    with running_server(tmp_path / "state") as srv:
        frames = sent_frames(page)
        # Given a run that ran out of its one search
        start_short_of_searches(page, srv.http_url)
        page.wait_for_selector("#continue-form:not([hidden])")
        run_id = page.evaluate("window.visualDegrees.run.runId")
        log = EventLog(srv.memory)
        stopped = log.read(run_id)[-1]
        assert stopped.type == "no_path" and stopped.data["continuable"] is True
        # Then the page says why it may go on, offers to continue with the run's own searches
        # again, and to try via someone
        assert page.text_content("#continue-why") == stopped.data["why"]
        assert page.text_content("#continue") == "Continue (+1 search)"
        assert page.is_enabled("#continue") and page.is_visible("#try-via")
        assert page.is_disabled("#start") is False
        page.screenshot(path=str(artifact("continue_offered.png")), full_page=True)

        # When the user continues
        page.click("#continue")
        page.wait_for_function("() => document.querySelector('#continue-form').hidden")
        page.wait_for_selector("#result[data-outcome='path']:not([hidden])")
        events = log.read(run_id)
        wait_for_seq(page, events[-1].seq)
        page.screenshot(path=str(artifact("continue_path.png")), full_page=True)

    # Then it sent continueRun for this run, with its token
    sent = [f for f in frames if '"continueRun"' in f]
    assert len(sent) == 1 and run_id in sent[0] and '"runToken"' in sent[0]
    # And the same view went on (one log, no event twice) to the path, with each part's spend
    final = events[-1]
    assert final.type == "final" and final.data["segment"] == 1
    assert page.text_content("#result-title") == " → ".join(final.data["path"])
    summary = page.text_content("#result-summary")
    assert "first run: 1 search" in summary and "continuation 1: " in summary
    assert page.is_hidden("#continue-form")
    spend = page.text_content("#spend")
    assert "continuation 1:" in spend
    cards = page.eval_on_selector_all("#cards .card", "cards => cards.map(c => c.dataset.photo)")
    assert len(cards) == len(set(cards))


def test_try_via_reports_whether_the_hint_was_confirmed(tmp_path: Path) -> None:
    with running_server(tmp_path / "state") as srv, open_page(PHONE) as page:
        # Given a run that ran out of its one search, on a phone
        start_short_of_searches(page, srv.http_url)
        page.wait_for_selector("#continue-form:not([hidden])")
        # When the user tries a name nobody has, then picks the suggestion, and tries via them
        page.fill("#try-via", "Dorian Ivesdalle")
        # Enter, as typed: the suggestions the field opens ("Dorian Ivesdale") cover the button on a
        # phone once they arrive, and a tap would pick one; with none highlighted, Enter submits.
        page.press("#try-via", "Enter")
        page.wait_for_selector("#did-you-mean:not([hidden]) button")
        assert "'Dorian Ivesdalle' is not anyone in this world" in page.text_content("#error")
        assert "unknown_person" not in page.text_content("#error")
        assert page.text_content("#status") == "Not continued: that name is not in this world."
        page.click("#did-you-mean button")
        assert page.input_value("#try-via") == BRIDGE
        page.click("#continue-via")
        page.wait_for_selector("#result[data-outcome='path']:not([hidden])")
        page.wait_for_selector("#result-hint:not([hidden])")
        page.screenshot(path=str(artifact("continue_via_phone.png")), full_page=True)
        hint = page.text_content("#result-hint")
        confirmed = page.get_attribute("#result-hint", "data-confirmed")
        links = page.eval_on_selector_all("#hint-links li", "items => items.map(i => i.textContent)")
        width = page.evaluate("document.documentElement.scrollWidth")

    # Then the page says the hint was confirmed, with the photos that show it
    assert hint == f"Your hint, {BRIDGE}: Confirmed: the chain goes through {BRIDGE}."
    assert confirmed == "true"
    assert links and all(BRIDGE in link for link in links)
    assert width <= 390  # nothing wider than the phone


def test_a_hint_on_start_that_is_not_confirmed_says_so(tmp_path: Path, page: Any) -> None:
    with running_server(tmp_path / "state") as srv:
        start_run(page, srv.http_url, A, B, **{"opt-via": STRANGER})
        page.wait_for_selector("#result-hint:not([hidden])")
        hint = page.text_content("#result-hint")
        confirmed = page.get_attribute("#result-hint", "data-confirmed")
        page.screenshot(path=str(artifact("continue_hint_unconfirmed.png")), full_page=True)

    assert confirmed == "false"
    assert hint == f"Your hint, {STRANGER}: Not confirmed: no photo was found of {STRANGER} with {A} or {B}."


def test_a_run_that_spent_the_ceiling_is_offered_no_continuation(tmp_path: Path, page: Any) -> None:
    # Given a server whose operator allows one search a run, and a run that asked for it and spent it
    with ran_out_under_a_ceiling(tmp_path, page, searches=1) as (srv, frames, run_id):
        stopped = EventLog(srv.memory).read(run_id)[-1]
        page.screenshot(path=str(artifact("continue_at_the_ceiling.png")), full_page=True)

        # Then the page says why the run stopped and that it cannot go on here, and offers nothing
        # the server would refuse: no Continue, no amount, no Try via
        assert stopped.type == "no_path" and stopped.data["continuable"] is True
        assert page.text_content("#continue-why") == (
            f"{stopped.data['why']} This run has spent what this server allows one run (1 search), so it "
            "cannot go on here; a new run reuses every photo already recognised."
        )
        assert page.is_hidden("#continue") and page.is_hidden("#continue-searches")
        assert page.is_hidden("#try-via") and page.is_hidden("#continue-via")
        assert page.is_enabled("#start")
    assert not [f for f in frames if '"continueRun"' in f]


def test_a_continuation_of_a_chosen_size_within_the_ceiling_is_accepted(tmp_path: Path, page: Any) -> None:
    # Given a server whose operator allows three searches a run, and a run that spent one
    with ran_out_under_a_ceiling(tmp_path, page, searches=3) as (srv, frames, run_id):
        # Then it offers the run's own searches again, and at most the two the ceiling leaves
        assert page.input_value("#continue-searches") == "1"
        assert page.text_content("#continue") == "Continue (+1 search)"
        assert page.get_attribute("#continue-searches", "max") == "2"
        assert page.text_content("#continue-room") == "up to 2 under this server's ceiling"

        # When the user types more than fits, the offer stays within the ceiling
        page.fill("#continue-searches", "40")
        assert page.text_content("#continue") == "Continue (+2 searches)"
        page.locator("#continue-searches").blur()
        assert page.input_value("#continue-searches") == "2"
        # And continues with two more searches
        page.click("#continue")
        page.wait_for_selector("#result[data-outcome='path']:not([hidden])")
        events = EventLog(srv.memory).read(run_id)
        wait_for_seq(page, events[-1].seq)

    # Then the page asked for two searches and, for the rest, the run's own budgets within the ceilings
    (sent,) = [json.loads(f) for f in frames if '"continueRun"' in f]
    assert sent["budgets"] == {"searches": 2, "recognitions": 120, "llmCalls": 12, "runtimeSeconds": 120}
    # And the server accepted it: the run went on with two more searches to its path, no refusal shown
    continued = next(e for e in events if e.type == "run_continued")
    assert continued.data["budgets"]["searches"] == 2
    assert events[-1].type == "final" and page.is_hidden("#error")


def test_a_refusal_above_the_ceiling_brings_the_offer_within_it(tmp_path: Path, page: Any) -> None:
    # Given a server allowing three searches a run, a run that spent one, and a page (reloaded) that
    # believes the ceiling is 100: the ceilings this browser keeps with its run are out of date
    with ran_out_under_a_ceiling(tmp_path, page, searches=3) as (_srv, frames, _run_id):
        page.evaluate(
            """() => {
              const runs = JSON.parse(localStorage.getItem('vd.runs'));
              runs[0].ceilings.budgets.searches = 100;
              localStorage.setItem('vd.runs', JSON.stringify(runs));
            }"""
        )
        page.reload()
        page.wait_for_selector("#continue-form:not([hidden])")
        assert page.text_content("#continue-room") == "up to 99 under this server's ceiling"
        # When the user asks for five more searches
        page.fill("#continue-searches", "5")
        page.click("#continue")
        page.wait_for_selector("#error:not([hidden])")

        # Then the server's refusal is shown, and the offer is worked out again from what it said
        refusal = page.text_content("#error") or ""
        assert "above the operator's ceiling of 3" in refusal and "above_ceiling" not in refusal
        assert page.text_content("#continue-room") == "up to 2 under this server's ceiling"
        assert page.get_attribute("#continue-searches", "max") == "2"
        assert page.text_content("#continue") == "Continue (+1 search)"
        assert page.is_enabled("#continue")
    assert [json.loads(f)["budgets"]["searches"] for f in frames if '"continueRun"' in f] == [5]
