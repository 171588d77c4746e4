"""A scripted httpx transport for adapter tests (with httpx.MockTransport): answers with its
handlers in turn (the last one repeats) and records every request it was sent."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

Handler = Callable[[httpx.Request], httpx.Response]


class Wire:
    def __init__(self, *handlers: Handler) -> None:
        self.handlers = list(handlers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.handlers.pop(0)(request) if len(self.handlers) > 1 else self.handlers[0](request)

    def body(self, index: int = 0) -> dict[str, Any]:
        """The JSON body of the `index`-th request."""
        return json.loads(self.requests[index].content)
