"""Synthesised photos: an SVG (the sandbox's normal image) or a small PNG (what the live fetcher's
WebP-to-PNG/JPEG conversion hands on), with every face boxed and labelled with who it truly is.

Both carry the photo id (`data-vd-photo` / a PNG tEXt chunk) so the simulated recogniser reads the
photo from the bytes it is given, as a real one would, not from the URL.
"""

from __future__ import annotations

import re
import struct
import zlib
from html import escape

from visual_degrees.domain.models import BoundingBox
from visual_degrees_tools.sandbox.captions import Kind
from visual_degrees_tools.sandbox.hashing import combine
from visual_degrees_tools.sandbox.layout import HEIGHT, WIDTH, face_boxes
from visual_degrees_tools.sandbox.photoweb import PhotoWeb

SVG_TYPE = "image/svg+xml"
PNG_TYPE = "image/png"
PNG_WIDTH = 320
PNG_HEIGHT = 214
_PHOTO_ID = re.compile(rb'vd-photo(?:="|\x00)([0-9a-f]{10})')
_MAX_CAPTION = 96


def photo_boxes(web: PhotoWeb, photo: int) -> list[BoundingBox]:
    return face_boxes(Kind(web.photo_kind[photo]), len(web.people_in(photo)), _wobble(web, photo))


def photo_id_in(data: bytes) -> str | None:
    """The photo id a synthesised image carries, if it is one."""
    match = _PHOTO_ID.search(data[:4096])
    return match.group(1).decode("ascii") if match else None


def render_svg(web: PhotoWeb, photo: int) -> str:
    people = web.people_in(photo)
    boxes = photo_boxes(web, photo)
    hue = combine(web.seed, web.event_of(photo)) % 360
    caption = web.caption(photo)
    short = caption if len(caption) <= _MAX_CAPTION else caption[: _MAX_CAPTION - 1] + "…"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" data-vd-photo="{web.photo_id(photo)}">',
        f"<title>{escape(caption)}</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="hsl({hue},35%,22%)"/>',
        f'<rect y="{HEIGHT * 0.72:.0f}" width="{WIDTH}" height="{HEIGHT * 0.28:.0f}" '
        f'fill="hsl({hue},30%,14%)"/>',
    ]
    for person, box in zip(people, boxes, strict=True):
        x, y, w, h = box.left * WIDTH, box.top * HEIGHT, box.width * WIDTH, box.height * HEIGHT
        cx = x + w / 2
        skin = 25 + combine(person, 7) % 20
        parts.append(
            f'<ellipse cx="{cx:.1f}" cy="{y + h * 1.85:.1f}" rx="{w * 0.9:.1f}" ry="{h * 0.95:.1f}" '
            f'fill="hsl({(hue + 180) % 360},25%,35%)"/>'
            f'<ellipse cx="{cx:.1f}" cy="{y + h / 2:.1f}" rx="{w * 0.42:.1f}" ry="{h * 0.48:.1f}" '
            f'fill="hsl({skin},45%,68%)"/>'
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="none" '
            f'stroke="#ffd34d" stroke-width="2"/>'
            f'<text x="{cx:.1f}" y="{y - 5:.1f}" font-family="sans-serif" '
            f'font-size="{max(9, min(14, w / 6)):.0f}" fill="#ffd34d" text-anchor="middle">'
            f"{escape(web.world.name(person))}</text>"
        )
    parts.append(
        f'<text x="12" y="{HEIGHT - 14}" font-family="sans-serif" font-size="12" fill="#eee">'
        f"{escape(short)}</text></svg>"
    )
    return "".join(parts)


def render_png(web: PhotoWeb, photo: int) -> bytes:
    """A small PNG of the same layout (face boxes only), written without an imaging library."""
    boxes = photo_boxes(web, photo)
    hue = combine(web.seed, web.event_of(photo)) % 360
    background = bytes((40 + hue % 60, 40 + (hue // 3) % 60, 60))
    rows = [bytearray(background * PNG_WIDTH) for _ in range(PNG_HEIGHT)]
    outline = b"\xff\xd3\x4d"
    for box in boxes:
        x0, x1 = int(box.left * PNG_WIDTH), int((box.left + box.width) * PNG_WIDTH)
        y0, y1 = int(box.top * PNG_HEIGHT), int((box.top + box.height) * PNG_HEIGHT)
        x0, x1 = max(0, x0), min(PNG_WIDTH - 1, x1)
        y0, y1 = max(0, y0), min(PNG_HEIGHT - 1, y1)
        for y in (y0, y1):
            rows[y][3 * x0 : 3 * (x1 + 1)] = outline * (x1 - x0 + 1)
        for y in range(y0, y1 + 1):
            rows[y][3 * x0 : 3 * x0 + 3] = outline
            rows[y][3 * x1 : 3 * x1 + 3] = outline
    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    header = struct.pack(">IIBBBBB", PNG_WIDTH, PNG_HEIGHT, 8, 2, 0, 0, 0)
    text = b"vd-photo\x00" + web.photo_id(photo).encode("ascii")
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"tEXt", text)
        + _chunk(b"IDAT", zlib.compress(raw, 6))
        + _chunk(b"IEND", b"")
    )


def render_page(web: PhotoWeb, photo: int) -> str:
    """A minimal HTML page for a photo's page URL: the image and its caption."""
    caption = escape(web.caption(photo))
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{caption}</title></head><body>"
        f"<figure><img src='{escape(web.image_url(photo))}' alt='{caption}' "
        f"width='{WIDTH}' height='{HEIGHT}'>"
        f"<figcaption>{caption}</figcaption></figure></body></html>"
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _wobble(web: PhotoWeb, photo: int) -> int:
    return combine(web.seed ^ 0xB0C5, photo)
