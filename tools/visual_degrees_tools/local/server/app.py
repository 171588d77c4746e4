"""`visual-degrees serve`: the deployed WebSocket protocol (protocol.py) and the web page on one port.

    GET /            the page (web/: index.html, app.css, app.js and the modules it imports)
    GET /photos/…    sandbox photos by id, as SVG with labelled face boxes
    GET /ws          the WebSocket endpoint (Upgrade), as the deployed API's stage URL

The protocol's actions are the deployed API's use case (services/runs_api.py) over local adapters:
executions and admission in a thread pool (runs.py), replies and subscriptions through the
connections' sessions (session.py).

Threads: the event loop owns every socket and the subscription broker; runs execute in a bounded
pool (`LocalExecutions`) and hand their events to the loop with `call_soon_threadsafe`; anything that
touches SQLite from the loop goes to a few I/O threads, so the loop never waits on the database.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from visual_degrees.constants import MAX_MESSAGE_BYTES
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.domain.models import RunEvent, RunOptions
from visual_degrees.ports import Memory
from visual_degrees.protocol import is_run_id
from visual_degrees.services import run_sharing
from visual_degrees.services.event_log import EventLog
from visual_degrees.services.run_access import RunAccess
from visual_degrees.services.runs_api import RunsApi, StartPolicy
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment
from visual_degrees_tools.local.server.broker import Broker, BrokerSink, Published
from visual_degrees_tools.local.server.gate import HostNames, Refusals, connection_cap, quiet_accept_errors
from visual_degrees_tools.local.server.http_static import StaticSite, not_found, plain
from visual_degrees_tools.local.server.pacing import Pacer
from visual_degrees_tools.local.server.rate_limit import RateLimits
from visual_degrees_tools.local.server.recovery import RENEW_SECONDS, InFlight
from visual_degrees_tools.local.server.runs import LocalExecutions, RunLimits, Stopped
from visual_degrees_tools.local.server.session import OUTBOX_BYTES, Session, Sessions

if TYPE_CHECKING:
    from visual_degrees_tools.local.environments import SandboxEnvironment
    from visual_degrees_tools.sandbox import PhotoWeb

log = logging.getLogger(__name__)
T = TypeVar("T")

WS_PATH = "/ws"
# Frames up to the deployed limit are parsed; up to twice that they are read and refused with
# `message_too_large` (the connection stays usable); anything larger is refused from its header,
# before its payload is buffered, and the connection is closed with 1009 (as API Gateway does).
HARD_FRAME_LIMIT = 2 * MAX_MESSAGE_BYTES
FLUSH_SECONDS = 2.0  # at shutdown, how long queued messages may take to reach their clients
# How long a closing (or refused) connection may keep its descriptor waiting for the peer's close.
CLOSE_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class ServeSettings:
    host: str = "127.0.0.1"
    port: int = 8765  # 0: any free port (tests)
    limits: RunLimits = field(default_factory=RunLimits)
    rate: RateLimits = field(default_factory=RateLimits)
    speed: float = 1.0  # simulated seconds per real second; 0: runs go flat out
    # If set, connections must present it as ?token= (as the deployed API), or a run's share token
    # as ?token=…&run=<run id> (a viewer of that run: services/run_sharing.py).
    token: str | None = None
    allowed_origins: tuple[str, ...] = ()  # browser origins besides the server's own
    ceilings: RunCeilings = field(default_factory=RunCeilings)  # the most a startRun may ask for
    max_connections: int = 256  # WebSocket connections at once; beyond, 503 before the upgrade
    allowed_hosts: tuple[str, ...] = ()  # Host names served besides the server's own (gate.py)
    io_threads: int = 4
    outbox_bytes: int = OUTBOX_BYTES  # unsent bytes one connection may hold before it is dropped (1013)


@dataclass(frozen=True)
class Address:
    host: str
    port: int

    @property
    def http_url(self) -> str:
        """Where to point a browser (on this machine, when bound to every interface)."""
        host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(self.host, self.host)
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        return self.http_url.replace("http://", "ws://", 1).rstrip("/") + WS_PATH


@dataclass(frozen=True)
class _Parts:
    loop: asyncio.AbstractEventLoop
    io: ThreadPoolExecutor
    offload: Callable[[Callable[[], Any]], Awaitable[Any]]
    broker: Broker
    sink: BrokerSink
    inflight: InFlight
    runs: LocalExecutions
    sessions: Sessions
    api: RunsApi


class LocalServer:
    def __init__(
        self,
        memory: Memory,
        environment: Callable[[str], RunEnvironment],
        settings: ServeSettings | None = None,
        *,
        web: PhotoWeb | None = None,
        require_known: Callable[..., None] | None = None,
        on_deliver: Callable[[RunEvent, float], None] | None = None,
    ) -> None:
        self.memory = memory
        self.settings = settings or ServeSettings()
        self._environment = environment
        self._web = web
        self._require_known = require_known
        self._on_deliver = on_deliver
        self.address: Address | None = None
        self.recovered: list[str] = []  # runs a stopped server left unfinished, ended at start
        self.refusals = Refusals()  # connections refused (over the cap, a foreign Host, …)
        # Connections a share token let in (`--token` set), and the run each may view.
        self._viewers: weakref.WeakKeyDictionary[ServerConnection, str] = weakref.WeakKeyDictionary()

    @classmethod
    def sandboxed(
        cls, memory: Memory, sandbox: SandboxEnvironment, settings: ServeSettings | None = None, **kw: Any
    ) -> LocalServer:
        from visual_degrees_tools.local.environments import require_known

        return cls(
            memory,
            sandbox,
            settings,
            web=sandbox.web,
            require_known=lambda *names: require_known(sandbox, *names),
            **kw,
        )

    async def serve(
        self, stop: asyncio.Event | None = None, ready: Callable[[Address], None] | None = None
    ) -> Stopped:
        """Serve until `stop` is set; then refuse new runs, cancel unfinished ones, let them reach a
        state boundary, flush what clients are owed and close. What became of the unfinished runs."""
        settings = self.settings
        stop = stop or asyncio.Event()
        parts = self._compose(asyncio.get_running_loop())
        stopped = Stopped()
        keeper: asyncio.Task[None] | None = None
        cap = connection_cap(settings.max_connections)
        loud_again = quiet_accept_errors(parts.loop, self.refusals)
        try:
            # Before serving: take the lease, then end what dead servers left running (recovery.py).
            await parts.offload(parts.inflight.start)
            self.recovered = await parts.offload(lambda: parts.inflight.recover(parts.sink))
            keeper = asyncio.ensure_future(self._keep_lease(parts))
            async with serve(
                self._connection_handler(parts),
                settings.host,
                settings.port,
                process_request=self._gatekeeper(StaticSite(self._web), parts, cap),
                max_size=HARD_FRAME_LIMIT,
                max_queue=16,
                close_timeout=CLOSE_TIMEOUT_SECONDS,
                logger=logging.getLogger("visual_degrees_tools.local.websockets"),
            ) as server:
                bound = next(iter(server.sockets)).getsockname()
                self.address = Address(settings.host, int(bound[1]))
                if ready is not None:
                    ready(self.address)
                await stop.wait()
                stopped = await self._wind_down(parts)
        finally:
            loud_again()
            if keeper is not None:
                keeper.cancel()
            if not parts.runs.stopped:  # we are leaving abnormally (cancelled, failed to bind): no orphans
                stopped = parts.runs.shutdown()
            parts.inflight.stop()  # every run has ended: nothing is left for a successor to end
            # Waited for off the loop: a request still in an I/O thread may need the loop to finish.
            await parts.loop.run_in_executor(None, parts.io.shutdown)
        log.info(
            "server stopped",
            extra={
                "cancelledRuns": stopped.cancelled,
                "finishedRuns": stopped.finished,
                "refusedRuns": stopped.refused,
            },
        )
        return stopped

    def _compose(self, loop: asyncio.AbstractEventLoop) -> _Parts:
        """The protocol's use case over the local adapters, for one `serve`."""
        settings = self.settings
        io = ThreadPoolExecutor(settings.io_threads, thread_name_prefix="vd-io")

        def offload(work: Callable[[], T]) -> asyncio.Future[T]:
            return loop.run_in_executor(io, work)

        async def read_log(run_id: str, from_seq: int) -> list[Published]:
            events = await offload(lambda: EventLog(self.memory).read(run_id, from_seq))
            return [Published.of(e) for e in events]

        broker = Broker(read_log)
        sink = BrokerSink(broker, loop, self._on_deliver)
        pacer = Pacer(self._environment, settings.speed) if settings.speed > 0 else None
        inflight = InFlight(self.memory)
        runs = LocalExecutions(
            LocalRunner(self.memory, pacer or self._environment),
            sink,
            limits=settings.limits,
            pacer=pacer,
            inflight=inflight,
        )
        sessions = Sessions(loop)
        policy = StartPolicy(
            settings.ceilings.lowered(RunOptions()),
            settings.limits.per_client,
            require_known=self._require_known,
            ceilings=settings.ceilings,
        )
        api = RunsApi(self.memory, runs, sessions, sessions, admission=runs, policy=policy)
        return _Parts(loop, io, offload, broker, sink, inflight, runs, sessions, api)

    async def _keep_lease(self, parts: _Parts) -> None:
        """Say we are alive; end the runs of servers that are not (one sharing this state directory
        may have died while we serve)."""
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            self.refusals.flush()  # what was refused since the last line, if anything
            try:
                await parts.offload(parts.inflight.renew)
                await parts.offload(lambda: parts.inflight.recover(parts.sink))
            except Exception:
                log.exception("could not renew the server's lease")

    def _connection_handler(self, parts: _Parts) -> Callable[[ServerConnection], Awaitable[None]]:
        async def handler(socket: ServerConnection) -> None:
            settings = self.settings
            viewing = self._viewers.pop(socket, None)
            session = Session(
                socket,
                parts.api,
                parts.broker,
                parts.offload,
                limits=settings.rate,
                outbox_bytes=settings.outbox_bytes,
                client_id=run_sharing.viewer_id(viewing) if viewing else None,
            )
            parts.sessions.add(session)
            try:
                async for frame in socket:
                    # Once we close, frames still in flight are read and dropped, so the client's
                    # closing handshake (queued behind them) is seen instead of timing out.
                    if not session.outbox.closing:
                        await session.handle(frame)
            except ConnectionClosed:
                pass
            finally:
                parts.sessions.discard(session)
                await session.close()

        return handler

    async def _wind_down(self, parts: _Parts) -> Stopped:
        """New runs are refused from here on; running ones stop at their next boundary and their
        `cancelled` events still reach the clients that follow them."""
        stopped = await parts.loop.run_in_executor(None, parts.runs.shutdown)
        for session in list(parts.sessions):
            session.outbox.close(1001, "server shutting down")
        flushes = [asyncio.ensure_future(s.outbox.flushed()) for s in list(parts.sessions)]
        if flushes:
            await asyncio.wait(flushes, timeout=FLUSH_SECONDS)
        return stopped

    def _gatekeeper(
        self, site: StaticSite, parts: _Parts, cap: int
    ) -> Callable[[ServerConnection, Request], Response | Awaitable[Response | None] | None]:
        """Requests must name this server (Host: no DNS rebinding). HTTP requests get the page or a
        photo; WebSocket upgrades to /ws pass if the origin is ours (no other site can drive this
        server from a visitor's browser), the token matches (or is the share token of the run
        named, for a viewer of it) and there is room (gate.py)."""
        settings = self.settings
        hosts = HostNames(settings.host, settings.allowed_hosts)
        refusals = self.refusals
        sessions = parts.sessions

        def room() -> Response | None:
            if len(sessions) >= cap:
                refusals.add(f"over the cap of {cap} connections")
                return plain(503, "too many connections; try again shortly", Retry_After="5")
            return None

        async def viewer(connection: ServerConnection, run_id: str, offered: str) -> Response | None:
            # The share token is checked against the run's record in an I/O thread (never on the loop).
            if not await parts.offload(lambda: RunAccess(self.memory).shared(run_id, offered)):
                return plain(401, "missing or wrong token")
            self._viewers[connection] = run_id
            return room()

        def process_request(
            connection: ServerConnection, request: Request
        ) -> Response | Awaitable[Response | None] | None:
            url = urlsplit(request.path)
            if getattr(request, "method", "GET") != "GET":  # websockets < 14 parses GET only
                return plain(405, "only GET is served here")
            named = request.headers.get_all("Host")
            if len(named) != 1 or not hosts.allows(named[0]):
                refusals.add("for another host name")
                return plain(421, "this server does not answer to that host name")
            upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
            if url.path != WS_PATH:
                if upgrade:
                    return not_found()
                return site.respond(request.path, request.headers.get("If-None-Match"))  # query: /api/names
            if not upgrade:
                return None  # websockets answers 426 Upgrade Required
            origin = request.headers.get("Origin")
            if origin is not None and not _origin_allowed(origin, request.headers.get("Host", ""), settings):
                return plain(403, "this origin may not connect")
            if settings.token is not None:
                query = parse_qs(url.query)
                offered = query.get("token", [""])[0]
                if not hmac.compare_digest(offered.encode(), settings.token.encode()):
                    run_id = query.get(run_sharing.RUN_QUERY_PARAMETER, [""])[0]
                    if not is_run_id(run_id):
                        return plain(401, "missing or wrong token")
                    return viewer(connection, run_id, offered)
            return room()

        return process_request


def _origin_allowed(origin: str, host: str, settings: ServeSettings) -> bool:
    if origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc.lower() == host.lower() != ""
