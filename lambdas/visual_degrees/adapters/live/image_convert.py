"""Turn downloaded bytes into an image Rekognition accepts: JPEG or PNG, <= 5 MB, >= 80 px a side.

JPEG and PNG already within limits pass through byte for byte (no re-encoding, no quality loss);
WebP, GIF, AVIF, BMP, TIFF and oversized images are decoded once and re-encoded as JPEG. Only a
short list of decoders is enabled: Pillow can hand some formats (EPS) to external programs.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError

from visual_degrees.domain.errors import ProviderError

# Decoders we trust with bytes from strangers.
ALLOWED_FORMATS = ("JPEG", "PNG", "WEBP", "GIF", "AVIF", "BMP", "TIFF")  # JPEG includes MPO
PASS_THROUGH = {"JPEG": "image/jpeg", "PNG": "image/png"}


class ImageRejected(ProviderError):
    """An image we will not send to the recogniser; `reason` is a short stable code for logs."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ImageLimits:
    max_bytes: int = 5 * 1024 * 1024
    min_side: int = 80
    max_side: int = 4096
    max_pixels: int = 50_000_000
    jpeg_quality: int = 88


@dataclass(frozen=True)
class Prepared:
    data: bytes
    content_type: str
    width: int
    height: int
    converted: bool

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def prepare_for_recognition(data: bytes, limits: ImageLimits | None = None) -> Prepared:
    """The bytes to send, or ImageRejected naming why there are none."""
    try:
        # Pillow raises past twice its own pixel limit; our (lower) limit is checked in _prepare.
        # (No warnings filter here: that is process-global state, and fetches run in threads.)
        image = Image.open(io.BytesIO(data), formats=ALLOWED_FORMATS)
    except Image.DecompressionBombError:
        raise ImageRejected("too_many_pixels", "image declares too many pixels") from None
    except UnidentifiedImageError:
        raise ImageRejected("unsupported_format", "not an image format we can read") from None
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageRejected("undecodable", f"image header unreadable: {type(exc).__name__}") from None
    with image:
        return _prepare(image, data, limits or ImageLimits())


def _prepare(image: Image.Image, data: bytes, limits: ImageLimits) -> Prepared:
    width, height = image.size
    # Checked on the header, before a single pixel is decoded.
    if width * height > limits.max_pixels:
        raise ImageRejected(
            "too_many_pixels", f"image is {width}x{height}; the limit is {limits.max_pixels} pixels"
        )
    if min(width, height) < limits.min_side:
        raise ImageRejected(
            "too_small", f"image is {width}x{height}; faces need at least {limits.min_side} px a side"
        )
    fmt = image.format or ""
    plain = fmt in PASS_THROUGH and (fmt == "PNG" or image.mode in ("RGB", "L"))  # e.g. not CMYK JPEG
    if plain and len(data) <= limits.max_bytes and max(width, height) <= limits.max_side:
        return Prepared(data, PASS_THROUGH[fmt], width, height, converted=False)
    try:
        image.seek(0)  # animated GIF/WebP: the first frame
        if fmt == "JPEG" and max(width, height) > limits.max_side:
            # Let the JPEG decoder skip detail we would throw away (decodes at 1/2, 1/4 or 1/8).
            scale = limits.max_side / max(width, height)
            image.draft("RGB", (round(width * scale), round(height * scale)))
        flat = _flatten(ImageOps.exif_transpose(image) or image)
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ImageRejected("undecodable", f"image data unreadable: {type(exc).__name__}") from None
    return _encode_within(flat, limits)


def _flatten(image: Image.Image) -> Image.Image:
    """RGB pixels; transparency is composited onto white (JPEG has no alpha)."""
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    if image.mode != "RGB":
        return image.convert("RGB")
    image.load()
    return image


def _encode_within(image: Image.Image, limits: ImageLimits) -> Prepared:
    scale = min(1.0, limits.max_side / max(image.size))
    quality = limits.jpeg_quality
    for _ in range(8):  # each round shrinks the image; 8 rounds reach ~10% of the side
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        if min(size) < limits.min_side:
            break
        frame = (
            image if size == image.size else image.resize(size, Image.Resampling.BICUBIC, reducing_gap=2.0)
        )
        buffer = io.BytesIO()
        frame.save(buffer, format="JPEG", quality=quality)
        encoded = buffer.getvalue()
        if len(encoded) <= limits.max_bytes:
            return Prepared(encoded, "image/jpeg", size[0], size[1], converted=True)
        scale *= 0.75
        quality = max(70, quality - 5)
    raise ImageRejected("too_large", f"image cannot be brought under {limits.max_bytes} bytes")
