"""Turn downloaded bytes into an image Rekognition accepts: JPEG or PNG, <= 5 MB, >= 80 px a side.

JPEG and PNG that Rekognition takes as they are (<= 5 MB, at most `pass_max_side` = 4096 px a
side, the most we have always sent) pass through byte for byte: no decoding, no CPU, no quality
loss. Everything else (WebP, GIF, AVIF, BMP, TIFF, CMYK JPEG, larger or heavier JPEG/PNG) is
decoded once, downscaled to `max_side` and re-encoded as JPEG. Only a short list of decoders is
enabled: Pillow can hand some formats (EPS) to external programs.

Memory is bounded by what is decoded, never by what a header declares:
- `max_side` (1920), the longest side of a converted image: Rekognition finds faces down to
  40x40 px in a 1920x1080 image and needs proportionally larger faces in larger ones, so it gains
  nothing from a longer side. We shrink to it (unless that would take the short side under
  `min_side`: a panorama keeps its height).
- `max_pixels` (16 MP): the most pixels a decoder may hold at full resolution, checked on the
  header before a byte of pixel data is decoded. A baseline JPEG is decoded at 1/2, 1/4 or 1/8
  scale (libjpeg's `draft`), so it is the scaled size that counts and a 100 MP JPEG is fine; a
  progressive JPEG keeps full-size coefficients whatever the scale, so it counts at full size, as
  do PNG, GIF, WebP, AVIF, BMP and TIFF (Pillow has no reduced-scale decode for them).
  Measured (scripts/image_limits.py), one 16 MP decode peaks at ~170 MB for an RGBA PNG and
  ~260 MB for a WebP (Pillow's WebP decoder keeps two full canvases); the fetcher runs one
  decode at a time, so that is the bound however many downloads run at once.
- Pillow's own decompression-bomb ceiling (`Image.MAX_IMAGE_PIXELS`: a warning above 89 MP, an
  error above 179 MP) is process-wide state we leave alone; the explicit check above is the
  limit in force, Pillow's a backstop behind it.

Refusals are ImageRejected with a stable `reason`: `too_small`, `too_many_pixels`, `too_large`
(bytes), `unsupported_format`, `undecodable`.
"""

from __future__ import annotations

import hashlib
import io
from concurrent.futures import Executor
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from visual_degrees.domain.errors import ProviderError

# Decoders we trust with bytes from strangers.
ALLOWED_FORMATS = ("JPEG", "PNG", "WEBP", "GIF", "AVIF", "BMP", "TIFF")  # JPEG includes MPO
PASS_THROUGH = {"JPEG": "image/jpeg", "PNG": "image/png"}
_JPEG_FAMILY = ("JPEG", "MPO")
_ORIENTATION_TAG = 0x0112
_ORIENTATIONS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


