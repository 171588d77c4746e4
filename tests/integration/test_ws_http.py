"""The HTTP side of the local server on 127.0.0.1: the page, the sandbox photos, and who may open
the WebSocket (same origin only; the token when one is set, as the deployed $connect authorizer)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from tests.support.ws_client import WsClient
from tests.support.ws_server import running_server
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR
SANDBOX_PHOTOS = "https://sandbox.visual-degrees.invalid/photos/"
ENTRY = re.compile(r'<script type="module" src="([\w.-]+\.js)">')
IMPORTS = re.compile(r'^import .* from "\./([\w.-]+\.js)";$', re.MULTILINE)


@pytest.mark.parametrize(
    ("path", "kind"), [("/", "text/html"), ("/app.js", "javascript"), ("/app.css", "css")]
)
def test_the_page_is_served_with_a_strict_content_policy(tmp_path: Path, path: str, kind: str) -> None:
    with running_server(tmp_path) as srv:
        # When a browser asks for the page and its files
        response = httpx.get(srv.http_url.rstrip("/") + path)

        # Then it gets them, with a policy that runs only the page's own script
        assert response.status_code == 200
        assert kind in response.headers["content-type"]
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"


def test_evidence_photos_are_served_by_id_with_their_people_labelled(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # Given the evidence of a finished run's first link
        run_id = client.start(A, B)["runId"]
        final = client.events_until_terminal(run_id)[-1]["data"]
        edge = final["edges"][0]
        card = {**edge["evidence"], "from": edge["from"], "to": edge["to"]}
        assert card["imageUrl"].startswith(SANDBOX_PHOTOS)

        # When the page loads its image from this server's /photos/ instead of the sandbox host
        local = srv.http_url.rstrip("/") + "/photos/" + card["imageUrl"].removeprefix(SANDBOX_PHOTOS)
        image = httpx.get(local)
        page = httpx.get(local.removesuffix(".svg"))

        # Then it is the synthesised photo, with both people of the card labelled in it
        assert image.status_code == 200
        assert image.headers["content-type"] == "image/svg+xml"
        assert card["from"] in image.text and card["to"] in image.text
        # And the source link opens a page showing that photo
        assert page.status_code == 200
        assert card["imageUrl"].removeprefix(SANDBOX_PHOTOS) in page.text


def test_every_module_the_page_imports_is_served_as_javascript_and_revalidated(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv:
        base = srv.http_url.rstrip("/")
        # Given the page's entry module, as index.html names it
        match = ENTRY.search(httpx.get(base + "/").text)
        assert match is not None
        # When a browser loads it and, module by module, everything it imports
        served: dict[str, httpx.Response] = {}
        wanted = [match.group(1)]
        while wanted:
            name = wanted.pop()
            if name not in served:
                served[name] = httpx.get(f"{base}/{name}")
                wanted += IMPORTS.findall(served[name].text)
        # And asks for each again with the ETag it got
        again = {
            name: httpx.get(f"{base}/{name}", headers={"If-None-Match": response.headers["etag"]})
            for name, response in served.items()
        }

    # Then every module came, as JavaScript (a module script of any other type is refused), under the
    # page's policy, to be revalidated
    assert len(served) > 5
    for name, response in served.items():
        assert response.status_code == 200, name
        assert response.headers["content-type"] == "text/javascript; charset=utf-8", name
        assert "script-src 'self'" in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["cache-control"] == "no-cache"
    # And an unchanged module is a 304 with no body
    assert {name: (r.status_code, r.content) for name, r in again.items()} == {
        name: (304, b"") for name in served
    }


@pytest.mark.parametrize(
    "path",
    [
        "/photos/0000000000.svg",
        "/photos/../../etc/passwd",
        "/nothing-here",
        "/%2e%2e/pyproject.toml",
        "/..%2fapp.py",
        "/app.js/..%2f..%2fsandbox/world.py",
        "/__init__.py",
        "/web/app.js",
    ],
)
def test_unknown_paths_are_not_found(tmp_path: Path, path: str) -> None:
    with running_server(tmp_path) as srv:
        assert httpx.get(srv.http_url.rstrip("/") + path).status_code == 404


def test_only_get_is_served(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv:
        assert httpx.request("DELETE", srv.http_url).status_code == 405


def test_the_websocket_path_without_an_upgrade_asks_for_one(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv:
        assert httpx.get(srv.http_url.rstrip("/") + "/ws").status_code == 426


def test_another_sites_page_may_not_connect(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv:
        # When a page from another origin opens a WebSocket to the local server
        with pytest.raises(InvalidStatus) as refused:
            WsClient(srv.ws_url, origin="https://evil.example")

        # Then the handshake is refused; the server's own page is let in
        assert refused.value.response.status_code == 403
        own = srv.http_url.rstrip("/")
        with WsClient(srv.ws_url, origin=own) as client:
            assert client.start(A, B)["type"] == "runAccepted"


def test_a_configured_token_is_required_at_connect(tmp_path: Path) -> None:
    with running_server(tmp_path, token="s3cret") as srv:
        # When clients connect without the token, or with a wrong one
        for url in (srv.ws_url, srv.ws_url + "?token=guess"):
            with pytest.raises(InvalidStatus) as refused:
                WsClient(url)
            # Then they are refused, as the deployed authorizer refuses them
            assert refused.value.response.status_code == 401
        # And with the token (a query parameter, as browsers cannot set headers) they get in
        with WsClient(srv.ws_url + "?token=s3cret") as client:
            assert client.start(A, B)["type"] == "runAccepted"
