"""What the local server tells a client about its sandbox world: an example pair from that very
world (GET /api/world), names as they are typed (GET /api/names), and the closest names in the
`unknown_person` reply to a startRun."""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from tests.support.ws_client import WsClient
from tests.support.ws_server import running_server
from visual_degrees_tools.local.environments import SandboxEnvironment, sandbox_environment
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

CAST = [
    "Footloose (1984)/Bacon, Kevin (I)/Singer, Lori/Lithgow, John",
    "Mary Poppins (1964)/Andrews, Julie (I)/Van Dyke, Dick",
    "A Gala (1999)/Lithgow, John/Van Dyke, Dick/Kline, Kevin",
]


@pytest.fixture(scope="module")
def cast_world(tmp_path_factory: pytest.TempPathFactory) -> SandboxEnvironment:
    path = tmp_path_factory.mktemp("world") / "little.cast.txt"
    path.write_text("\n".join(CAST) + "\n", encoding="utf-8")
    return sandbox_environment(path)


def test_the_server_names_its_world_and_an_example_pair_from_it(
    tmp_path: Path, cast_world: SandboxEnvironment
) -> None:
    with running_server(tmp_path, sandbox=cast_world) as srv:
        response = httpx.get(srv.http_url + "api/world")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    info = response.json()
    assert info["world"] == "little.cast.txt" and info["people"] == 6 and info["suggestions"] is True
    pair = (info["example"]["personA"], info["example"]["personB"])
    assert pair == cast_world.web.world.example_pair()
    assert all(cast_world.web.knows(name) for name in pair)  # never the bundled world's placeholders


def test_the_bundled_world_offers_the_readme_pair(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv:
        info = httpx.get(srv.http_url + "api/world").json()
    assert info["world"] == "bundled"
    assert (info["example"]["personA"], info["example"]["personB"]) == EXAMPLE_PAIR


def test_names_are_suggested_as_typed_bounded_and_validated(
    tmp_path: Path, cast_world: SandboxEnvironment
) -> None:
    with running_server(tmp_path, sandbox=cast_world) as srv:
        url = srv.http_url + "api/names"
        completed = httpx.get(url, params={"q": "kev"}).json()
        corrected = httpx.get(url, params={"q": "Julie Andrw", "limit": "1"}).json()
        empty = httpx.get(url, params={"q": "  "}).json()
        too_long = httpx.get(url, params={"q": "x" * 201})
        too_many = httpx.get(url, params={"q": "kev", "limit": "11"})
    assert completed == {"query": "kev", "names": ["Kevin Bacon", "Kevin Kline"]}
    assert corrected["names"] == ["Julie Andrews"]
    assert empty["names"] == []
    assert too_long.status_code == 400 and "200" in too_long.json()["error"]
    assert too_many.status_code == 400


def test_a_query_with_too_many_fields_is_a_bad_request_not_a_server_error(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with running_server(tmp_path) as srv:
        # When a client asks for names with more query fields than the page ever sends
        answer = httpx.get(srv.http_url + "api/names?" + "q=a&" * 50)
        # Then it is told what is wrong (400), and the server logs no failure of its own
        assert answer.status_code == 400 and "query fields" in answer.json()["error"]
        assert httpx.get(srv.http_url + "api/names", params={"q": "ves"}).status_code == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_an_unknown_name_is_refused_with_the_closest_names_of_the_world(
    tmp_path: Path, cast_world: SandboxEnvironment
) -> None:
    with running_server(tmp_path, sandbox=cast_world) as srv, WsClient(srv.ws_url) as client:
        # When a client asks for two names the world does not have
        reply = client.start("Kevin Bacn", "Julie Andrew")
        # Then the error names both, and carries the closest names per field as data
        assert reply["type"] == "error" and reply["code"] == "unknown_person"
        assert reply["action"] == "startRun"
        assert "'Kevin Bacn' is not anyone in this world (did you mean Kevin Bacon?)" in reply["message"]
        assert reply["suggestions"] == {"personA": ["Kevin Bacon"], "personB": ["Julie Andrews"]}
        # And a name with nothing close gets no suggestion field of its own
        reply = client.start("Kevin Bacon", "Zzyzx Qwrtp")
        assert reply["code"] == "unknown_person" and "suggestions" not in reply
        assert "no name in it is close" in reply["message"]
