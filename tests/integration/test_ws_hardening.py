"""The local server's doors (issue 9.8): only its own host names (no DNS rebinding), a cap on
connections refused politely before the upgrade, and no traceback storm at the descriptor limit."""

from __future__ import annotations

import logging
import os
import re
import resource
import socket
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus

from tests.support.ws_client import WsClient
from tests.support.ws_server import running_server
from visual_degrees_tools.local.server.gate import HostNames, Refusals, host_name
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR
GUARD_SECONDS = 30.0


# ---- host names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:8765", "127.0.0.1"),
        ("[::1]:8765", "::1"),
        ("LocalHost.", "localhost"),
        ("evil.example", "evil.example"),
        ("::1", "::1"),
    ],
)
def test_the_host_name_is_read_without_port_brackets_or_case(header: str, name: str) -> None:
    assert host_name(header) == name


def test_a_server_on_loopback_answers_to_its_own_names_only() -> None:
    names = HostNames("127.0.0.1", ("vd.lan",))
    for ok in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "VD.LAN:8765"):
        assert names.allows(ok), ok
    for refused in ("evil.example:8765", "attacker.127.0.0.1.nip.io", "10.0.0.7:8765", "", None):
        assert not names.allows(refused), refused


def test_a_server_on_every_interface_also_answers_to_addresses_and_its_machines_name() -> None:
    names = HostNames("0.0.0.0")
    assert names.allows("192.168.1.20:8765") and names.allows("[fe80::1]:8765")
    assert names.allows(f"{socket.gethostname()}:8765")
    assert not names.allows("evil.example:8765")  # a name can be rebound to us; an address cannot


def upgrade(port: int, *hosts: str) -> bytes:
    """A WebSocket opening handshake naming `hosts` (what a browser sends, rebinding or not)."""
    named = "".join(f"Host: {host}\r\n" for host in hosts)
    return (
        f"GET /ws HTTP/1.1\r\n{named}Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    ).encode()


def status_of(port: int, request: bytes) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=GUARD_SECONDS) as sock:
        sock.sendall(request)
        return int(sock.recv(64).split(b" ")[1])


def test_a_foreign_host_name_is_refused_for_the_page_and_the_websocket(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with running_server(tmp_path, allowed_hosts=("vd.lan",)) as srv:
        port = srv.address.port
        evil = f"evil.example:{port}"
        # When a page fetched through another name (DNS rebinding) asks for the page or a socket
        page = httpx.get(srv.http_url, headers={"Host": evil})
        socket_status = status_of(port, upgrade(port, evil))
        # (or names two hosts, or none)
        ambiguous = [
            status_of(port, upgrade(port, f"127.0.0.1:{port}", evil)),
            status_of(port, upgrade(port)),
        ]

        # Then it is told this server does not answer to that name: 421, every way
        assert (page.status_code, socket_status, ambiguous) == (421, 421, [421, 421])
        # While its own names, and a name the operator allowed, are served
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"vd.lan:{port}"):
            assert httpx.get(srv.http_url, headers={"Host": host}).status_code == 200, host
            assert status_of(port, upgrade(port, host)) == 101, host
        with WsClient(srv.ws_url) as client:
            assert client.start(A, B)["type"] == "runAccepted"
    assert "Traceback" not in caplog.text and "process_request failed" not in caplog.text


# ---- the connection cap -------------------------------------------------------------------------


def test_above_the_cap_connections_are_refused_with_503_and_the_log_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="visual_degrees_tools.local.server.gate")
    with running_server(tmp_path, max_connections=2) as srv, ExitStack() as open_clients:
        # Given two connections, the cap
        first = open_clients.enter_context(WsClient(srv.ws_url))
        open_clients.enter_context(WsClient(srv.ws_url))
        # When twenty more try to connect
        statuses = []
        for _ in range(20):
            with pytest.raises(InvalidStatus) as refused:
                WsClient(srv.ws_url)
            statuses.append(refused.value.response.status_code)
            retry_after = refused.value.response.headers.get("Retry-After")

        # Then each is refused politely before the upgrade, and told when to try again
        assert statuses == [503] * 20 and retry_after == "5"
        # And the log has one line for them (counted), not twenty
        lines = [r for r in caplog.records if "refused connections" in r.getMessage()]
        assert len(lines) == 1 and "over the cap of 2 connections" in lines[0].getMessage()
        assert srv.server.refusals.total == {"over the cap of 2 connections": 20}
        # And those inside are served, and a place freed is a place taken
        assert first.start(A, B)["type"] == "runAccepted"
        first.close()
        deadline = time.monotonic() + GUARD_SECONDS
        while True:
            try:
                with WsClient(srv.ws_url) as late:
                    assert late.start(A, B)["type"] == "runAccepted"
                break
            except InvalidStatus:
                assert time.monotonic() < deadline
                time.sleep(0.05)


