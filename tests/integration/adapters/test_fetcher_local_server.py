"""The image fetcher against a real HTTP server on 127.0.0.1 (allow-listed for these tests only)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator

import pytest

from tests.support.fake_wire_servers import Reply, StaticImageServer, photo_bytes
from visual_degrees.adapters.live.image_convert import ImageLimits, ImageRejected
from visual_degrees.adapters.live.image_fetcher import FetchLimits, SafeImageFetcher
from visual_degrees.adapters.live.net_guard import AddressGuard, parse_networks

LOOPBACK = AddressGuard(allow=parse_networks(["127.0.0.1/32"]))


@pytest.fixture
def server() -> Iterator[StaticImageServer]:
    with StaticImageServer() as running:
        yield running


def fetcher(*, max_bytes: int = 20 * 1024 * 1024, read_timeout: float = 2.0) -> SafeImageFetcher:
    limits = FetchLimits(
        max_bytes=max_bytes, connect_timeout=2.0, read_timeout=read_timeout, total_timeout=10.0
    )
    return SafeImageFetcher(limits, ImageLimits(max_side=1024, pass_max_side=1024), guard=LOOPBACK)


def reason(call: Callable[[], object]) -> str:
    with pytest.raises(ImageRejected) as caught:
        call()
    return caught.value.reason


def test_a_jpeg_is_fetched_unchanged_with_its_sha256(server: StaticImageServer) -> None:
    data = photo_bytes("local")
    url = server.add("/a.jpg", data)
    fetched = fetcher().fetch(url)
    assert fetched.data == data
    assert fetched.sha256 == hashlib.sha256(data).hexdigest()


def test_without_the_allowlist_loopback_is_refused_and_never_contacted(server: StaticImageServer) -> None:
    url = server.add("/a.jpg", photo_bytes("local"))
    assert reason(lambda: SafeImageFetcher().fetch(url)) == "blocked_address"
    assert server.requests == []


def test_a_faked_dns_name_is_connected_by_its_checked_address(server: StaticImageServer) -> None:
    # Given a name that exists in no real DNS, resolved by our fake to the allow-listed server
    data = photo_bytes("named")
    server.add("/named.jpg", data)
    asked: list[str] = []

    def dns(host: str, port: int) -> list[str]:
        asked.append(host)
        return ["127.0.0.1"]

    # When fetched by name
    fetched = SafeImageFetcher(guard=LOOPBACK, resolver=dns).fetch(
        f"http://photos.example:{server.port}/named.jpg"
    )
    # Then the HTTP stack connected to the checked address (it could not have resolved the name),
    # and the server saw the original Host
    assert fetched.data == data
    assert asked == ["photos.example"]
    assert server.requests[0].headers["host"] == f"photos.example:{server.port}"


def test_faked_dns_answers_to_private_space_are_refused(server: StaticImageServer) -> None:
    for answer in (["10.0.0.7"], ["169.254.169.254"], ["127.0.0.1", "192.168.1.1"]):

        def dns(host: str, port: int, answer: list[str] = answer) -> list[str]:
            return answer

        with pytest.raises(ImageRejected) as caught:
            SafeImageFetcher(guard=LOOPBACK, resolver=dns).fetch("http://photos.example/a.jpg")
        assert caught.value.reason == "blocked_address"
    assert server.requests == []


def test_a_redirect_is_followed_within_the_allowed_space(server: StaticImageServer) -> None:
    data = photo_bytes("target")
    target = server.add("/target.jpg", data)
    start = server.redirect("/start", target)
    assert fetcher().fetch(start).data == data
    assert [r.path for r in server.requests] == ["/start", "/target.jpg"]


def test_a_redirect_into_private_space_is_refused(server: StaticImageServer) -> None:
    start = server.redirect("/to-metadata", "http://169.254.169.254/latest/meta-data/iam/")
    assert reason(lambda: fetcher().fetch(start)) == "blocked_address"
    start = server.redirect("/to-lan", "http://10.0.0.1/admin")
    assert reason(lambda: fetcher().fetch(start)) == "blocked_address"


def test_a_redirect_loop_stops_after_three_hops(server: StaticImageServer) -> None:
    server.redirect("/loop", server.url + "/loop")
    assert reason(lambda: fetcher().fetch(server.url + "/loop")) == "too_many_redirects"
    assert len(server.requests) == 4  # the request and three redirects followed


def test_an_endless_body_is_cut_at_the_byte_cap(server: StaticImageServer) -> None:
    url = server.endless("/endless.jpg")
    assert reason(lambda: fetcher(max_bytes=256 * 1024).fetch(url)) == "too_large"


def test_a_stalled_body_hits_the_read_timeout(server: StaticImageServer) -> None:
    url = server.stalled("/stalled.jpg", b"\xff\xd8\xff", stall_seconds=1.5)
    assert reason(lambda: fetcher(read_timeout=0.2).fetch(url)) == "timeout"


def test_a_wrong_content_type_is_refused(server: StaticImageServer) -> None:
    url = server.add("/page.jpg", b"<html>not a picture</html>", "text/html; charset=utf-8")
    assert reason(lambda: fetcher().fetch(url)) == "not_an_image"


def test_a_compressed_body_is_refused(server: StaticImageServer) -> None:
    url = server.add_reply(
        "/gz.jpg", Reply(200, {"Content-Type": "image/jpeg", "Content-Encoding": "gzip"}, b"\x1f\x8b")
    )
    assert reason(lambda: fetcher().fetch(url)) == "encoded_body"


def test_a_webp_arrives_as_jpeg(server: StaticImageServer) -> None:
    url = server.add("/a.webp", photo_bytes("webp", fmt="WEBP"), "image/webp")
    fetched = fetcher().fetch(url)
    assert fetched.content_type == "image/jpeg"
    assert fetched.data[:3] == b"\xff\xd8\xff"


def test_a_tiny_image_is_refused(server: StaticImageServer) -> None:
    url = server.add("/tiny.png", photo_bytes("tiny", size=(64, 64), fmt="PNG"), "image/png")
    assert reason(lambda: fetcher().fetch(url)) == "too_small"


def test_a_huge_image_is_downscaled(server: StaticImageServer) -> None:
    url = server.add("/huge.jpg", photo_bytes("huge", size=(4000, 2000)))
    fetched = fetcher().fetch(url)
    assert (fetched.width, fetched.height) == (1024, 512)


def test_a_missing_image_is_a_rejection(server: StaticImageServer) -> None:
    assert reason(lambda: fetcher().fetch(server.url + "/nothing-here.jpg")) == "http_404"
