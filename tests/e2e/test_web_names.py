"""Names on the page, in Debian's chromium against the local server: the world it serves and that
world's example pair, suggestions as you type (keyboard and pointer), `did you mean` on an unknown
name with a status line that does not claim the run is starting, and a page talking to another API
saying it cannot suggest. Screenshots go to artifacts/."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.browser import PHONE, artifact, open_page
from tests.support.ws_server import running_server
from visual_degrees_tools.local.environments import SandboxEnvironment, sandbox_environment

pytestmark = pytest.mark.browser

CAST = [
    "Footloose (1984)/Bacon, Kevin (I)/Singer, Lori/Lithgow, John",
    "Tremors (1990)/Bacon, Kevin (I)/Ward, Fred/Gross, Michael (I)",
    "Mary Poppins (1964)/Andrews, Julie (I)/Van Dyke, Dick/Tomlinson, David",
    "The Sound of Music (1965)/Andrews, Julie (I)/Plummer, Christopher",
    "A Gala (1999)/Lithgow, John/Van Dyke, Dick/Kline, Kevin",
    "Another Gala (2001)/Costner, Kevin/Kline, Kevin/Ward, Fred",
    "Markup Night (2002)/Ada <img src=x onerror=window.__pwned=1>/Singer, Lori",
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> SandboxEnvironment:
    path = tmp_path_factory.mktemp("world") / "tiny.cast.txt"
    path.write_text("\n".join(CAST) + "\n", encoding="utf-8")
    return sandbox_environment(path)


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    with open_page() as tab:
        yield tab


def suggestions(page: Any, list_id: str) -> list[str]:
    page.wait_for_selector(f"#{list_id}:not([hidden]) li")
    return page.eval_on_selector_all(f"#{list_id} li", "items => items.map(i => i.textContent)")


def test_the_page_names_its_world_and_suggests_names_as_you_type(
    tmp_path: Path, page: Any, world: SandboxEnvironment
) -> None:
    with running_server(tmp_path / "state", sandbox=world) as srv:
        # Given the page of a server whose world is tiny.cast.txt
        page.goto(srv.http_url)
        page.wait_for_function("() => window.visualDegrees.world !== null")
        example = world.web.world.example_pair()
        assert example is not None

        # Then it names that world, shows its example pair as placeholders, and offers to fill them in
        assert "Sandbox world tiny.cast.txt" in page.text_content("#world")
        assert page.get_attribute("#person-a", "placeholder") == f"e.g. {example[0]}"
        assert page.get_attribute("#person-b", "placeholder") == f"e.g. {example[1]}"

        # When the user types the start of a first name
        page.click("#person-a")
        page.keyboard.type("kev")
        # Then the people of this world it may mean are listed, the most seen first
        assert suggestions(page, "suggest-a") == ["Kevin Bacon", "Kevin Kline", "Kevin Costner"]
        assert page.get_attribute("#person-a", "aria-expanded") == "true"
        page.screenshot(path=str(artifact("names_as_you_type.png")), full_page=True)

        # When they go down the list with the keyboard and press Enter
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        assert page.get_attribute("#person-a", "aria-activedescendant") == "suggest-a-1"
        page.keyboard.press("Enter")
        # Then the name is filled in, the list closes, and no run was started by that Enter
        assert page.input_value("#person-a") == "Kevin Kline"
        assert page.is_hidden("#suggest-a")
        assert page.evaluate("window.visualDegrees.run") is None

        # When they misspell a surname in the other field and click a suggestion
        page.click("#person-b")
        page.keyboard.type("Julie Andrw")
        assert suggestions(page, "suggest-b")[0] == "Julie Andrews"
        page.click("#suggest-b li >> nth=0")
        assert page.input_value("#person-b") == "Julie Andrews"

        # A name full of markup is suggested as text, never as an element
        page.fill("#person-b", "")
        page.click("#person-b")
        page.keyboard.type("ada")
        assert suggestions(page, "suggest-b") == ["Ada <img src=x onerror=window.__pwned=1>"]
        assert page.query_selector_all("#suggest-b img") == []
        page.keyboard.press("Escape")
        assert page.is_hidden("#suggest-b")

        # When they ask for the example
        page.click("#try-example")
        # Then both fields hold this world's example pair
        assert (page.input_value("#person-a"), page.input_value("#person-b")) == example
        assert page.evaluate("window.__pwned") is None


def test_suggestions_fit_a_phone(tmp_path: Path, world: SandboxEnvironment) -> None:
    with (
        running_server(tmp_path / "state", sandbox=world) as srv,
        open_page(PHONE) as page,
    ):
        page.goto(srv.http_url)
        page.wait_for_function("() => window.visualDegrees.world !== null")
        page.click("#person-b")
        page.keyboard.type("an")
        assert "Julie Andrews" in suggestions(page, "suggest-b")
        box = page.eval_on_selector("#suggest-b", "e => e.getBoundingClientRect().toJSON()")
        assert box["left"] >= 0 and box["right"] <= 390
        page.screenshot(path=str(artifact("names_as_you_type_phone.png")), full_page=True)


def test_an_unknown_name_gets_did_you_mean_and_the_status_does_not_say_starting(
    tmp_path: Path, page: Any, world: SandboxEnvironment
) -> None:
    with running_server(tmp_path / "state", sandbox=world) as srv:
        page.goto(srv.http_url)
        page.wait_for_function("() => window.visualDegrees.connected")

        # When the user asks for a name nobody in this world has
        page.fill("#person-a", "Kevin Bacn")
        page.fill("#person-b", "Julie Andrews")
        page.click("#start")
        page.wait_for_selector("#error:not([hidden])")

        # Then the error says so, the status line says the run did not start, and the closest
        # name is one click away
        assert "'Kevin Bacn' is not anyone in this world" in page.text_content("#error")
        assert page.text_content("#status") == "Not started: a name is not in this world."
        assert page.is_enabled("#start")
        offered = page.eval_on_selector_all("#did-you-mean button", "bs => bs.map(b => b.textContent)")
        assert offered == ["Kevin Bacon"]
        assert "From: did you mean" in page.text_content("#did-you-mean")
        page.screenshot(path=str(artifact("names_did_you_mean.png")), full_page=True)

        # When they take it
        page.click("#did-you-mean button >> text=Kevin Bacon")
        # Then the field holds it and the page is ready to start
        assert page.input_value("#person-a") == "Kevin Bacon"
        assert page.is_hidden("#did-you-mean") and page.is_hidden("#error")
        assert page.text_content("#status") == "Ready: press Find a chain."


def test_a_page_talking_to_another_api_says_it_cannot_suggest(
    tmp_path: Path, page: Any, world: SandboxEnvironment
) -> None:
    with running_server(tmp_path / "state", sandbox=world) as srv:
        page.goto(srv.http_url)
        page.wait_for_function("() => window.visualDegrees.world !== null")

        # When the user points the page at another API (a deployed one searches the live web)
        page.click("#settings summary")
        page.fill("#ws-url", "ws://127.0.0.1:9/prod")  # not this server (port 9 refuses at once)
        page.click("#settings-form button[type='submit']")
        page.wait_for_function("() => window.visualDegrees.world === null")

        # Then the page says it has no names to suggest, and suggests none
        assert "No name suggestions" in page.text_content("#world")
        assert "live web" in page.text_content("#world")
        assert page.get_attribute("#person-a", "placeholder") == "a person's name"
        page.click("#person-a")
        page.keyboard.type("kev")
        page.wait_for_timeout(400)  # longer than the typing pause: a request would have been made
        assert page.is_hidden("#suggest-a")
        page.screenshot(path=str(artifact("names_other_api.png")), full_page=True)


def test_counted_nouns_agree_on_the_page(tmp_path: Path, page: Any, world: SandboxEnvironment) -> None:
    with running_server(tmp_path / "state", sandbox=world) as srv:
        page.goto(srv.http_url)
        page.wait_for_function("() => window.visualDegrees.connected")

        # When a run finds a chain of one hop (two people in one film)
        page.fill("#person-a", "Kevin Bacon")
        page.fill("#person-b", "Lori Singer")
        page.click("#start")
        page.wait_for_selector("#result[data-outcome='path']")

        # Then one of anything is singular
        assert page.text_content("#status") == "Found a chain of 1 hop."
        assert page.text_content("#result-message") == "1 hop, proven by a photo of both people."
        summary = page.text_content("#result-summary") or ""
        assert re.search(r"Spent (1 search|\d+ searches), (1 recognition|\d+ recognitions), ", summary)
        assert "1 searches" not in summary and "1 LLM calls" not in summary
        assert re.search(
            r"\(1 photo proving 1 link\)|\(\d+ photos proving", page.text_content("#evidence-count")
        )
