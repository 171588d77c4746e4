"""SSRF-safe image download: public addresses only, checked again on every redirect.

We resolve the host ourselves, refuse it unless every address is public (or inside the
configured allowlist), then connect to the very address we checked: the URL is rewritten to the
IP, with the original Host header and TLS server name, so no second DNS lookup can rebind it.
Bodies are streamed against a byte cap. One total deadline covers the whole exchange (every
hop's connect, request, headers and body): httpx's own timeouts only bound the silence between
two reads, so a peer dripping a byte a second would never trip them; a timer shuts the socket in
flight when the deadline passes instead. Decoding is bounded separately (image_convert) and runs
on one thread, one image at a time, however many downloads run in parallel.
Every failure is an ImageRejected (a ProviderError): one unusable picture is skipped, never retried
by the workflow (a timeout included: the next result is a better bet than the same slow host).
"""

from __future__ import annotations

import contextlib
import io
import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from visual_degrees.adapters.live.image_convert import ImageLimits, ImageRejected, prepare_for_recognition
from visual_degrees.adapters.live.net_guard import AddressGuard, IPAddress, Resolver, system_resolver
from visual_degrees.domain.models import FetchedImage

logger = logging.getLogger(__name__)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "visual-degrees/0.1 (+face co-appearance checker)"
# httpcore's trace events that hand over a connection's socket (TCP, then the TLS one wrapping
# it), and the one that comes just before the connection is closed (we never pool connections).
_SOCKET_EVENTS = frozenset({"connection.connect_tcp.complete", "connection.start_tls.complete"})
_CLOSING_EVENT = "http11.response_closed.started"


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 20 * 1024 * 1024  # the body as sent, before any conversion
    connect_timeout: float = 3.0
    read_timeout: float = 5.0  # silence allowed between two reads
    total_timeout: float = 15.0  # the whole exchange: redirects, connects, headers and body
    max_redirects: int = 3


@dataclass(frozen=True)
class _Target:
    url: httpx.URL  # as given (host name), for Host, SNI and resolving relative redirects
    address: IPAddress  # the checked address we connect to


