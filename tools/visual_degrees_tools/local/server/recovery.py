"""Runs a server left unfinished when it died (`kill -9`, a crash, a power cut), ended honestly.

A run lives in the server's threads; if the process dies, nothing will ever carry it on or end it,
and its meta would say `running` for ever. So the server keeps, in the state directory, the runs it
has taken and not yet finished (`local#inflight` / run id -> which server), and a lease saying it
is alive (`local#servers` / server id, renewed every RENEW_SECONDS, expiring after LEASE_SECONDS).
At start, and at every renewal, a server ends the runs of every server that is gone with one
`error` event (code `server_stopped`) through the one ending writer, records the execution as
failed for `visual-degrees trace`, and forgets them: `getRun`, `subscribe` and `trace` all tell the
same ending, and `cancelRun` has nothing left to stop.

A server is gone when its lease has expired, or at once when it ran on this machine and its process
no longer exists (so a restart right after a `kill -9` ends the old runs before serving). A server
sharing the state directory and still alive keeps its runs; so do runs of `visual-degrees run`,
which this registry does not hold.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from visual_degrees.domain.ids import execution_name
from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, RunEvent
from visual_degrees.ports import EventSink, Memory, Put
from visual_degrees.services.endings import end_run
from visual_degrees.services.event_log import run_pk
from visual_degrees_tools.local.asl.history import History
from visual_degrees_tools.local.executions import ExecutionStore

log = logging.getLogger(__name__)

RUNS_PK = "local#inflight"
SERVERS_PK = "local#servers"
LEASE_SECONDS = 30
RENEW_SECONDS = 10.0
STOPPED_CODE = "server_stopped"
STOPPED_MESSAGE = (
    "The server stopped while this run was in flight, so it never finished. Start it again to get an answer."
)
_LIVE_HERE: set[str] = set()  # servers of this process that have not stopped (tests run several)
_LIVE_LOCK = threading.Lock()


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


@dataclass(frozen=True)
class ServerId:
    instance: str = field(default_factory=lambda: secrets.token_hex(6))
    pid: int = field(default_factory=os.getpid)
    host: str = field(default_factory=socket.gethostname)


class InFlight:
    """The runs one server holds unfinished, kept where a successor can find them."""

    def __init__(
        self,
        memory: Memory,
        server: ServerId | None = None,
        *,
        clock: Callable[[], float] = time.time,
        exists: Callable[[int], bool] = process_exists,
    ) -> None:
        self._memory = memory
        self.server = server or ServerId()
        self._clock = clock
        self._exists = exists

    # ---- this server ---------------------------------------------------------------------------

    def start(self) -> None:
        with _LIVE_LOCK:
            _LIVE_HERE.add(self.server.instance)
        self.renew()

    def renew(self) -> None:
        data = {"pid": self.server.pid, "host": self.server.host, "renewedAt": self._clock()}
        self._memory.put(Put(SERVERS_PK, self.server.instance, data, LEASE_SECONDS))

    def stop(self) -> None:
        with _LIVE_LOCK:
            _LIVE_HERE.discard(self.server.instance)
        self._memory.delete(SERVERS_PK, self.server.instance)

    def add(self, run_id: str, ttl_seconds: int) -> None:
        data = {"server": self.server.instance, "ttlSeconds": ttl_seconds, "takenAt": self._clock()}
        self._memory.put(Put(RUNS_PK, run_id, data, ttl_seconds))

    def remove(self, run_id: str) -> None:
        self._memory.delete(RUNS_PK, run_id)

    # ---- the others ----------------------------------------------------------------------------

    def alive(self, instance: str) -> bool:
        """Whether the server `instance` may still be running its runs."""
        if instance == self.server.instance:
            return True
        lease = self._memory.get(SERVERS_PK, instance)
        if lease is None:  # expired or removed: it stopped renewing
            return False
        pid, host = int(lease.data.get("pid", 0)), str(lease.data.get("host", ""))
        if host != self.server.host:
            return True  # another machine sharing the directory: only its lease can tell
        if pid == self.server.pid:
            with _LIVE_LOCK:
                return instance in _LIVE_HERE
        return self._exists(pid)

    def orphans(self) -> list[tuple[str, dict[str, Any]]]:
        """(run id, registry entry) of every run whose server is gone."""
        verdicts: dict[str, bool] = {}
        found = []
        for item in self._memory.query(RUNS_PK):
            instance = str(item.data.get("server", ""))
            if instance not in verdicts:
                verdicts[instance] = self.alive(instance)
            if not verdicts[instance]:
                found.append((item.sk, item.data))
        return found

    def recover(self, sink: EventSink | None = None) -> list[str]:
        """End every run a gone server left unfinished; their ids."""
        ended = []
        for run_id, entry in self.orphans():
            try:
                self._end(run_id, entry, sink)
            except Exception:  # one run we could not end must not keep the server from serving
                log.exception("could not end an interrupted run", extra={"runId": run_id})
                continue
            ended.append(run_id)
        if ended:
            log.warning(
                "ended %d runs that a stopped server left unfinished (error %s)",
                len(ended),
                STOPPED_CODE,
                extra={"runIds": ended},
            )
        return ended

    def _end(self, run_id: str, entry: dict[str, Any], sink: EventSink | None) -> None:
        ttl = int(entry.get("ttlSeconds", DEFAULT_TTL_SECONDS))
        data = {"code": STOPPED_CODE, "message": STOPPED_MESSAGE}
        now = self._clock()
        event = end_run(self._memory, sink, run_id, ttl, "error", data, at=now, code=STOPPED_CODE)
        if event.type == "error" and event.data.get("code") == STOPPED_CODE:
            self._record_execution(run_id, now, event)
        self.remove(run_id)

    def _record_execution(self, run_id: str, at: float, ending: RunEvent) -> None:
        """What `trace` shows: the execution failed because its server stopped (its history died
        with the process)."""
        owner = self._memory.get(run_pk(run_id), "owner")
        people = owner.data if owner is not None else {}
        meta = self._memory.get(run_pk(run_id), "meta")
        segment = int((meta.data if meta is not None else {}).get("segment", 0))
        history = History(lambda: at, max_events=2)
        history.close(
            "ExecutionFailed",
            "executionFailedEventDetails",
            {"error": "ServerStopped", "cause": STOPPED_MESSAGE},
        )
        ExecutionStore(self._memory).save(
            execution_name(run_id, segment),
            "FAILED",
            0,
            history.events,
            ending=ending,
            runId=run_id,
            segment=segment,
            personA=people.get("personA", "?"),
            personB=people.get("personB", "?"),
            outcome="error",
        )
