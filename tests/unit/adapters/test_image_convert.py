"""What reaches the recogniser: JPEG/PNG within Rekognition's limits, or a reason why not."""

from __future__ import annotations

import hashlib
import io
import random
import struct
import zlib

import pytest
from PIL import Image

from tests.support.fake_wire_servers import photo_bytes
from visual_degrees.adapters.live.image_convert import ImageLimits, ImageRejected, prepare_for_recognition


def encode(image: Image.Image, fmt: str, **params: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def rejected_reason(data: bytes, limits: ImageLimits | None = None) -> str:
    with pytest.raises(ImageRejected) as caught:
        prepare_for_recognition(data, limits)
    return caught.value.reason


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_acceptable_jpeg_and_png_pass_through_byte_for_byte(fmt: str) -> None:
    # Given a small photo in a format Rekognition takes
    data = photo_bytes("pass", fmt=fmt)
    # When prepared
    prepared = prepare_for_recognition(data)
    # Then it is not re-encoded, and the sha256 is of exactly these bytes
    assert prepared.data == data
    assert prepared.converted is False
    assert prepared.content_type == f"image/{fmt.lower()}"
    assert (prepared.width, prepared.height) == (320, 240)
    assert prepared.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("fmt", ["WEBP", "GIF", "AVIF", "BMP", "TIFF"])
def test_other_formats_become_jpeg(fmt: str) -> None:
    data = photo_bytes("convert", fmt=fmt)
    prepared = prepare_for_recognition(data)
    assert prepared.converted is True
    assert prepared.content_type == "image/jpeg"
    image = decoded(prepared.data)
    assert image.format == "JPEG"
    assert image.size == (320, 240)


def test_animated_gif_uses_its_first_frame() -> None:
    frames = [Image.new("RGB", (120, 100), colour) for colour in ((255, 0, 0), (0, 0, 255))]
    data = encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    pixel = decoded(prepare_for_recognition(data).data).convert("RGB").getpixel((60, 50))
    assert isinstance(pixel, tuple)
    assert pixel[0] > 200 and pixel[2] < 60  # red, the first frame


def test_transparency_is_flattened_onto_white() -> None:
    image = Image.new("RGBA", (100, 100), (0, 0, 0, 0))
    prepared = prepare_for_recognition(encode(image, "WEBP", lossless=True))
    pixel = decoded(prepared.data).getpixel((50, 50))
    assert isinstance(pixel, tuple)
    assert min(pixel) > 240


def test_cmyk_jpeg_is_re_encoded_as_rgb() -> None:
    data = encode(Image.new("CMYK", (100, 100), (0, 255, 255, 0)), "JPEG")
    prepared = prepare_for_recognition(data)
    assert prepared.converted is True
    assert decoded(prepared.data).mode == "RGB"


def test_huge_dimensions_are_downscaled_to_the_longest_side_limit() -> None:
    data = photo_bytes("wide", size=(3000, 1000))
    prepared = prepare_for_recognition(data, ImageLimits(max_side=1500, pass_max_side=1500))
    assert (prepared.width, prepared.height) == (1500, 500)
    assert decoded(prepared.data).size == (1500, 500)


def test_files_over_the_byte_limit_are_shrunk_under_it() -> None:
    # Given a noisy PNG (incompressible) far above a 200 KB limit
    noise = Image.frombytes("RGB", (700, 700), random.Random(7).randbytes(700 * 700 * 3))
    data = encode(noise, "PNG")
    limits = ImageLimits(max_bytes=200 * 1024)
    assert len(data) > limits.max_bytes
    # When prepared
    prepared = prepare_for_recognition(data, limits)
    # Then the result fits and is still at least the minimum size
    assert len(prepared.data) <= limits.max_bytes
    assert min(prepared.width, prepared.height) >= limits.min_side


@pytest.mark.parametrize("size", [(79, 200), (200, 40), (10, 10)])
def test_images_under_80_px_a_side_are_refused(size: tuple[int, int]) -> None:
    assert rejected_reason(photo_bytes("tiny", size=size)) == "too_small"


def test_pixel_count_is_checked_before_decoding() -> None:
    # A WebP must be decoded (to become JPEG), so the decode cap applies to it...
    webp = photo_bytes("px", size=(400, 400), fmt="WEBP")
    assert rejected_reason(webp, ImageLimits(max_pixels=100_000)) == "too_many_pixels"
    # ...while a JPEG that passes through is never decoded by us, whatever the cap.
    jpeg = photo_bytes("px", size=(400, 400))
    assert prepare_for_recognition(jpeg, ImageLimits(max_pixels=100_000)).data == jpeg


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares width x height but carries (almost) no pixel data: a decompression bomb."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize("side", [8_000, 100_000])  # above our limit; above twice Pillow's own
def test_decompression_bombs_are_refused_from_the_header(side: int) -> None:
    assert rejected_reason(png_header_only(side, side)) == "too_many_pixels"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"definitely not an image",
        b'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"/>',
        b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 100 100\n",  # EPS would run Ghostscript: not enabled
    ],
)
def test_unreadable_or_untrusted_formats_are_refused(data: bytes) -> None:
    assert rejected_reason(data) == "unsupported_format"


def test_truncated_image_data_is_refused_when_it_must_be_decoded() -> None:
    data = photo_bytes("cut", fmt="WEBP")
    assert rejected_reason(data[: len(data) // 2]) in {"undecodable", "unsupported_format"}
