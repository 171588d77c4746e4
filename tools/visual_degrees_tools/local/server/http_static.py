"""The HTTP side of the local server: the web page, and the sandbox's photos by id.

The page is the files of the `web` folder (index.html, app.css, and the ES modules app.js imports),
read once into a table keyed by URL path: a request names one of them or gets 404, so nothing outside
that folder can be served (no path from a request is ever joined to a folder). Each carries an ETag;
`Cache-Control: no-cache` makes the browser ask again, and an unchanged file is a 304.

Sandbox evidence points at `https://sandbox.visual-degrees.invalid/photos/<id>.svg` (a host that can
never resolve); the page rewrites that prefix to this server's `/photos/` (dom.js `photoUrl`), and
this module renders the photo it names: the one mapping, one route each side.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from html import escape
from importlib import resources
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from websockets.datastructures import Headers
from websockets.http11 import Response

from visual_degrees_tools.local.world_info import API_PREFIX, WorldInfo
from visual_degrees_tools.sandbox.render import render_svg

if TYPE_CHECKING:
    from visual_degrees_tools.sandbox import PhotoWeb

PHOTO_ROUTE = "/photos/"
_PHOTO = re.compile(r"^/photos/([0-9a-f]{10})(\.svg)?$")
_PAGE_TYPES = {  # a module script must come with a JavaScript type, or the browser refuses it
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
}
# The page talks to any WebSocket API the user configures (the deployed one too) and shows evidence
# images from wherever they live; it runs only its own script and never renders data as markup.
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; "
    "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_PHOTO_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'self'"


@dataclass(frozen=True)
class _Asset:
    body: bytes
    content_type: str

    @property
    def etag(self) -> str:
        return f'"{hashlib.sha256(self.body).hexdigest()[:20]}"'


def page_files() -> dict[str, _Asset]:
    """Every file of the page by its URL path (`/` is index.html): the web folder's own files of the
    types above, nothing in a sub-folder."""
    root = resources.files("visual_degrees_tools") / "web"
    assets = {
        f"/{entry.name}": _Asset(entry.read_bytes(), _PAGE_TYPES[suffix])
        for entry in root.iterdir()
        if entry.is_file() and (suffix := PurePosixPath(entry.name).suffix) in _PAGE_TYPES
    }
    assets["/"] = assets["/index.html"]
    return assets


def _matches(if_none_match: str | None, etag: str) -> bool:
    if not if_none_match:
        return False
    offered = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return etag in offered or "*" in offered


class StaticSite:
    """GET responses for the page and the photos; `web` is None when there is no sandbox."""

    def __init__(self, web: PhotoWeb | None) -> None:
        self._web = web
        self._api = WorldInfo(web)  # /api/world, /api/names: the sandbox world's example pair and names
        self._assets = page_files()

    def respond(self, path: str, if_none_match: str | None = None) -> Response:
        """The answer to `GET path`; `if_none_match`: the request's If-None-Match, if any."""
        path, _, query = path.partition("?")
        if path.startswith(API_PREFIX) and (answer := self._api.respond(path, query)):
            return _response(
                answer.status, answer.encoded(), "application/json; charset=utf-8", _PHOTO_POLICY
            )
        if asset := self._assets.get(path):
            if _matches(if_none_match, asset.etag):
                return _response(304, b"", asset.content_type, PAGE_POLICY, cache="no-cache", etag=asset.etag)
            return _response(
                200, asset.body, asset.content_type, PAGE_POLICY, cache="no-cache", etag=asset.etag
            )
        if path == "/healthz":
            return _response(200, b"ok\n", "text/plain; charset=utf-8", _PHOTO_POLICY)
        if (match := _PHOTO.match(path)) and self._web is not None:
            photo = self._web.photo_index(match.group(1))
            if photo is not None:
                return self._photo(photo, svg=bool(match.group(2)))
        return not_found()

    def _photo(self, photo: int, *, svg: bool) -> Response:
        assert self._web is not None
        if svg:
            body = render_svg(self._web, photo).encode("utf-8")
            return _response(200, body, "image/svg+xml", _PHOTO_POLICY, cache="max-age=3600")
        # The photo's "page": what a source link opens in the sandbox.
        caption = escape(self._web.caption(photo))
        image = f"{PHOTO_ROUTE}{self._web.photo_id(photo)}.svg"
        html = (
            "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{caption}</title></head><body><figure><img src='{image}' alt='{caption}'>"
            f"<figcaption>{caption}</figcaption></figure></body></html>"
        )
        return _response(200, html.encode("utf-8"), "text/html; charset=utf-8", _PHOTO_POLICY)


def not_found() -> Response:
    return _response(404, b"not found\n", "text/plain; charset=utf-8", _PHOTO_POLICY)


def plain(status: int, text: str, **headers: str) -> Response:
    response = _response(status, f"{text}\n".encode(), "text/plain; charset=utf-8", _PHOTO_POLICY)
    for name, value in headers.items():
        response.headers[name.replace("_", "-")] = value
    return response


_REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    421: "Misdirected Request",
    503: "Service Unavailable",
}


def _response(
    status: int,
    body: bytes,
    content_type: str,
    policy: str,
    *,
    cache: str = "no-store",
    etag: str | None = None,
) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", cache),
            ("Content-Security-Policy", policy),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Connection", "close"),
        ]
    )
    if etag is not None:
        headers["ETag"] = etag
    return Response(status, _REASONS.get(status, "Error"), headers, body)
