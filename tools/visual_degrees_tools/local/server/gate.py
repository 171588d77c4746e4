"""Who may reach the local server, and how it says no without flooding its log.

- **Host names.** A page on another site can make a browser talk to this server through DNS
  rebinding (its own name resolved to 127.0.0.1): the browser then sends that site's name as `Host`.
  Only the server's own names are served: `localhost`, the loopback addresses, the address it is
  bound to, and `--allowed-host` names; bound to every interface, also any IP address (an address
  cannot be rebound) and this machine's host name. Anything else gets 421 Misdirected Request, for
  the page and for the WebSocket alike.
- **Connections.** At most `max_connections` WebSocket connections at once; the next is refused with
  503 before the upgrade (Retry-After), and the cap is kept below the process's descriptor limit
  (raised to the hard limit when it can be, else the cap is lowered and the log says so), so the
  server never runs out of descriptors by taking connections.
- **Quiet refusals.** Refusals, and the event loop's `accept()` failing for want of descriptors (which
  asyncio would log with a traceback on every attempt), are counted and logged at most once per
  `LOG_INTERVAL_SECONDS`, with the counts.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

LOG_INTERVAL_SECONDS = 10.0
RESERVED_DESCRIPTORS = 32  # stdio, listening sockets, SQLite (database, WAL, shm), epoll, page requests
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_ACCEPT_FAILED = "socket.accept() out of system resource"


def host_name(header: str) -> str:
    """The name in a Host header, without port, brackets or a trailing dot, in lower case."""
    text = header.strip().lower()
    if text.startswith("["):  # [::1]:8765
        return text[1 : text.find("]")] if "]" in text else ""
    if text.count(":") == 1:
        text = text.split(":", 1)[0]
    return text.rstrip(".")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostNames:
    """The names this server answers to (see the module docstring)."""

    def __init__(self, bound: str, allowed: tuple[str, ...] = ()) -> None:
        self.every_interface = bound in WILDCARDS
        names = set(LOOPBACK_NAMES) | {host_name(a) for a in allowed if a.strip()}
        if not self.every_interface:
            names.add(host_name(bound) if not _is_address(bound) else bound.lower())
        else:
            names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        self.names = frozenset(n for n in names if n)

    def allows(self, header: str | None) -> bool:
        if not header:
            return False
        name = host_name(header)
        return name in self.names or (self.every_interface and _is_address(name))


class Refusals:
    """Counts of refused connections by reason, logged at most once per interval."""

    def __init__(self, interval: float = LOG_INTERVAL_SECONDS, clock: Callable[[], float] = time.monotonic):
        self._interval = interval
        self._clock = clock
        self._counts: Counter[str] = Counter()
        self._total: Counter[str] = Counter()
        self._last = float("-inf")
        self._lock = threading.Lock()

    def add(self, reason: str) -> None:
        with self._lock:
            self._counts[reason] += 1
            self._total[reason] += 1
        self.flush()

    def flush(self) -> None:
        """Log what was refused since the last line, if an interval has passed since it."""
        with self._lock:
            now = self._clock()
            if not self._counts or now - self._last < self._interval:
                return
            counts, self._counts = dict(self._counts), Counter()
            self._last = now
        log.warning(
            "refused connections: %s",
            ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items())),
            extra={"refused": counts},
        )

    @property
    def total(self) -> dict[str, int]:
        with self._lock:
            return dict(self._total)


def quiet_accept_errors(loop: asyncio.AbstractEventLoop, refusals: Refusals) -> Callable[[], None]:
    """Count the loop's `accept()` failures (out of descriptors) instead of logging each with its
    traceback; everything else goes to the handler that was there. Returns the undo."""
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if str(context.get("message", "")).startswith(_ACCEPT_FAILED):
            refusals.add("not accepted (out of file descriptors)")
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
    return lambda: loop.set_exception_handler(previous)


def connection_cap(wanted: int, reserved: int = RESERVED_DESCRIPTORS) -> int:
    """`wanted`, or fewer if the process may not open that many descriptors: the soft limit is raised
    towards the hard one first. (No limit to read, as on Windows: `wanted`.)"""
    try:
        import resource
    except ImportError:
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = wanted + reserved
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return wanted
    cap = max(1, soft - reserved)
    log.warning(
        "only %d open files allowed (ulimit -n): serving at most %d connections instead of %d",
        soft,
        cap,
        wanted,
    )
    return cap
