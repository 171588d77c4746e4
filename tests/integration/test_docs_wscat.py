"""docs/web.md's wscat sessions, spoken line by line to a real local server: each `$ … wscat -c URL`
opens a connection (the URL's form kept: path, `?token=`), each `>` line is sent as written (with the
run id and token this server gave in place of the documented ones), and each `<` line must match
what comes back. Matching: the same keys and values, except run ids and tokens (bound to the real
ones on first sight), times (any, but today's), `{…}`, `[…]` and `"…"` (anything of that kind), and
after a `…` line, any run events until the next documented line matches (and their seq)."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from websockets.sync.client import ClientConnection, connect

from tests.support.ws_server import bundled_sandbox, running_server
from visual_degrees_tools.local.environments import sandbox_environment

DOC = Path(__file__).resolve().parents[2] / "docs" / "web.md"
GUARD_SECONDS = 60.0  # a deadlock guard (a paced run waits up to 30 s at a boundary), never a timing check
TOKEN = "test-client-token"
_OBJECT, _ARRAY, _ANY = "\0object", "\0array", "…"
TOKENS = ("runId", "runToken", "shareToken")  # bound to the real ones on first sight
SKIP = "…"


def exchange(name: str) -> list[str]:
    """The lines of the fenced block after `<!-- wscat-exchange: NAME -->` in docs/web.md."""
    text = DOC.read_text(encoding="utf-8")
    found = re.search(rf"<!-- wscat-exchange: {name} -->\n```text\n(.*?)\n```", text, re.S)
    assert found, f"docs/web.md has no wscat exchange {name!r}"
    return found[1].splitlines()


def documented_speed() -> float:
    found = re.search(r"^visual-degrees serve --speed (\S+)$", DOC.read_text(encoding="utf-8"), re.M)
    assert found, "docs/web.md does not say how to start the local server for the exchange"
    return float(found[1])


@dataclass
class Session:
    """Speaks one documented exchange to a server at `ws_url`."""

    ws_url: str
    token: str | None = None
    bound: dict[str, str] = field(default_factory=dict)  # documented id or token -> this server's
    ws: ClientConnection | None = None
    skipping: bool = False
    events_matched: int = 0

    def speak(self, lines: list[str]) -> None:
        for number, line in enumerate(lines, 1):
            where = f"line {number}: {line[:100]}"
            if line.startswith("$ "):
                self._connect(line, where)
            elif line.startswith("> "):
                assert self.ws is not None, f"{where}: nothing is connected"
                self.ws.send(self._substituted(line[2:]))
            elif line.startswith("< "):
                self._expect(_documented(line[2:]), where)
            elif line == SKIP:
                self.skipping = True
            else:
                assert line == "Connected (press CTRL+C to quit)", f"{where}: not a wscat line"
        if self.ws is not None:
            self.ws.close()

    def _connect(self, line: str, where: str) -> None:
        command = line[2:].split()
        assert command[:3] == ["npx", "wscat", "-c"], f"{where}: not a wscat command"
        url = command[3].strip('"')
        if url.startswith("$WEBSOCKET_URL"):  # the deployed API's stage URL, from the stack output
            assert self.token is not None and url == "$WEBSOCKET_URL?token=$TOKEN", where
            url = f"{self.ws_url}?token={self.token}"
        else:  # the local server's own address: the same path on this server's port
            parts = urlsplit(url)
            assert (parts.scheme, parts.hostname, parts.port) == ("ws", "127.0.0.1", 8765), where
            assert parts.path == urlsplit(self.ws_url).path, where
            url = self.ws_url
        if self.ws is not None:
            self.ws.close()
        self.ws = connect(url, open_timeout=GUARD_SECONDS, max_size=None).__enter__()
        self.skipping = False

    def _substituted(self, text: str) -> str:
        message = json.loads(text)
        for key in TOKENS:
            if key in message:
                assert message[key] in self.bound, f"{message[key]!r} was never given by the server"
                message[key] = self.bound[message[key]]
        return json.dumps(message)

    def _expect(self, documented: Any, where: str) -> None:
        assert self.ws is not None, f"{where}: nothing is connected"
        while True:
            received = json.loads(self.ws.recv(timeout=GUARD_SECONDS))
            problems = _mismatch(documented, received, dict(self.bound), skipping=self.skipping)
            if not problems:
                _mismatch(documented, received, self.bound, skipping=self.skipping)  # bind for good
                self.skipping = False
                self.events_matched += "seq" in received
                return
            assert self.skipping and "seq" in received, f"{where}: got {received}: {problems}"


def _documented(text: str) -> Any:
    return json.loads(text.replace("{…}", json.dumps(_OBJECT)).replace("[…]", json.dumps(_ARRAY)))


def _mismatch(doc: Any, got: Any, bound: dict[str, str], *, skipping: bool, key: str = "") -> str:
    """What differs between a documented value and a received one ("" when they match)."""
    if doc == _OBJECT:
        return "" if isinstance(got, dict) else f"{key}: not an object"
    if doc == _ARRAY:
        return "" if isinstance(got, list) else f"{key}: not an array"
    if key in TOKENS and isinstance(doc, str):
        # one documented value for each real one, both ways
        if any(real == got and shown != doc for shown, real in bound.items()):
            return f"{key}: {got!r} was shown as another value than {doc!r}"
        known = bound.setdefault(doc, got) if isinstance(got, str) else None
        return "" if known == got else f"{key}: {got!r} where {doc!r} stood for {known!r}"
    if key == "ts":
        return "" if _today(got) else f"ts: {got!r} is not a time of today"
    if key == "seq" and skipping:
        return "" if isinstance(got, int) else "seq: not a number"
    if isinstance(doc, dict):
        if not isinstance(got, dict) or set(doc) != set(got):
            return (
                f"{key or 'message'}: keys {sorted(got) if isinstance(got, dict) else got} != {sorted(doc)}"
            )
        return next((p for k in doc if (p := _mismatch(doc[k], got[k], bound, skipping=skipping, key=k))), "")
    if isinstance(doc, list):
        if not isinstance(got, list) or len(doc) != len(got):
            return f"{key}: {got!r} != {doc!r}"
        return next(
            (
                p
                for d, g in zip(doc, got, strict=True)
                if (p := _mismatch(d, g, bound, skipping=skipping, key=key))
            ),
            "",
        )
    if doc == _ANY:
        return "" if isinstance(got, str) else f"{key}: not a string"
    same = doc == got and isinstance(doc, bool) == isinstance(got, bool)
    return "" if same else f"{key}: {got!r} != {doc!r}"


def _today(ts: object) -> bool:
    """An event's time: an ISO instant within the last hour (a sandbox run is dated from its start)."""
    try:
        instant = datetime.fromisoformat(str(ts).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return False
    return time.time() - 3600 < instant < time.time() + 3600


@pytest.fixture
def names_world(tmp_path: Path) -> Path:
    """People the deployed exchange names, two events apart (so no first search can end the run)."""
    path = tmp_path / "credits.txt"
    path.write_text(
        "Footloose (1984)/Bacon, Kevin (I)/Lithgow, John/Singer, Lori\n"
        "A Gala (1999)/Lithgow, John/Andrews, Julie (I)/Van Dyke, Dick\n"
        "Mary Poppins (1964)/Andrews, Julie (I)/Van Dyke, Dick\n",
        encoding="utf-8",
    )
    return path


def test_the_local_wscat_exchange_is_what_the_local_server_says(tmp_path: Path) -> None:
    # Given the local server started as docs/web.md says (the bundled world, its pace)
    with running_server(tmp_path, sandbox=bundled_sandbox(), speed=documented_speed()) as srv:
        session = Session(srv.ws_url)
        # When the documented lines are spoken to it, Then every documented reply comes back
        session.speak(exchange("local"))
    assert session.events_matched == 6


def test_the_deployed_wscat_exchange_holds_for_the_same_protocol(tmp_path: Path, names_world: Path) -> None:
    # Given a server that, as the deployed API, wants a client token on the connection URL
    sandbox = sandbox_environment(names_world)
    with running_server(tmp_path, sandbox=sandbox, speed=documented_speed(), token=TOKEN) as srv:
        session = Session(srv.ws_url, token=TOKEN)
        # When the documented deployed lines are spoken to it, Then every documented reply comes back
        session.speak(exchange("deployed"))
    assert session.events_matched == 5