class SafeImageFetcher:
    """ImageFetcher port over httpx. `resolver` and `client` are injectable for tests."""

    def __init__(
        self,
        limits: FetchLimits | None = None,
        image_limits: ImageLimits | None = None,
        *,
        guard: AddressGuard | None = None,
        resolver: Resolver | None = None,
        client: httpx.Client | None = None,
        clock: Callable[[], float] = time.monotonic,
        decoder: Executor | None = None,
    ) -> None:
        self._limits = limits or FetchLimits()
        self._image_limits = image_limits or ImageLimits()
        self._guard = guard or AddressGuard()
        self._resolve = resolver or system_resolver
        self._client = client
        self._clock = clock
        # Downloads run as many at once as the caller likes; conversions run on one thread, one
        # at a time. Decoding is CPU-bound (a 1024 MB Lambda has about half a core), so parallel
        # decodes would not finish sooner; one at a time, peak memory is one decode's, not eight;
        # and on one thread glibc reuses one malloc arena instead of fragmenting one per worker.
        self._own_decoder = decoder is None
        self._decoder = decoder or ThreadPoolExecutor(max_workers=1, thread_name_prefix="vd-decode")
        if self._guard.allow:
            logger.warning(
                "image fetcher may reach non-public networks",
                extra={"allow_networks": [str(n) for n in self._guard.allow]},
            )

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(
                timeout=httpx.Timeout(
                    connect=self._limits.connect_timeout,
                    read=self._limits.read_timeout,
                    write=self._limits.read_timeout,
                    pool=self._limits.connect_timeout,
                ),
                follow_redirects=False,  # each hop is checked by us
                trust_env=False,  # a proxy would do its own DNS: the checked address would not be used
                # No pooled connections: a TLS connection verified for one host name must not
                # serve another name that resolves to the same address.
                limits=httpx.Limits(max_keepalive_connections=0),
            )
        return self._client

    def fetch(self, url: str) -> FetchedImage:
        with _Deadline(self._limits.total_timeout, self._clock) as deadline:
            data = self._download(_parse(url), deadline)
        prepared = prepare_for_recognition(data, self._image_limits, decoder=self._decoder)
        return FetchedImage(
            url=url,
            data=prepared.data,
            content_type=prepared.content_type,
            sha256=prepared.sha256,
            width=prepared.width,
            height=prepared.height,
        )

    def _download(self, current: httpx.URL, deadline: _Deadline) -> bytes:
        for hop in range(self._limits.max_redirects + 1):
            deadline.check()
            target = self._check(current)
            data, location = self._get(target, deadline)
            if location is None:
                return data
            if hop == self._limits.max_redirects:
                break
            current = _parse(_resolve_location(current, location))
        raise ImageRejected("too_many_redirects", f"more than {self._limits.max_redirects} redirects")

    def _check(self, url: httpx.URL) -> _Target:
        host = _ascii_host(url)
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            literal = None
        if literal is not None:
            addresses: list[IPAddress] = [literal]
        else:
            try:
                answers = self._resolve(host, url.port or _default_port(url.scheme))
                addresses = [ipaddress.ip_address(a) for a in answers]
            except (OSError, ValueError, UnicodeError):
                raise ImageRejected("unresolvable", f"cannot resolve host {host!r}") from None
        if not addresses:
            raise ImageRejected("unresolvable", f"host {host!r} has no address")
        # Every answer must pass: a mixed answer is how DNS rebinding picks its moment.
        for address in addresses:
            refusal = self._guard.refusal(address)
            if refusal is not None:
                raise ImageRejected("blocked_address", f"host {host!r} resolves to a {refusal} address")
        # Connect over IPv4 when offered: many hosts (and Lambda) have no IPv6 route.
        preferred = next((a for a in addresses if a.version == 4), addresses[0])
        return _Target(url=url, address=preferred)

    def _get(self, target: _Target, deadline: _Deadline) -> tuple[bytes, str | None]:
        """(image body, None) for a final answer, or (b"", location) for a redirect."""
        url = target.url
        pinned = url.copy_with(host=str(target.address))
        headers = {
            "Host": _host_header(url),
            "Accept": "image/jpeg,image/png;q=0.9,image/*;q=0.8",
            "Accept-Encoding": "identity",
            "User-Agent": USER_AGENT,
        }
        extensions: dict[str, Any] = {"trace": deadline.trace}
        if url.scheme == "https":
            extensions["sni_hostname"] = _ascii_host(url)
        deadline.check()  # resolving may have used it up
        remaining = deadline.remaining()
        # Nothing may wait past the deadline, connecting included (the timer can only cut a socket
        # that exists).
        timeout = httpx.Timeout(
            connect=min(self._limits.connect_timeout, remaining),
            read=min(self._limits.read_timeout, remaining),
            write=min(self._limits.read_timeout, remaining),
            pool=min(self._limits.connect_timeout, remaining),
        )
        try:
            # follow_redirects=False even on an injected client: every hop must pass _check.
            with self._http().stream(
                "GET",
                pinned,
                headers=headers,
                extensions=extensions,
                follow_redirects=False,
                timeout=timeout,
            ) as response:
                if response.status_code in REDIRECT_STATUSES:
                    location = response.headers.get("location")
                    if not location:
                        raise ImageRejected("bad_redirect", f"HTTP {response.status_code} without Location")
                    return b"", location
                if response.status_code != 200:
                    raise ImageRejected(
                        f"http_{response.status_code}", f"image host answered HTTP {response.status_code}"
                    )
                # Refused before a byte of the body is read.
                content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if not content_type.startswith("image/"):
                    raise ImageRejected(
                        "not_an_image", f"content type {content_type or 'none'!r} is not an image"
                    )
                encoding = response.headers.get("content-encoding", "identity").strip().lower()
                if encoding not in ("", "identity"):
                    # We asked for identity; a compressed body could expand far past the cap in one read.
                    raise ImageRejected("encoded_body", f"image sent with content-encoding {encoding!r}")
                return self._read_capped(response, deadline), None
        except httpx.HTTPError as exc:
            # A connection we cut at the deadline fails however it likes (reset, EOF mid-body).
            if deadline.expired:
                raise deadline.rejection() from None
            if isinstance(exc, httpx.TimeoutException):
                raise ImageRejected("timeout", "image host timed out") from None
            raise ImageRejected("unreachable", f"image host unreachable: {type(exc).__name__}") from None

    def _read_capped(self, response: httpx.Response, deadline: _Deadline) -> bytes:
        cap = self._limits.max_bytes
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise ImageRejected("too_large", f"image is {declared} bytes; the limit is {cap}")
        # BytesIO.getvalue() hands over its buffer without a copy: one body in memory, not two.
        body = io.BytesIO()
        # Chunks as they arrive (no re-chunking: a trickle is checked byte by byte, not per 64 KiB).
        for chunk in response.iter_bytes():
            if body.tell() + len(chunk) > cap:
                raise ImageRejected("too_large", f"image exceeds {cap} bytes")
            deadline.check()
            body.write(chunk)
        # A body without Content-Length ends when the connection does, a cut one included.
        deadline.check()
        return body.getvalue()

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._own_decoder:
            self._decoder.shutdown(wait=False)