def test_refusals_are_logged_at_most_once_per_interval_with_their_counts(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    refusals = Refusals(interval=10.0, clock=lambda: now[0])
    caplog.set_level(logging.WARNING, logger="visual_degrees_tools.local.server.gate")
    for second in range(30):
        now[0] = float(second)
        for _ in range(1000):
            refusals.add("over the cap of 2 connections")
    refusals.add("for another host name")
    now[0] = 40.0
    refusals.flush()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 4  # at 0, 10, 20 s, then what was left, at 40 s
    assert lines[1] == "refused connections: 10000 over the cap of 2 connections"
    assert lines[3] == "refused connections: 1 for another host name, 9999 over the cap of 2 connections"


# ---- at the descriptor limit --------------------------------------------------------------------

CLI = [sys.executable, "-c", "import sys; from visual_degrees_tools.cli import main; sys.exit(main())"]
DESCRIPTORS = 64


def test_at_the_descriptor_limit_the_server_refuses_quietly_and_recovers(tmp_path: Path) -> None:
    # Given a server allowed only 64 open files (the soft and the hard limit)
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))

    log_file = tmp_path / "serve.log"
    with open(log_file, "w") as log:
        server = subprocess.Popen(
            [*CLI, "--state-dir", str(tmp_path), "serve", "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            preexec_fn=limited,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        assert server.stdout is not None
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", server.stdout.readline()).group(1))  # type: ignore[union-attr]
        upgrade = (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
        # When clients open twice as many connections as it may hold, and keep them
        held, answers = [], []
        for _ in range(2 * DESCRIPTORS):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=0.5)
                sock.sendall(upgrade)
                answers.append(sock.recv(32).split(b"\r\n")[0].decode())
                held.append(sock)
            except OSError:
                answers.append("no answer")
        # Then it upgraded as many as its descriptors allow, refused the rest with 503 (or, out of
        # descriptors, did not accept them), and its log stayed a few lines without a traceback
        assert answers.count("HTTP/1.1 101 Switching Protocols") == DESCRIPTORS - 32
        assert answers.count("HTTP/1.1 503 Service Unavailable") >= DESCRIPTORS // 2
        text = log_file.read_text()
        assert "Traceback" not in text and len(text) < 2_000, text[:2_000]
        assert f"serving at most {DESCRIPTORS - 32} connections" in text
        # And once those connections go, it serves again
        for sock in held:
            sock.close()
        deadline = time.monotonic() + GUARD_SECONDS
        while True:
            try:
                with WsClient(f"ws://127.0.0.1:{port}/ws") as client:
                    assert client.start(A, B)["type"] == "runAccepted"
                break
            except (InvalidStatus, OSError, TimeoutError):
                assert time.monotonic() < deadline
                time.sleep(0.2)
    finally:
        server.terminate()
        server.wait(GUARD_SECONDS)
        if server.stdout is not None:
            server.stdout.close()


def test_serve_takes_the_cap_and_allowed_hosts_from_its_options(tmp_path: Path) -> None:
    options = ["--max-connections", "1", "--allowed-host", "vd.lan", "--allowed-host", "vd.example"]
    server = subprocess.Popen(
        [*CLI, "--state-dir", str(tmp_path), "serve", "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", server.stdout.readline()).group(1))  # type: ignore[union-attr]
        url = f"http://127.0.0.1:{port}/"
        assert [
            httpx.get(url, headers={"Host": h}).status_code for h in ("vd.lan", "vd.example", "x.lan")
        ] == [
            200,
            200,
            421,
        ]
        with WsClient(f"ws://127.0.0.1:{port}/ws"), pytest.raises(InvalidStatus) as refused:
            WsClient(f"ws://127.0.0.1:{port}/ws")
        assert refused.value.response.status_code == 503
    finally:
        server.terminate()
        server.wait(GUARD_SECONDS)
        if server.stdout is not None:
            server.stdout.close()
