"""Every way a run can end, as the page tells it (issue 21.4), in Debian's chromium against the local
server: a path, no path because a budget ran out, because nobody new could be tried, because of the
hop limit, a cancelled run and a failed one. Each says what happened and what the user can do next,
in words: no error code, no field name of the protocol. Screenshots: artifacts/ending_*.png."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser import artifact, open_page, start_run
from tests.support.ws_server import Gate, bundled_sandbox, running_server
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR

pytestmark = pytest.mark.browser

A, B = EXAMPLE_PAIR
CODE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")  # unknown_person, candidates_exhausted, provider_unavailable
INTERNAL_NAMES = (
    "llmCalls", "maxHops", "personA", "personB", "runToken", "shareToken", "continuable", "exhausted",
    "unseenEnd", "partialPath", "budgets.", "options.", "Stopped by", "(via)", "hop_limit",
)  # fmt: skip
# An island: nobody in a photo with anyone of the other event, so a run finds nobody new to try.
ISLANDS = [
    {"title": "First Night (2001)", "people": ["Ada Quill", "Bo Reed"]},
    {"title": "Other Night (2002)", "people": ["Cy Moss", "Dee Lark"]},
]


def ended(page: Any, outcome: str, name: str) -> dict[str, str]:
    """The ending as shown, once it is: each part's text, and everything the page says about it."""
    page.wait_for_selector(f"#result[data-outcome='{outcome}']:not([hidden])")
    page.screenshot(path=str(artifact(f"ending_{name}.png")), full_page=True)
    parts = {part: page.inner_text(f"#{part}") for part in ("result-title", "result-message", "result-next")}
    shown = [page.inner_text("#result"), page.inner_text("#status")]
    shown += [page.inner_text(f"#{box}") for box in ("error", "continue-form") if page.is_visible(f"#{box}")]
    return {**parts, "all": "\n".join(shown)}


def assert_in_words(ending: dict[str, str], next_step: str) -> None:
    said = ending["all"]
    assert not CODE.search(said), CODE.search(said)
    assert not [name for name in INTERNAL_NAMES if name in said], said
    assert ending["result-message"].strip() and ending["result-next"].strip()
    assert next_step in ending["result-next"], ending["result-next"]


def bundled(tmp_path: Path, run: Callable[[Any, str], dict[str, str]], **server: Any) -> dict[str, str]:
    with running_server(tmp_path / "state", **server) as srv, open_page() as page:
        return run(page, srv.http_url)


def test_a_path_says_what_to_do_next(tmp_path: Path) -> None:
    def run(page: Any, url: str) -> dict[str, str]:
        start_run(page, url, A, B)
        return ended(page, "path", "path")

    ending = bundled(tmp_path, run)
    assert ending["result-message"] == "2 hops, every one proven by a photo of both people."
    assert_in_words(ending, "Share it with its link")


def test_no_path_when_the_searches_budget_ran_out(tmp_path: Path) -> None:
    def run(page: Any, url: str) -> dict[str, str]:
        start_run(page, url, A, B, **{"opt-searches": "1"})
        return ended(page, "no-path", "budget")

    ending = bundled(tmp_path, run)
    assert ending["result-message"] == "The searches budget ran out before a chain was proven."
    assert_in_words(ending, "Continue it below with more searches")


def test_no_path_when_nobody_new_could_be_tried(tmp_path: Path) -> None:
    world = tmp_path / "islands.jsonl"
    world.write_text("\n".join(json.dumps(line) for line in ISLANDS), encoding="utf-8")

    def run(page: Any, url: str) -> dict[str, str]:
        start_run(page, url, "Ada Quill", "Dee Lark")
        return ended(page, "no-path", "nobody_new")

    ending = bundled(tmp_path, run, sandbox=sandbox_environment(world))
    assert ending["result-message"] == (
        "No photo could be found showing Ada Quill with anyone, and every chain needs one."
    )
    assert_in_words(ending, "Try via")


def test_no_path_at_the_hop_limit(tmp_path: Path) -> None:
    def run(page: Any, url: str) -> dict[str, str]:
        start_run(page, url, *FAR_PAIR, **{"opt-max-hops": "1"})
        return ended(page, "no-path", "hop_limit")

    ending = bundled(tmp_path, run)
    assert ending["result-message"].startswith("No chain within 1 hop")
    assert_in_words(ending, "higher Max hops")


def test_a_cancelled_run(tmp_path: Path) -> None:
    gate = Gate(bundled_sandbox())

    def run(page: Any, url: str) -> dict[str, str]:
        gate.allow(1)
        start_run(page, url, A, B)
        gate.wait_until_held()
        page.wait_for_function("() => window.visualDegrees.run && window.visualDegrees.run.lastSeq >= 2")
        page.click("#cancel")
        page.wait_for_selector("#status >> text=Cancelling")
        gate.open()
        return ended(page, "cancelled", "cancelled")

    ending = bundled(tmp_path, run, environment=gate)
    assert ending["result-message"] == "The run was cancelled before it found a chain."
    assert_in_words(ending, "Start it again with Find a chain")


def test_a_failed_run(tmp_path: Path) -> None:
    failing = sandbox_environment(None, faults="search_5xx=1.0")

    def run(page: Any, url: str) -> dict[str, str]:
        start_run(page, url, A, B)
        return ended(page, "failed", "error")

    ending = bundled(tmp_path, run, sandbox=failing)
    assert ending["result-title"] == "The run failed"
    assert ending["result-message"].startswith("image search failed")  # the server's words, without its code
    assert_in_words(ending, "Start it again with Find a chain")
