"""The fetch's total deadline against real slow peers on 127.0.0.1 (allow-listed for these tests).

A peer that sends a byte every few milliseconds never trips a read timeout; only a deadline on
the whole exchange stops it. The servers count what they managed to send before the client left,
so the tests show the cut without asserting on time. What must happen before a deadline (connecting,
sending the request, a quick first answer) gets seconds of it: on a loaded machine that takes far
longer than on an idle one, while what must not happen before it can only come later.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.adapters.drip_server import DripServer, redirect_head, reply
from tests.support.fake_wire_servers import StaticImageServer, photo_bytes
from tests.unit.adapters.image_helpers import solid_png
from visual_degrees.adapters.live.image_convert import ImageRejected
from visual_degrees.adapters.live.image_fetcher import FetchLimits, SafeImageFetcher
from visual_degrees.adapters.live.net_guard import AddressGuard, parse_networks

LOOPBACK = AddressGuard(allow=parse_networks(["127.0.0.1/32"]))

# How long the peer may take to notice the client left: seconds on a loaded 2-core machine, and
# still far below the minute its drip lasts, so a client that never hung up fails the test.
LEFT_WITHIN = 30


def fetcher(total_timeout: float) -> SafeImageFetcher:
    limits = FetchLimits(connect_timeout=2.0, read_timeout=2.0, total_timeout=total_timeout)
    return SafeImageFetcher(limits, guard=LOOPBACK)


def reason(call: Callable[[], object]) -> str:
    with pytest.raises(ImageRejected) as caught:
        call()
    return caught.value.reason


def test_a_dripping_body_is_cut_at_the_total_deadline() -> None:
    # Given a peer that sends its headers, then the JPEG a byte every 10 ms (over a minute)
    with DripServer(*reply(photo_bytes("dripped")), drip="body") as server:
        # When fetched with a 1.5 s deadline and a 2 s read timeout
        assert reason(lambda: fetcher(total_timeout=1.5).fetch(server.url)) == "timeout"
        # Then the client hung up: the peer saw the connection go before it had sent it all
        assert server.client_left.wait(timeout=LEFT_WITHIN)
        assert len(server.head) < server.sent < server.total


def test_dripping_headers_are_cut_at_the_total_deadline() -> None:
    # Given a peer dripping even its headers, a byte every 10 ms (6 s of them): the HTTP client
    # reads on until they are complete, never handing us a chunk to check the time on
    with DripServer(*reply(photo_bytes("dripped"), padding=600), drip="headers") as server:
        assert reason(lambda: fetcher(total_timeout=1.5).fetch(server.url)) == "timeout"
        # Then the deadline shut the socket mid-headers
        assert server.client_left.wait(timeout=LEFT_WITHIN)
        assert 0 < server.sent < len(server.head)


def test_a_trickle_that_ends_before_the_deadline_arrives_whole() -> None:
    # Byte-sized reads add up to the right body, and the deadline's timer leaves it alone.
    body = solid_png(80, 80)
    with DripServer(*reply(body, "image/png"), drip="body", interval=0.002) as server:
        fetched = fetcher(total_timeout=10.0).fetch(server.url)
    assert fetched.data == body
    assert server.sent == server.total


@pytest.fixture
def server() -> Iterator[StaticImageServer]:
    with StaticImageServer() as running:
        yield running


def test_the_deadline_covers_a_chain_of_slow_redirects(server: StaticImageServer) -> None:
    # Given a redirect that answers at once, then two that each answer after 1.2 s, in front of a
    # quick image
    final = server.add("/final.jpg", photo_bytes("final"))
    with (
        DripServer(redirect_head(final), b"", drip="headers", interval=0, delay=1.2) as third,
        DripServer(redirect_head(third.url), b"", drip="headers", interval=0, delay=1.2) as second,
        DripServer(redirect_head(second.url), b"", drip="headers", interval=0) as first,
    ):
        # When fetched with a 2 s deadline: any hop alone is well within it, the chain is not
        assert reason(lambda: fetcher(total_timeout=2.0).fetch(first.url)) == "timeout"
    # Then the first hop was heard out, and the image was never asked for
    assert first.sent == first.total
    assert server.requests == []


def test_the_issues_7071_square_png_is_refused_over_the_wire(server: StaticImageServer) -> None:
    url = server.add("/big.png", solid_png(7071, 7071), "image/png")
    assert reason(lambda: SafeImageFetcher(guard=LOOPBACK).fetch(url)) == "too_many_pixels"


def test_eight_fetches_at_once_through_one_fetcher_all_arrive(server: StaticImageServer) -> None:
    # Downloads in parallel, conversions queued on the fetcher's one decode thread.
    webps = [photo_bytes(f"w{i}", size=(2400, 300), fmt="WEBP") for i in range(4)]
    urls = [server.add(f"/{i}.webp", data, "image/webp") for i, data in enumerate(webps)]
    urls += [server.add(f"/{i}.jpg", photo_bytes(f"j{i}")) for i in range(4)]
    shared = SafeImageFetcher(guard=LOOPBACK)
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            fetched = list(pool.map(shared.fetch, urls))
    finally:
        shared.close()
    assert [(f.width, f.height) for f in fetched[:4]] == [(1920, 240)] * 4
    assert [(f.width, f.height) for f in fetched[4:]] == [(320, 240)] * 4
    assert len({f.sha256 for f in fetched}) == 8
