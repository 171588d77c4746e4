"""SSRF-safe image download: public addresses only, checked again on every redirect.

We resolve the host ourselves, refuse it unless every address is public (or inside the
configured allowlist), then connect to the very address we checked: the URL is rewritten to the
IP, with the original Host header and TLS server name, so no second DNS lookup can rebind it.
Bodies are streamed against a byte cap and a wall-clock deadline. Every failure is an
ImageRejected (a ProviderError): one unusable picture is skipped, never retried by the workflow.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx

from visual_degrees.adapters.live.image_convert import ImageLimits, ImageRejected, prepare_for_recognition
from visual_degrees.adapters.live.net_guard import AddressGuard, IPAddress, Resolver, system_resolver
from visual_degrees.domain.models import FetchedImage

logger = logging.getLogger(__name__)

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "visual-degrees/0.1 (+face co-appearance checker)"
_CHUNK = 64 * 1024


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 20 * 1024 * 1024
    connect_timeout: float = 3.0
    read_timeout: float = 5.0
    total_timeout: float = 15.0
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
    ) -> None:
        self._limits = limits or FetchLimits()
        self._image_limits = image_limits or ImageLimits()
        self._guard = guard or AddressGuard()
        self._resolve = resolver or system_resolver
        self._client = client
        self._clock = clock
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
        deadline = self._clock() + self._limits.total_timeout
        current = _parse(url)
        for hop in range(self._limits.max_redirects + 1):
            if self._clock() > deadline:
                raise ImageRejected("timeout", f"image download exceeded {self._limits.total_timeout} s")
            target = self._check(current)
            data, location = self._get(target, deadline)
            if location is None:
                prepared = prepare_for_recognition(data, self._image_limits)
                return FetchedImage(
                    url=url,
                    data=prepared.data,
                    content_type=prepared.content_type,
                    sha256=prepared.sha256,
                    width=prepared.width,
                    height=prepared.height,
                )
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

    def _get(self, target: _Target, deadline: float) -> tuple[bytes, str | None]:
        """(image body, None) for a final answer, or (b"", location) for a redirect."""
        url = target.url
        pinned = url.copy_with(host=str(target.address))
        headers = {
            "Host": _host_header(url),
            "Accept": "image/jpeg,image/png;q=0.9,image/*;q=0.8",
            "Accept-Encoding": "identity",
            "User-Agent": USER_AGENT,
        }
        extensions = {"sni_hostname": _ascii_host(url)} if url.scheme == "https" else {}
        try:
            # follow_redirects=False even on an injected client: every hop must pass _check.
            with self._http().stream(
                "GET", pinned, headers=headers, extensions=extensions, follow_redirects=False
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
        except httpx.TimeoutException:
            raise ImageRejected("timeout", "image host timed out") from None
        except httpx.HTTPError as exc:
            raise ImageRejected("unreachable", f"image host unreachable: {type(exc).__name__}") from None

    def _read_capped(self, response: httpx.Response, deadline: float) -> bytes:
        cap = self._limits.max_bytes
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise ImageRejected("too_large", f"image is {declared} bytes; the limit is {cap}")
        chunks: list[bytes] = []
        received = 0
        for chunk in response.iter_bytes(_CHUNK):
            received += len(chunk)
            if received > cap:
                raise ImageRejected("too_large", f"image exceeds {cap} bytes")
            if self._clock() > deadline:
                raise ImageRejected("timeout", f"image download exceeded {self._limits.total_timeout} s")
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


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
