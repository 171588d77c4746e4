"""Where the faces are in a synthesised photo: shared by the renderer and the recogniser, so the
boxes the recogniser reports are exactly the boxes drawn in the image."""

from __future__ import annotations

from visual_degrees.domain.models import BoundingBox
from visual_degrees_tools.sandbox.captions import Kind

WIDTH = 640
HEIGHT = 427
_ASPECT = WIDTH / HEIGHT
_FACE_TALL = 1.25  # a face box is taller than wide, in pixels


def face_boxes(kind: Kind, count: int, wobble: int) -> list[BoundingBox]:
    """Boxes as fractions of the image (Rekognition's convention), in the photo's people order:
    one large face for a portrait, a row for a group, two rows for a crowd. `wobble` (a hash)
    shifts faces a little so no two photos look identical."""
    if kind is Kind.PORTRAIT or count == 1:
        return [_box(0.5, 0.36, 0.2, wobble)]
    if kind is Kind.GROUP:
        width = min(0.16, 0.7 / count)
        return [_box((i + 0.5) / count, 0.38, width, wobble >> (4 * i)) for i in range(count)]
    back = (count + 1) // 2
    front = count - back
    boxes = [_box((i + 0.5) / back, 0.22, 0.075, wobble >> (3 * i)) for i in range(back)]
    boxes += [_box((i + 0.5) / front, 0.5, 0.085, wobble >> (3 * (i + back))) for i in range(front)]
    return boxes


def _box(center_x: float, top: float, width: float, wobble: int) -> BoundingBox:
    height = width * _ASPECT * _FACE_TALL
    dx = ((wobble & 0x3) - 1.5) * width * 0.1
    dy = (((wobble >> 2) & 0x3) - 1.5) * height * 0.08
    return BoundingBox(
        left=round(center_x - width / 2 + dx, 4),
        top=round(top + dy, 4),
        width=round(width, 4),
        height=round(height, 4),
    )
