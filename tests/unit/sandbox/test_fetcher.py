from __future__ import annotations

import hashlib
import struct
import xml.etree.ElementTree as ET
import zlib

import pytest

from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees_tools.sandbox.clock import EPOCH, VirtualClock
from visual_degrees_tools.sandbox.faults import FaultConfig, FaultInjector
from visual_degrees_tools.sandbox.fetcher import SandboxImageFetcher
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.recognizer import SandboxRecognizer
from visual_degrees_tools.sandbox.render import render_page
from visual_degrees_tools.sandbox.world import parse_world


def test_fetch_returns_the_synthesised_svg_with_its_hash(default_web):
    # Given a fetcher on a fresh clock
    clock = VirtualClock()
    fetcher = SandboxImageFetcher(default_web, clock=clock)
    url = default_web.image_url(10)
    # When a photo is fetched
    image = fetcher.fetch(url)
    # Then it is a well-formed SVG naming its caption, hashed over its bytes, and took 0.3 s
    assert image.content_type == "image/svg+xml" and image.url == url
    assert image.sha256 == hashlib.sha256(image.data).hexdigest()
    assert (image.width, image.height) == (640, 427)
    root = ET.fromstring(image.data)
    assert root.find("{http://www.w3.org/2000/svg}title").text == default_web.caption(10)
    assert clock.now() == pytest.approx(EPOCH + 0.3)
    assert fetcher.fetch(url) == image


def test_names_with_markup_are_escaped():
    web = PhotoWeb(parse_world('Tom & "Jerry" <Live> (2001)/O\'Neil, <b>Pat</b>/Smith, Al & Co\n'))
    image = SandboxImageFetcher(web).fetch(web.image_url(0))
    ET.fromstring(image.data)  # well-formed despite &, <, > and quotes
    assert b"<b>" not in image.data
    assert "&lt;b&gt;" in render_page(web, 0)


@pytest.mark.parametrize("url", ["https://example.com/a.svg", "not a url", ""])
def test_urls_outside_the_sandbox_are_provider_errors(default_web, url):
    with pytest.raises(ProviderError):
        SandboxImageFetcher(default_web).fetch(url)


def test_dead_links_stay_dead(default_web):
    # Given a third of all links dead
    fetcher = SandboxImageFetcher(default_web, faults=FaultInjector(FaultConfig(dead_link=0.3), seed=4))
    dead, alive = 0, 0
    for photo in range(60):
        url = default_web.image_url(photo)
        results = []
        for _ in range(3):
            try:
                fetcher.fetch(url)
                results.append("ok")
            except ProviderError:
                results.append("404")
        # Then a URL gives the same answer every time
        assert len(set(results)) == 1
        dead += results[0] == "404"
        alive += results[0] == "ok"
    assert dead > 5 and alive > 20


def test_timeouts_cost_the_whole_timeout_and_a_retry_can_succeed(default_web):
    # Given half of all downloads timing out, and a URL whose first attempt does
    config = FaultConfig(fetch_timeout=0.5)
    url = next(
        default_web.image_url(p)
        for p in range(100)
        if FaultInjector(config).strikes("fetch_timeout", default_web.image_url(p))
    )
    clock = VirtualClock()
    fetcher = SandboxImageFetcher(default_web, clock=clock, faults=FaultInjector(config))
    # When fetched, then it times out after the fetcher's whole timeout
    with pytest.raises(TransientProviderError, match="timed out"):
        fetcher.fetch(url)
    assert clock.now() == pytest.approx(EPOCH + 5.0)
    # And retrying the same URL eventually succeeds
    for _ in range(20):
        try:
            assert fetcher.fetch(url).sha256
            break
        except TransientProviderError:
            continue
    else:
        pytest.fail("twenty retries all timed out")


def test_webp_images_arrive_converted_to_png_and_recognise_the_same(default_web):
    # Given every image served as WebP
    clock = VirtualClock()
    webp = SandboxImageFetcher(default_web, clock=clock, faults=FaultInjector(FaultConfig(webp=1.0)))
    photo = next(p for p in range(default_web.photo_count) if len(default_web.people_in(p)) == 3)
    # When fetched
    png = webp.fetch(default_web.image_url(photo))
    # Then it is a valid PNG, the conversion took a little extra time, and it shows the same faces
    assert png.content_type == "image/png" and png.data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png.data[16:24])
    assert (width, height) == (png.width, png.height)
    idat = png.data.index(b"IDAT")
    length = struct.unpack(">I", png.data[idat - 4 : idat])[0]
    assert len(zlib.decompress(png.data[idat + 4 : idat + 4 + length])) == height * (1 + 3 * width)
    assert clock.now() == pytest.approx(EPOCH + 0.3 + 0.1)
    svg = SandboxImageFetcher(default_web).fetch(default_web.image_url(photo))
    recognizer = SandboxRecognizer(default_web)
    assert recognizer.recognize(png) == recognizer.recognize(svg)


def test_render_svg_by_photo_id(default_web):
    fetcher = SandboxImageFetcher(default_web)
    svg = fetcher.render_svg(default_web.photo_id(7))
    assert ET.fromstring(svg).get("data-vd-photo") == default_web.photo_id(7)
    with pytest.raises(ProviderError):
        fetcher.render_svg("nope")