class _Deadline:
    """One fetch's total time limit. When it passes, a timer shuts the socket in flight: a blocked
    read wakes up at once (shutdown does that from another thread; close does not), and the
    request fails instead of waiting on a peer that drips bytes (headers or body)."""

    def __init__(self, seconds: float, clock: Callable[[], float]) -> None:
        self.seconds = seconds
        self._clock = clock
        self._at = clock() + seconds
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._fired = False
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def remaining(self) -> float:
        return max(0.0, self._at - self._clock())

    @property
    def expired(self) -> bool:
        return self._fired or self._clock() >= self._at

    def rejection(self) -> ImageRejected:
        return ImageRejected("timeout", f"image download exceeded {self.seconds} s")

    def check(self) -> None:
        if self.expired:
            raise self.rejection()

    def trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's `trace` extension: follows the socket of the connection in flight."""
        if event == _CLOSING_EVENT:
            # Forgotten before httpcore closes it, under the lock _fire shuts it with: the timer
            # can never shut a descriptor number that another connection has since been given.
            with self._lock:
                self._socket = None
            return
        if event not in _SOCKET_EVENTS:
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._socket = sock
            if self._fired:  # connected just as the timer went off
                _shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self._fired = True
            if self._socket is not None:
                _shut(self._socket)


def _shut(sock: socket.socket) -> None:
    # The plain socket's shutdown even for TLS: SSLSocket.shutdown would also drop the SSL object
    # under the thread that is reading with it. The owner still closes the descriptor.
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def _parse(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ImageRejected("bad_url", "not a valid URL") from None
    if parsed.scheme not in ("http", "https"):
        raise ImageRejected("bad_url", f"scheme {parsed.scheme!r} is not http or https")
    if parsed.userinfo:
        raise ImageRejected("bad_url", "credentials in image URLs are refused")
    if not parsed.host:
        raise ImageRejected("bad_url", "URL has no host")
    return parsed


def _resolve_location(base: httpx.URL, location: str) -> str:
    try:
        return str(base.join(location))
    except (httpx.InvalidURL, TypeError, ValueError):
        raise ImageRejected("bad_redirect", "redirect to an invalid URL") from None


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


def _ascii_host(url: httpx.URL) -> str:
    """The host as sent on the wire (IDNA-encoded names, bare IPv6 literals)."""
    return url.raw_host.decode("ascii")


def _host_header(url: httpx.URL) -> str:
    host = _ascii_host(url)
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return host if url.port is None else f"{host}:{url.port}"
