"""The fetcher's address checks, pinning, redirects and limits, over a mock transport (no sockets).

DNS is faked: names resolve to whatever each test says, including private addresses.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from tests.support.fake_wire_servers import photo_bytes
from tests.unit.adapters.image_helpers import CountingExecutor
from visual_degrees.adapters.live.image_convert import ImageLimits, ImageRejected
from visual_degrees.adapters.live.image_fetcher import FetchLimits, SafeImageFetcher
from visual_degrees.adapters.live.net_guard import AddressGuard, parse_networks

JPEG = photo_bytes("fetch-me")
PUBLIC = "93.184.216.34"


class FakeDNS:
    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.answers:
            raise OSError("NXDOMAIN")
        return self.answers[host]


class Web:
    """Answers by (connected address, Host header, path); records every request."""

    def __init__(self, routes: dict[str, Callable[[httpx.Request], httpx.Response]]) -> None:
        self.routes = routes
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        key = f"{request.headers['host']}{request.url.path}"
        handler = self.routes.get(key)
        return handler(request) if handler else httpx.Response(404)


def image(data: bytes = JPEG, content_type: str = "image/jpeg") -> Callable[[httpx.Request], httpx.Response]:
    return lambda _r: httpx.Response(200, headers={"Content-Type": content_type}, content=data)


def redirect(location: str, status: int = 302) -> Callable[[httpx.Request], httpx.Response]:
    return lambda _r: httpx.Response(status, headers={"Location": location})


def fetcher(
    web: Web,
    dns: FakeDNS,
    *,
    allow: list[str] | None = None,
    limits: FetchLimits | None = None,
    image_limits: ImageLimits | None = None,
) -> SafeImageFetcher:
    client = httpx.Client(transport=httpx.MockTransport(web), follow_redirects=False)
    return SafeImageFetcher(
        limits or FetchLimits(),
        image_limits,
        guard=AddressGuard(allow=parse_networks(allow or [])),
        resolver=dns,
        client=client,
    )


def reason(call: Callable[[], object]) -> str:
    with pytest.raises(ImageRejected) as caught:
        call()
    return caught.value.reason


def test_fetches_from_the_checked_address_with_the_original_host_and_server_name() -> None:
    # Given a public host serving a JPEG
    web = Web({"photos.example/a.jpg": image()})
    dns = FakeDNS({"photos.example": [PUBLIC]})
    # When fetched over https
    fetched = fetcher(web, dns).fetch("https://photos.example/a.jpg")
    # Then the bytes come back with their sha256, and the connection went to the address we checked
    assert fetched.data == JPEG
    assert fetched.sha256 == hashlib.sha256(JPEG).hexdigest()
    assert fetched.url == "https://photos.example/a.jpg"
    assert (fetched.content_type, fetched.width, fetched.height) == ("image/jpeg", 320, 240)
    sent = web.requests[0]
    assert sent.url.host == PUBLIC  # no second lookup by the HTTP stack
    assert sent.headers["host"] == "photos.example"
    assert sent.extensions["sni_hostname"] == "photos.example"  # TLS still verifies the name
    assert sent.headers["accept-encoding"] == "identity"
    assert dns.asked == ["photos.example"]


@pytest.mark.parametrize(
    "answer",
    [
        ["127.0.0.1"],
        ["10.0.0.8"],
        ["169.254.169.254"],
        ["::1"],
        ["fd00::5"],
        ["100.64.1.1"],
        ["::ffff:10.0.0.1"],
    ],
)
def test_names_resolving_to_private_space_are_refused_without_connecting(answer: list[str]) -> None:
    web = Web({"evil.example/a.jpg": image()})
    assert reason(
        lambda: fetcher(web, FakeDNS({"evil.example": answer})).fetch("http://evil.example/a.jpg")
    ) == ("blocked_address")
    assert web.requests == []


def test_a_mixed_answer_is_refused_even_if_the_first_address_is_public() -> None:
    web = Web({"rebind.example/a.jpg": image()})
    dns = FakeDNS({"rebind.example": [PUBLIC, "127.0.0.1"]})
    assert reason(lambda: fetcher(web, dns).fetch("http://rebind.example/a.jpg")) == "blocked_address"
    assert web.requests == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/a.jpg",
        "http://[::1]/a.jpg",
        "http://169.254.169.254/latest/meta-data/",
        "http://0x7f.1/",
    ],
)
def test_address_literals_are_checked_too(url: str) -> None:
    web = Web({})
    dns = FakeDNS({"0x7f.1": ["127.0.0.1"]})
    assert reason(lambda: fetcher(web, dns).fetch(url)) == "blocked_address"
    assert web.requests == []


def test_redirect_into_private_space_is_refused_before_following_it() -> None:
    # Given a public page redirecting to the metadata service by name
    web = Web({"photos.example/a.jpg": redirect("http://metadata.internal/latest/")})
    dns = FakeDNS({"photos.example": [PUBLIC], "metadata.internal": ["169.254.169.254"]})
    # Then the redirect target is resolved, checked and refused: only the first hop was requested
    assert reason(lambda: fetcher(web, dns).fetch("http://photos.example/a.jpg")) == "blocked_address"
    assert len(web.requests) == 1


def test_relative_redirects_are_followed_and_re_checked() -> None:
    web = Web({"photos.example/a.jpg": redirect("/b.jpg", 301), "photos.example/b.jpg": image()})
    dns = FakeDNS({"photos.example": [PUBLIC]})
    assert fetcher(web, dns).fetch("http://photos.example/a.jpg").data == JPEG
    assert dns.asked == ["photos.example", "photos.example"]


def test_at_most_three_redirects() -> None:
    routes = {f"photos.example/{i}": redirect(f"/{i + 1}") for i in range(10)}
    routes["photos.example/3"] = image()
    web = Web(routes)
    dns = FakeDNS({"photos.example": [PUBLIC]})
    # three hops are fine...
    assert fetcher(web, dns).fetch("http://photos.example/0").data == JPEG
    # ...four are not
    routes["photos.example/3"] = redirect("/4")
    routes["photos.example/4"] = image()
    assert reason(lambda: fetcher(web, dns).fetch("http://photos.example/0")) == "too_many_redirects"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("file:///etc/passwd", "bad_url"),
        ("ftp://photos.example/a.jpg", "bad_url"),
        ("gopher://photos.example/", "bad_url"),
        ("http://user:secret@photos.example/a.jpg", "bad_url"),
        ("http:///nohost", "bad_url"),
        ("not a url at all", "bad_url"),
        ("http://unknown.example/a.jpg", "unresolvable"),
    ],
)
def test_unusable_urls_are_refused(url: str, why: str) -> None:
    web = Web({})
    assert reason(lambda: fetcher(web, FakeDNS({"photos.example": [PUBLIC]})).fetch(url)) == why
    assert web.requests == []


def test_redirect_to_another_scheme_is_refused() -> None:
    web = Web({"photos.example/a.jpg": redirect("file:///etc/passwd")})
    assert reason(
        lambda: fetcher(web, FakeDNS({"photos.example": [PUBLIC]})).fetch("http://photos.example/a.jpg")
    ) == ("bad_url")


def test_non_image_content_type_is_refused_before_the_body_is_read() -> None:
    streamed: list[int] = []

    def html(_request: httpx.Request) -> httpx.Response:
        def body() -> Iterator[bytes]:
            streamed.append(1)
            yield b"<html></html>"

        return httpx.Response(200, headers={"Content-Type": "text/html"}, content=body())

    web = Web({"photos.example/a.jpg": html})
    assert reason(
        lambda: fetcher(web, FakeDNS({"photos.example": [PUBLIC]})).fetch("http://photos.example/a.jpg")
    ) == ("not_an_image")
    assert streamed == []


def test_declared_length_over_the_cap_is_refused_up_front() -> None:
    web = Web({"photos.example/a.jpg": image(b"x" * 2048)})
    limits = FetchLimits(max_bytes=1024)
    assert reason(
        lambda: fetcher(web, FakeDNS({"photos.example": [PUBLIC]}), limits=limits).fetch(
            "http://photos.example/a.jpg"
        )
    ) == ("too_large")


def test_an_endless_body_is_cut_at_the_cap() -> None:
    produced: list[int] = []

    def endless(_request: httpx.Request) -> httpx.Response:
        def body() -> Iterator[bytes]:
            while True:  # bounded by the fetcher's cap, which is what this test proves
                produced.append(4096)
                yield b"\xff" * 4096

        return httpx.Response(200, headers={"Content-Type": "image/jpeg"}, content=body())

    web = Web({"photos.example/a.jpg": endless})
    limits = FetchLimits(max_bytes=64 * 1024)
    assert reason(
        lambda: fetcher(web, FakeDNS({"photos.example": [PUBLIC]}), limits=limits).fetch(
            "http://photos.example/a.jpg"
        )
    ) == ("too_large")
    assert sum(produced) <= 2 * 64 * 1024 + 4096  # the cap plus at most one read chunk


def test_http_errors_and_timeouts_are_rejections_not_crashes() -> None:
    def timeout(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    def refused(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    web = Web(
        {
            "photos.example/gone.jpg": lambda _r: httpx.Response(404),
            "photos.example/busy.jpg": lambda _r: httpx.Response(503),
            "photos.example/slow.jpg": timeout,
            "photos.example/down.jpg": refused,
        }
    )
    f = fetcher(web, FakeDNS({"photos.example": [PUBLIC]}))
    assert reason(lambda: f.fetch("http://photos.example/gone.jpg")) == "http_404"
    assert reason(lambda: f.fetch("http://photos.example/busy.jpg")) == "http_503"
    assert reason(lambda: f.fetch("http://photos.example/slow.jpg")) == "timeout"
    assert reason(lambda: f.fetch("http://photos.example/down.jpg")) == "unreachable"


def test_a_webp_is_converted_and_the_sha256_is_of_what_the_recogniser_gets() -> None:
    webp = photo_bytes("webp", fmt="WEBP")
    web = Web({"photos.example/a.webp": image(webp, "image/webp")})
    fetched = fetcher(web, FakeDNS({"photos.example": [PUBLIC]})).fetch("http://photos.example/a.webp")
    assert fetched.content_type == "image/jpeg"
    assert fetched.data != webp
    assert fetched.sha256 == hashlib.sha256(fetched.data).hexdigest()


def test_the_same_picture_at_two_urls_has_one_sha256() -> None:
    web = Web({"a.example/x.jpg": image(), "b.example/y.jpg": image()})
    f = fetcher(web, FakeDNS({"a.example": [PUBLIC], "b.example": ["93.184.216.35"]}))
    assert f.fetch("http://a.example/x.jpg").sha256 == f.fetch("https://b.example/y.jpg").sha256


def test_international_names_are_resolved_in_their_ascii_form() -> None:
    web = Web({"xn--bcher-kva.example/a.jpg": image()})
    dns = FakeDNS({"xn--bcher-kva.example": [PUBLIC]})
    assert fetcher(web, dns).fetch("http://bücher.example/a.jpg").data == JPEG
    assert web.requests[0].headers["host"] == "xn--bcher-kva.example"


def test_ipv4_is_preferred_when_both_families_are_public() -> None:
    web = Web({"photos.example/a.jpg": image()})
    fetcher(web, FakeDNS({"photos.example": ["2606:4700::1111", PUBLIC]})).fetch(
        "http://photos.example/a.jpg"
    )
    assert web.requests[0].url.host == PUBLIC


def test_the_allowlist_admits_its_networks_only() -> None:
    web = Web({"lab.internal/a.jpg": image(), "other.internal/a.jpg": image()})
    dns = FakeDNS({"lab.internal": ["10.20.0.5"], "other.internal": ["10.30.0.5"]})
    f = fetcher(web, dns, allow=["10.20.0.0/16"])
    assert f.fetch("http://lab.internal/a.jpg").data == JPEG
    assert reason(lambda: f.fetch("http://other.internal/a.jpg")) == "blocked_address"


def test_an_allowlist_is_logged_when_the_fetcher_is_built(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("WARNING")
    fetcher(Web({}), FakeDNS({}), allow=["127.0.0.1/32"])
    record = next(r for r in caplog.records if "non-public" in r.getMessage())
    assert record.allow_networks == ["127.0.0.1/32"]  # type: ignore[attr-defined]


def test_no_allowlist_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("WARNING")
    fetcher(Web({}), FakeDNS({}))
    assert not [r for r in caplog.records if "non-public" in r.getMessage()]


def test_a_redirect_to_an_invalid_url_is_a_rejection() -> None:
    web = Web({"photos.example/a.jpg": redirect("http://[::1")})
    f = fetcher(web, FakeDNS({"photos.example": [PUBLIC]}))
    # (httpx itself may refuse the Location header first: either way a rejection, and no second hop)
    assert reason(lambda: f.fetch("http://photos.example/a.jpg")) in {"bad_redirect", "unreachable"}
    assert len(web.requests) == 1


def test_a_compressed_body_is_refused_before_decoding() -> None:
    def gzipped(_request: httpx.Request) -> httpx.Response:
        headers = {"Content-Type": "image/jpeg", "Content-Encoding": "gzip"}
        return httpx.Response(200, headers=headers, content=b"\x1f\x8b")

    web = Web({"photos.example/a.jpg": gzipped})
    f = fetcher(web, FakeDNS({"photos.example": [PUBLIC]}))
    assert reason(lambda: f.fetch("http://photos.example/a.jpg")) == "encoded_body"


# ---- the total deadline --------------------------------------------------------------------------


def test_a_trickling_body_is_abandoned_at_the_total_deadline() -> None:
    # Given a body that keeps coming, a byte at a time, well within any read timeout
    produced: list[int] = []

    def trickle(_request: httpx.Request) -> httpx.Response:
        def body() -> Iterator[bytes]:
            for _ in range(400):  # 8 s in all, if nothing stopped it
                produced.append(1)
                time.sleep(0.02)
                yield b"\xff"

        return httpx.Response(200, headers={"Content-Type": "image/jpeg"}, content=body())

    web = Web({"photos.example/a.jpg": trickle})
    # (a deadline long enough for the first byte to come on a loaded machine too)
    limits = FetchLimits(read_timeout=5.0, total_timeout=1.0)
    f = fetcher(web, FakeDNS({"photos.example": [PUBLIC]}), limits=limits)
    # Then the whole body shares the 1 s: the fetch gives up long before the 400th byte
    assert reason(lambda: f.fetch("http://photos.example/a.jpg")) == "timeout"
    assert 0 < len(produced) < 400


def clocked_fetcher(web: Web, now: list[float]) -> SafeImageFetcher:
    client = httpx.Client(transport=httpx.MockTransport(web), follow_redirects=False)
    return SafeImageFetcher(
        FetchLimits(connect_timeout=3.0, read_timeout=5.0, total_timeout=15.0),
        resolver=FakeDNS({"photos.example": [PUBLIC]}),
        client=client,
        clock=lambda: now[0],
    )


def test_the_deadline_spans_every_redirect() -> None:
    # Given hops that take 6 s each (by the fetcher's clock), against a 15 s deadline
    now = [0.0]

    def slow_redirect(target: str) -> Callable[[httpx.Request], httpx.Response]:
        def answer(_request: httpx.Request) -> httpx.Response:
            now[0] += 6.0
            return httpx.Response(302, headers={"Location": target})

        return answer

    web = Web(
        {
            "photos.example/0": slow_redirect("/1"),
            "photos.example/1": slow_redirect("/2"),
            "photos.example/2": slow_redirect("/3"),
            "photos.example/3": image(),
        }
    )
    # Then the third hop ends it (18 s), though each hop alone was quick enough
    assert reason(lambda: clocked_fetcher(web, now).fetch("http://photos.example/0")) == "timeout"
    assert len(web.requests) == 3


def test_a_later_hop_may_wait_only_for_what_is_left_of_the_deadline() -> None:
    # Given a first hop that used 13 of the 15 s
    now = [0.0]

    def slow_redirect(_request: httpx.Request) -> httpx.Response:
        now[0] += 13.0
        return httpx.Response(302, headers={"Location": "/b.jpg"})

    web = Web({"photos.example/a.jpg": slow_redirect, "photos.example/b.jpg": image()})
    clocked_fetcher(web, now).fetch("http://photos.example/a.jpg")
    # Then the second request's connect and read timeouts are at most the 2 s left, not 3 and 5
    first, second = (r.extensions["timeout"] for r in web.requests)
    assert (first["connect"], first["read"]) == (3.0, 5.0)
    assert max(second.values()) == pytest.approx(2.0)


# ---- where conversions run --------------------------------------------------------------------


def test_conversions_run_on_the_fetchers_decoder_and_pass_throughs_skip_it() -> None:
    decoder = CountingExecutor()
    webp = photo_bytes("webp", fmt="WEBP")
    web = Web({"photos.example/a.jpg": image(), "photos.example/b.webp": image(webp, "image/webp")})
    client = httpx.Client(transport=httpx.MockTransport(web), follow_redirects=False)
    f = SafeImageFetcher(resolver=FakeDNS({"photos.example": [PUBLIC]}), client=client, decoder=decoder)
    assert f.fetch("http://photos.example/a.jpg").data == JPEG
    assert decoder.submitted == 0
    assert f.fetch("http://photos.example/b.webp").content_type == "image/jpeg"
    assert decoder.submitted == 1
