"""What the page may ask the local server about its sandbox world, over plain HTTP GET next to the page:

    GET /api/world              {"world": "cast.G.txt", "people": 21177, "events": 10000, "seed": 0,
                                 "example": {"personA": …, "personB": …} | null, "suggestions": true}
    GET /api/names?q=TEXT[&limit=N]   {"query": TEXT, "names": [display names, at most 10]}

`example` is a pair worth trying first in this very world (the page's placeholders and its "try"
link); `names` completes or corrects what a user is typing (sandbox/suggest.py). Answers are JSON,
small and bounded: the query at most 200 characters, at most 10 names. The deployed API has no world
(it searches the live web), so a page talking to it offers no suggestions and says so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

from visual_degrees.domain.names import MAX_NAME_LENGTH
from visual_degrees_tools.sandbox.synthetic import EXAMPLE_PAIR, default_world_path

if TYPE_CHECKING:
    from visual_degrees_tools.sandbox import PhotoWeb

API_PREFIX = "/api/"
DEFAULT_NAMES = 8
MAX_NAMES = 10
MAX_FIELDS = 4  # q and limit, and room for a cache-buster


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]

    def encoded(self) -> bytes:
        return json.dumps(self.body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def world_label(web: PhotoWeb) -> str:
    """How a person names the world: its file name, or "bundled" for the synthetic default."""
    source = Path(web.world.source)
    return "bundled" if source == default_world_path() else source.name


def example_pair(web: PhotoWeb) -> tuple[str, str] | None:
    """The bundled world's documented pair where it applies, else one chosen from the world."""
    if all(web.knows(name) for name in EXAMPLE_PAIR):
        return EXAMPLE_PAIR
    return web.world.example_pair()


def warm(web: PhotoWeb) -> None:
    """Build what the page will ask for (the example pair, the name index) ahead of its first call."""
    example_pair(web)
    web.world.name_index().prepare()


class WorldInfo:
    def __init__(self, web: PhotoWeb | None) -> None:
        self._web = web

    def respond(self, path: str, query: str) -> Answer | None:
        """The answer for an /api/ path, or None if there is no such route here."""
        if self._web is None:
            return None
        if path == "/api/world":
            return Answer(200, self._world(self._web))
        if path == "/api/names":
            try:
                params = parse_qs(query, max_num_fields=MAX_FIELDS)
            except ValueError:  # more fields than any page asks with
                return Answer(400, {"error": f"at most {MAX_FIELDS} query fields"})
            return self._names(self._web, params)
        return None

    @staticmethod
    def _world(web: PhotoWeb) -> dict[str, Any]:
        pair = example_pair(web)
        return {
            "world": world_label(web),
            "people": web.world.size,
            "events": len(web.world.titles),
            "seed": web.seed,
            "example": {"personA": pair[0], "personB": pair[1]} if pair else None,
            "suggestions": True,
        }

    @staticmethod
    def _names(web: PhotoWeb, params: dict[str, list[str]]) -> Answer:
        text = (params.get("q") or [""])[0]
        if len(text) > MAX_NAME_LENGTH:
            return Answer(400, {"error": f"q is {len(text)} characters long; the limit is {MAX_NAME_LENGTH}"})
        raw_limit = (params.get("limit") or [str(DEFAULT_NAMES)])[0]
        if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_NAMES:
            return Answer(400, {"error": f"limit must be a whole number from 1 to {MAX_NAMES}"})
        names = web.world.name_index().suggest(text, int(raw_limit)) if text.strip() else []
        return Answer(200, {"query": text, "names": names})