class ImageRejected(ProviderError):
    """An image we will not send to the recogniser; `reason` is a short stable code for logs."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class ImageLimits:
    max_bytes: int = 5 * 1024 * 1024  # Rekognition's limit for image bytes
    min_side: int = 80  # Rekognition's minimum
    max_side: int = 1920  # of a converted image: Rekognition's own working scale (see above)
    pass_max_side: int = 4096  # JPEG/PNG up to this (and max_bytes) are sent as they are
    max_pixels: int = 16_000_000  # decoded at full resolution; 4000x4000, a 5K screenshot
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


def prepare_for_recognition(
    data: bytes, limits: ImageLimits | None = None, *, decoder: Executor | None = None
) -> Prepared:
    """The bytes to send, or ImageRejected naming why there are none.

    The header is checked in the calling thread; decoding and re-encoding run on `decoder` when
    given (the fetcher passes its single conversion thread), else inline. A JPEG or PNG that
    passes through is never decoded and never waits for the decoder.
    """
    limits = limits or ImageLimits()
    with _open(data) as image:
        passed = _pass_through(image, data, limits)
        if passed is not None:
            return passed
        target = _target_size(image.size, limits)
        decoded = _plan_decode(image, target)
        if decoded[0] * decoded[1] > limits.max_pixels:
            width, height = image.size
            raise ImageRejected(
                "too_many_pixels",
                f"image is {width}x{height}; decoding it takes {decoded[0]}x{decoded[1]} pixels, "
                f"the limit is {limits.max_pixels}",
            )
    if decoder is None:
        return _convert(data, target, limits)
    return decoder.submit(_convert, data, target, limits).result()


def _convert(data: bytes, target: tuple[int, int], limits: ImageLimits) -> Prepared:
    # Opened again here so that everything full-size (pixels, and the two canvases Pillow's WebP
    # decoder keeps until its image object goes) is freed before the encoding starts.
    return _encode_within(_decode_small(data, target), limits)


def _open(data: bytes) -> Image.Image:
    """The image with its header read and no pixel decoded (Pillow opens lazily)."""
    try:
        return Image.open(io.BytesIO(data), formats=ALLOWED_FORMATS)
    except Image.DecompressionBombError:
        # Pillow's own ceiling (twice MAX_IMAGE_PIXELS), far above ours.
        raise ImageRejected("too_many_pixels", "image declares too many pixels") from None
    except UnidentifiedImageError:
        raise ImageRejected("unsupported_format", "not an image format we can read") from None
    except MemoryError:
        raise ImageRejected("too_many_pixels", "image header asks for more memory than we have") from None
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ImageRejected("undecodable", f"image header unreadable: {type(exc).__name__}") from None


def _pass_through(image: Image.Image, data: bytes, limits: ImageLimits) -> Prepared | None:
    """The bytes as they are when they need no conversion; None when they do; too_small refused."""
    width, height = image.size
    if min(width, height) < limits.min_side:
        raise ImageRejected(
            "too_small", f"image is {width}x{height}; faces need at least {limits.min_side} px a side"
        )
    fmt = image.format or ""
    plain = fmt == "PNG" or (fmt == "JPEG" and image.mode in ("RGB", "L"))  # e.g. not CMYK JPEG
    if plain and len(data) <= limits.max_bytes and max(width, height) <= limits.pass_max_side:
        return Prepared(data, PASS_THROUGH[fmt], width, height, converted=False)
    return None


def _target_size(size: tuple[int, int], limits: ImageLimits) -> tuple[int, int]:
    """Longest side down to max_side, but the short side never under min_side; never enlarged."""
    width, height = size
    scale = min(1.0, limits.max_side / max(width, height))
    scale = min(1.0, max(scale, limits.min_side / min(width, height)))
    return max(1, round(width * scale)), max(1, round(height * scale))


def _plan_decode(image: Image.Image, target: tuple[int, int]) -> tuple[int, int]:
    """The size the decoder will allocate; asks libjpeg to decode a baseline JPEG scaled down."""
    progressive = image.info.get("progressive") or image.info.get("progression")
    if image.format in _JPEG_FAMILY and not progressive:
        # Decodes at the smallest 1/2, 1/4 or 1/8 scale still at least `target` (Pillow's draft).
        image.draft(None, target)
    return image.size


def _decode_small(data: bytes, target: tuple[int, int]) -> Image.Image:
    """The first frame, decoded, shrunk to `target`, upright and flattened to RGB: a new image."""
    try:
        with _open(data) as image:
            _plan_decode(image, target)
            image.load()
            orientation = image.getexif().get(_ORIENTATION_TAG, 1)  # PNG keeps EXIF after the pixels
            frame: Image.Image = image
            if frame.mode in ("1", "P"):  # resized by nearest neighbour only: convert first
                frame = frame.convert("RGBA" if frame.has_transparency_data else "RGB")
            if frame.size != target:
                # reduce() by whole blocks first, then an exact resize: fast, and no aliasing.
                frame = frame.resize(target, Image.Resampling.BICUBIC, reducing_gap=2.0)
            method = _ORIENTATIONS.get(orientation) if isinstance(orientation, int) else None
            if method is not None:
                frame = frame.transpose(method)
            flat = _flatten(frame)
            return flat.copy() if flat is image else flat
    except ImageRejected:
        raise
    except MemoryError:
        raise ImageRejected("too_many_pixels", "not enough memory to decode the image") from None
    except Exception as exc:
        # Decoders raise more than OSError on hostile input (IndexError, struct.error, ...): one
        # unreadable picture is skipped, it never fails the step.
        raise ImageRejected("undecodable", f"image data unreadable: {type(exc).__name__}") from None


def _flatten(image: Image.Image) -> Image.Image:
    """RGB pixels; transparency is composited onto white (JPEG has no alpha)."""
    if image.has_transparency_data:
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    if image.mode != "RGB":
        return image.convert("RGB")
    return image


def _encode_within(image: Image.Image, limits: ImageLimits) -> Prepared:
    """JPEG under max_bytes: lower quality and size a step at a time (rarely needed at 1920 px)."""
    scale, quality = 1.0, limits.jpeg_quality
    for _ in range(8):  # each round shrinks the image; 8 rounds reach ~10% of the side
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        if min(size) < limits.min_side:
            break
        frame = image if size == image.size else image.resize(size, Image.Resampling.BICUBIC)
        buffer = io.BytesIO()
        frame.save(buffer, format="JPEG", quality=quality)
        encoded = buffer.getvalue()
        if len(encoded) <= limits.max_bytes:
            return Prepared(encoded, "image/jpeg", size[0], size[1], converted=True)
        scale *= 0.75
        quality = max(70, quality - 5)
    raise ImageRejected("too_large", f"image cannot be brought under {limits.max_bytes} bytes")
