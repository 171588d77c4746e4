"""Hostile images: each is refused by name before decoding, or decoded bounded and downscaled.

What the converter may decode is bounded by `max_pixels` (pixels held at full resolution), not by
what a header declares; what it converts comes out at most `max_side` on the longest side (JPEG
and PNG that need no conversion pass through up to `pass_max_side`). Memory and time
figures are measured by scripts/image_limits.py, not asserted here.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from tests.support.fake_wire_servers import photo_bytes
from tests.unit.adapters.image_helpers import CountingExecutor, solid_png
from visual_degrees.adapters.live.image_convert import ImageLimits, ImageRejected, prepare_for_recognition


def encode(image: Image.Image, fmt: str, **params: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def decoded(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def refusal(data: bytes, limits: ImageLimits | None = None) -> ImageRejected:
    with pytest.raises(ImageRejected) as caught:
        prepare_for_recognition(data, limits)
    return caught.value


def test_jpeg_and_png_rekognition_takes_as_they_are_pass_through_up_to_4096_px() -> None:
    # A 4000x4000 PNG of 100 KB: Rekognition takes it, so it is neither decoded nor changed
    data = solid_png(4000, 4000)
    prepared = prepare_for_recognition(data)
    assert prepared.data == data
    assert (prepared.width, prepared.height, prepared.converted) == (4000, 4000, False)


# ---- the images -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def png_7071() -> bytes:
    return solid_png(7071, 7071)


def test_a_7071_square_png_is_refused_from_its_header(png_7071: bytes) -> None:
    # Given the PNG: well under a megabyte, 50 million pixels once decoded
    assert len(png_7071) < 1024 * 1024
    with Image.open(io.BytesIO(png_7071)) as image:
        assert image.size == (7071, 7071)
    # When prepared with the default limits
    rejected = refusal(png_7071)
    # Then it is refused by name, saying how big it is and what the limit is
    assert rejected.reason == "too_many_pixels"
    assert "7071x7071" in rejected.message
    assert str(ImageLimits().max_pixels) in rejected.message


def test_the_same_refusal_comes_before_any_pixel_is_decoded(png_7071: bytes) -> None:
    # Its header (signature and IHDR: 33 bytes), then a 1x1 image's pixels: decoding would fail
    # as undecodable, so a too_many_pixels answer can only have come from the header.
    header_only = png_7071[:33] + solid_png(1, 1)[33:]
    assert refusal(header_only).reason == "too_many_pixels"


def test_a_large_png_under_the_decode_cap_comes_back_downscaled() -> None:
    data = solid_png(4500, 3000, bytes((10, 200, 30)))  # 13.5 MP: decoded, over 4096 px: converted
    prepared = prepare_for_recognition(data)
    assert (prepared.width, prepared.height) == (1920, 1280)
    assert prepared.content_type == "image/jpeg"
    image = decoded(prepared.data)
    assert image.size == (1920, 1280)
    pixel = image.getpixel((960, 640))
    assert isinstance(pixel, tuple)
    assert pixel[1] > 150 and pixel[0] < 60  # still the picture, not a blank


def test_a_half_transparent_png_is_downscaled_then_flattened_onto_white() -> None:
    data = solid_png(4800, 1200, bytes((0, 0, 0, 0)))  # fully transparent black
    prepared = prepare_for_recognition(data)
    assert (prepared.width, prepared.height) == (1920, 480)
    pixel = decoded(prepared.data).getpixel((10, 10))
    assert isinstance(pixel, tuple)
    assert min(pixel) > 240


# ---- JPEG: decoded at reduced scale when it can be --------------------------------------------


@pytest.fixture(scope="module")
def grey_8000x6000() -> Image.Image:
    return Image.new("L", (8000, 6000), 140)


def test_a_48_megapixel_baseline_jpeg_is_decoded_at_a_quarter_and_accepted(
    grey_8000x6000: Image.Image,
) -> None:
    # Given a JPEG declaring three times the decode cap
    data = encode(grey_8000x6000, "JPEG", quality=80)
    assert ImageLimits().max_pixels < 8000 * 6000
    # When prepared: libjpeg decodes it at 1/4 (2000x1500), under the cap
    prepared = prepare_for_recognition(data)
    # Then it arrives at the longest side Rekognition uses
    assert (prepared.width, prepared.height) == (1920, 1440)
    assert decoded(prepared.data).size == (1920, 1440)


def test_a_progressive_jpeg_counts_at_full_size(grey_8000x6000: Image.Image) -> None:
    # libjpeg holds a progressive file's coefficients at full size whatever the output scale.
    data = encode(grey_8000x6000, "JPEG", quality=80, progressive=True)
    rejected = refusal(data)
    assert rejected.reason == "too_many_pixels"
    assert "8000x6000" in rejected.message


def test_the_scaled_size_is_what_the_cap_is_checked_against() -> None:
    # 2400x1600 needs 1200x800 decoded to give 700 px (1/2 scale); 1/4 would give only 600 px.
    data = photo_bytes("draft", size=(2400, 1600))
    fits = ImageLimits(max_side=700, pass_max_side=700, max_pixels=960_000)
    assert prepare_for_recognition(data, fits).width == 700
    rejected = refusal(data, ImageLimits(max_side=700, pass_max_side=700, max_pixels=959_999))
    assert rejected.reason == "too_many_pixels"
    assert "1200x800" in rejected.message


def test_exif_orientation_is_applied_after_downscaling() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise to view
    data = encode(Image.new("RGB", (400, 200), (90, 90, 90)), "JPEG", exif=exif.tobytes())
    prepared = prepare_for_recognition(data, ImageLimits(max_side=300, pass_max_side=300))
    assert (prepared.width, prepared.height) == (150, 300)
    assert decoded(prepared.data).size == (150, 300)


def test_a_panorama_keeps_its_short_side_at_the_minimum() -> None:
    data = photo_bytes("pano", size=(6000, 100), fmt="PNG")
    prepared = prepare_for_recognition(data)
    assert (prepared.width, prepared.height) == (4800, 80)


# ---- other formats: decoded at full size, so the cap applies to what they declare --------------


def test_an_animated_gif_with_many_frames_gives_its_first_frame() -> None:
    # Palette frames (no quantising to slow the test down), no two alike so none are merged.
    frames = [Image.new("P", (2400, 300), 0 if i == 0 else 1 + i % 2) for i in range(120)]
    for frame in frames:
        frame.putpalette([255, 0, 0, 0, 0, 255, 0, 255, 0])
    data = encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=40, loop=0)
    with Image.open(io.BytesIO(data)) as image:
        assert getattr(image, "n_frames", 1) == 120
    prepared = prepare_for_recognition(data)
    assert (prepared.width, prepared.height) == (1920, 240)
    pixel = decoded(prepared.data).getpixel((100, 100))
    assert isinstance(pixel, tuple)
    assert pixel[0] > 200 and pixel[2] < 60  # red: frame 0


def test_a_gif_canvas_over_the_cap_is_refused() -> None:
    frames = [Image.new("P", (1200, 1000), i) for i in range(3)]
    data = encode(frames[0], "GIF", save_all=True, append_images=frames[1:])
    assert refusal(data, ImageLimits(max_pixels=1_000_000)).reason == "too_many_pixels"


def test_a_webp_over_the_cap_is_refused_and_under_it_downscaled() -> None:
    data = photo_bytes("webp", size=(1600, 1200), fmt="WEBP")
    assert refusal(data, ImageLimits(max_pixels=1_000_000)).reason == "too_many_pixels"
    prepared = prepare_for_recognition(data, ImageLimits(max_side=800))
    assert (prepared.width, prepared.height) == (800, 600)


# ---- broken bytes --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fmt", "size"),
    [("PNG", (2400, 1800)), ("JPEG", (2400, 1800)), ("WEBP", (600, 400)), ("GIF", (600, 400))],
)
def test_truncated_images_that_must_be_decoded_are_refused_as_undecodable(
    fmt: str, size: tuple[int, int]
) -> None:
    data = photo_bytes("cut", size=size, fmt=fmt)
    must_convert = ImageLimits(pass_max_side=1920)  # else a JPEG/PNG this size passes through as is
    assert refusal(data[: len(data) * 2 // 3], must_convert).reason in {"undecodable", "unsupported_format"}


def test_corrupt_pixel_data_is_refused_as_undecodable() -> None:
    data = bytearray(photo_bytes("garbled", size=(2400, 1800), fmt="PNG"))
    data[200:4000] = (bytes(range(256)) * 15)[:3800]  # inside the compressed pixels
    assert refusal(bytes(data), ImageLimits(pass_max_side=1920)).reason == "undecodable"


# ---- where the work runs -----------------------------------------------------------------------


def test_conversions_run_on_the_given_decoder_and_pass_throughs_do_not() -> None:
    decoder = CountingExecutor()
    passed = prepare_for_recognition(photo_bytes("small"), decoder=decoder)
    assert passed.converted is False
    assert decoder.submitted == 0
    converted = prepare_for_recognition(photo_bytes("webp", fmt="WEBP"), decoder=decoder)
    assert converted.converted is True
    assert decoder.submitted == 1


def test_refusals_from_the_header_never_reach_the_decoder(png_7071: bytes) -> None:
    decoder = CountingExecutor()
    with pytest.raises(ImageRejected):
        prepare_for_recognition(png_7071, decoder=decoder)
    assert decoder.submitted == 0
