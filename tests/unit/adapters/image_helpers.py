"""Helpers for the image tests: cheap big images, and an executor that counts what it was given."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

T = TypeVar("T")


class CountingExecutor(Executor):
    """Runs work inline and counts it: shows what went to the fetcher's decode thread."""

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        self.submitted += 1
        future: Future[T] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


def solid_png(width: int, height: int, pixel: bytes = bytes((200, 40, 40))) -> bytes:
    """A solid-colour PNG (RGB, or RGBA for 4-byte pixels) written row by row: a 7071x7071 one
    costs a row of memory, not the 150 MB Pillow would need to draw it."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (
            len(payload).to_bytes(4, "big") + kind + payload + zlib.crc32(kind + payload).to_bytes(4, "big")
        )

    row = b"\x00" + pixel * width  # filter type 0, then the pixels
    compressor = zlib.compressobj(1)
    idat = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    colour_type = 6 if len(pixel) == 4 else 2
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, colour_type, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
