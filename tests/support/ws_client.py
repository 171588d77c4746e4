"""A small synchronous protocol client for tests: send actions, read replies and events."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

GUARD_SECONDS = 30.0  # a deadlock guard, never a timing assertion
TERMINAL = frozenset({"final", "no_path", "cancelled", "error"})

Message = dict[str, Any]


def is_event(message: Message) -> bool:
    return "seq" in message


def is_terminal(message: Message) -> bool:
    return is_event(message) and message["type"] in TERMINAL


class WsClient:
    def __init__(self, url: str, **options: Any) -> None:
        # Entered at once (and closed by `close`): websockets 17 wants connect() used as a context.
        self.ws: ClientConnection = connect(
            url, open_timeout=GUARD_SECONDS, max_size=None, **options
        ).__enter__()

    def __enter__(self) -> WsClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.ws.close()

    def send(self, action: str, **fields: Any) -> None:
        self.ws.send(json.dumps({"action": action, **fields}))

    def send_raw(self, frame: str | bytes) -> None:
        self.ws.send(frame)

    def recv(self) -> Message:
        message: Message = json.loads(self.ws.recv(timeout=GUARD_SECONDS))
        return message

    def until(self, done: Callable[[Message], bool]) -> list[Message]:
        """Every message up to and including the first for which `done` is true."""
        seen = []
        while True:
            message = self.recv()
            seen.append(message)
            if done(message):
                return seen

    def reply(self) -> Message:
        """The next message that is not a run event (events of followed runs may come first)."""
        return self.until(lambda m: not is_event(m))[-1]

    def start(self, person_a: str, person_b: str, **options: Any) -> Message:
        fields: dict[str, Any] = {"personA": person_a, "personB": person_b}
        if options:
            fields["options"] = options
        self.send("startRun", **fields)
        return self.reply()

    def events_until_terminal(self, run_id: str) -> list[Message]:
        return self.follow(run_id)[run_id]

    def follow(self, *run_ids: str) -> dict[str, list[Message]]:
        """Each run's events (interleaved on the wire) until every one of them has ended."""
        events: dict[str, list[Message]] = {r: [] for r in run_ids}
        open_runs = set(run_ids)
        while open_runs:
            message = self.recv()
            if is_event(message) and message["runId"] in events:
                events[message["runId"]].append(message)
                if is_terminal(message):
                    open_runs.discard(message["runId"])
        return events

    def close_code(self) -> int | None:
        """Read until the server closes the connection; its close code."""
        try:
            while True:
                self.ws.recv(timeout=GUARD_SECONDS)
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None


def seqs(events: list[Message]) -> list[int]:
    return [e["seq"] for e in events]
