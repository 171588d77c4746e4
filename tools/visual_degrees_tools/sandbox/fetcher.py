"""ImageFetcher over the photo web: synthesised images for sandbox photo URLs.

Dead links answer 404 (ProviderError) every time; timeouts (TransientProviderError) are per attempt.
A photo the faults serve as WebP comes back as PNG after a short transcoding delay, as the live
fetcher converts WebP before recognition.
"""

from __future__ import annotations

import hashlib

from visual_degrees.domain.errors import ProviderError, TransientProviderError
from visual_degrees.domain.models import FetchedImage
from visual_degrees_tools.sandbox.layout import HEIGHT, WIDTH
from visual_degrees_tools.sandbox.provider import WebProvider
from visual_degrees_tools.sandbox.render import (
    PNG_HEIGHT,
    PNG_TYPE,
    PNG_WIDTH,
    SVG_TYPE,
    render_png,
    render_svg,
)


class SandboxImageFetcher(WebProvider):
    def fetch(self, url: str) -> FetchedImage:
        self.calls += 1
        if self.faults.strikes("fetch_timeout", str(url)):
            self.clock.advance(self.latencies.fetch_timeout)
            raise TransientProviderError("image download timed out")
        self.clock.advance(self.latencies.fetch)
        photo = self.web.photo_from_url(url)  # ProviderError for anything not in the sandbox
        if self.faults.is_permanent("dead_link", url):
            raise ProviderError(f"image is gone (HTTP 404): {url}")
        if self.faults.is_permanent("webp", url):
            self.clock.advance(self.latencies.transcode)
            return _image(url, render_png(self.web, photo), PNG_TYPE, PNG_WIDTH, PNG_HEIGHT)
        return _image(url, render_svg(self.web, photo).encode("utf-8"), SVG_TYPE, WIDTH, HEIGHT)

    def render_svg(self, photo_id: str) -> str:
        """The SVG of a photo by id, for the local web page; ProviderError if there is no such photo."""
        photo = self.web.photo_index(photo_id)
        if photo is None:
            raise ProviderError(f"no such photo: {photo_id[:40]!r}")
        return render_svg(self.web, photo)


def _image(url: str, data: bytes, content_type: str, width: int, height: int) -> FetchedImage:
    return FetchedImage(
        url=url,
        data=data,
        content_type=content_type,
        sha256=hashlib.sha256(data).hexdigest(),
        width=width,
        height=height,
    )
