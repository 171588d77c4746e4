"""Feed the live image fetcher hostile images and print its peak memory and longest fetch.

    python scripts/image_limits.py                      # every case
    python scripts/image_limits.py --cases png-7071,drip-body --json

A server on 127.0.0.1 serves generated images: a solid-colour 7071x7071 PNG (160 KB), a
half-transparent 4000x4000 PNG and a 4000x4000 WebP (at the 16 MP decode cap), 7000x7000
JPEGs (baseline and progressive), a 5000x5000 WebP, a 300-frame GIF, a JPEG body dripped at one
byte a second, headers dripped the same way, and ordinary photos (1600x1200 JPEG, 1200x900 PNG,
a 3000x2000 press JPEG, a 9 MB 6000x4000 camera JPEG). For each case a fresh Python
process builds the fetcher exactly as a live run does (`build_fetcher(Settings(...))`, only
127.0.0.1 allow-listed), fetches the case's image eight times at once (the fetch pool's size) and
reports its peak RSS (VmHWM) and the longest fetch. `mixed` fetches eight different images at
once, as one search's worth of hostile results would arrive.

A child's address space is capped (`--memory-limit-mb`, default 8192) so that a fetcher without
limits fails with MemoryError instead of exhausting the machine.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

POOL = 8  # WallClock's max_workers: the live fetch pool

# ---- images ----------------------------------------------------------------------------------


def solid_png(width: int, height: int, pixel: bytes = bytes((200, 40, 40))) -> bytes:
    """A solid-colour PNG (RGB, or RGBA for a 4-byte pixel), compressed row by row (never holds
    the decoded image)."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        crc = zlib.crc32(kind + payload).to_bytes(4, "big")
        return len(payload).to_bytes(4, "big") + kind + payload + crc

    row = b"\x00" + pixel * width
    compressor = zlib.compressobj(9)
    parts = [compressor.compress(row) for _ in range(height)]
    idat = b"".join(parts) + compressor.flush()
    colour_type = 6 if len(pixel) == 4 else 2
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, colour_type, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def scene(width: int, height: int) -> Any:
    """A photo-like picture: a gradient with shapes and a little noise (so JPEG has work to do)."""
    from PIL import Image, ImageDraw

    base = Image.linear_gradient("L").resize((width, height))
    noise = Image.effect_noise((width, height), 24)
    image = Image.merge("RGB", (base, noise, Image.blend(base, noise, 0.5)))
    draw = ImageDraw.Draw(image)
    for i in range(12):
        x, y = (i * 997) % width, (i * 577) % height
        draw.ellipse((x, y, x + width // 8, y + height // 6), fill=(30 * i % 255, 90, 200 - 10 * i))
    return image


def encode(image: Any, fmt: str, **params: Any) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **params)
    return buffer.getvalue()


def animated_gif(width: int, height: int, frames: int) -> bytes:
    from PIL import Image

    images = [Image.new("P", (width, height), i % 256) for i in range(frames)]
    return encode(images[0], "GIF", save_all=True, append_images=images[1:], duration=40, loop=0)


@dataclass(frozen=True)
class Served:
    content_type: str
    data: bytes
    drip: str = ""  # "", "body" or "headers": sent one byte per --drip-interval seconds


def build_images(cache: Path) -> dict[str, Served]:
    """Every image, generated once per cache directory (the big ones take a few seconds)."""
    makers: dict[str, tuple[str, Callable[[], bytes]]] = {
        "png-7071": ("image/png", lambda: solid_png(7071, 7071)),
        "png-4000-rgba": ("image/png", lambda: solid_png(4000, 4000, bytes((20, 120, 220, 128)))),
        "webp-4000": ("image/webp", lambda: encode(scene(4000, 4000), "WEBP", quality=70)),
        "jpeg-7000": ("image/jpeg", lambda: encode(scene(7000, 7000), "JPEG", quality=80)),
        "jpeg-7000-progressive": (
            "image/jpeg",
            lambda: encode(scene(7000, 7000), "JPEG", quality=80, progressive=True),
        ),
        "webp-5000": ("image/webp", lambda: encode(scene(5000, 5000), "WEBP", quality=70)),
        "gif-300-frames": ("image/gif", lambda: animated_gif(1000, 800, 300)),
        "photo-jpeg": ("image/jpeg", lambda: encode(scene(1600, 1200), "JPEG", quality=85)),
        "press-jpeg": ("image/jpeg", lambda: encode(scene(3000, 2000), "JPEG", quality=85)),
        "camera-jpeg": ("image/jpeg", lambda: encode(scene(6000, 4000), "JPEG", quality=90)),
        "photo-png": ("image/png", lambda: encode(scene(1200, 900), "PNG")),
    }
    served: dict[str, Served] = {}
    for name, (content_type, make) in makers.items():
        path = cache / name
        if not path.exists():
            path.write_bytes(make())
        served[name] = Served(content_type, path.read_bytes())
    served["drip-body"] = Served("image/jpeg", served["photo-jpeg"].data, drip="body")
    served["drip-headers"] = Served("image/jpeg", served["photo-jpeg"].data, drip="headers")
    return served


# ---- the server ------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    images: dict[str, Served]
    drip_interval: float
    drip_seconds: float


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        served = self.server.images.get(self.path.split("?")[0].lstrip("/"))
        if served is None:
            self.send_error(404)
            return
        head = (
            f"HTTP/1.1 200 OK\r\nContent-Type: {served.content_type}\r\n"
            f"Content-Length: {len(served.data)}\r\nConnection: close\r\n\r\n"
        ).encode()
        try:
            if served.drip == "headers":
                self._drip(head)
            elif served.drip == "body":
                self.wfile.write(head)
                self._drip(served.data)
            else:
                self.wfile.write(head + served.data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: what a deadline does
        self.close_connection = True

    def _drip(self, data: bytes) -> None:
        """One byte per interval; gives up after --drip-seconds (so a fetcher without a deadline ends)."""
        stop = time.monotonic() + self.server.drip_seconds
        for i in range(len(data)):
            if time.monotonic() > stop:
                return
            self.wfile.write(data[i : i + 1])
            time.sleep(self.server.drip_interval)


def serve(images: dict[str, Served], drip_interval: float, drip_seconds: float) -> _Server:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.images = images
    server.drip_interval = drip_interval
    server.drip_seconds = drip_seconds
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    return server


# ---- one case, in a fresh process -------------------------------------------------------------

CASES: dict[str, list[str]] = {
    "photo-jpeg": ["photo-jpeg"] * POOL,
    "photo-png": ["photo-png"] * POOL,
    "press-jpeg": ["press-jpeg"] * POOL,
    "camera-jpeg": ["camera-jpeg"] * POOL,
    "png-7071": ["png-7071"] * POOL,
    "png-4000-rgba": ["png-4000-rgba"] * POOL,
    "webp-4000": ["webp-4000"] * POOL,
    "jpeg-7000": ["jpeg-7000"] * POOL,
    "jpeg-7000-progressive": ["jpeg-7000-progressive"] * POOL,
    "webp-5000": ["webp-5000"] * POOL,
    "gif-300-frames": ["gif-300-frames"] * POOL,
    "drip-body": ["drip-body"] * POOL,
    "drip-headers": ["drip-headers"] * POOL,
    "mixed": [
        "png-7071",
        "jpeg-7000",
        "jpeg-7000-progressive",
        "webp-5000",
        "gif-300-frames",
        "drip-body",
        "camera-jpeg",
        "photo-png",
    ],
}


def _rss_mb() -> float:
    """Peak RSS of this process. VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent
    across fork and exec, so a child of a big parent would report the parent's peak."""
    try:
        status = Path("/proc/self/status").read_text()
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.M).group(1)) / 1024  # type: ignore[union-attr]
    except (OSError, AttributeError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def child(case: str, base: str, memory_limit_mb: int, pool_size: int) -> dict[str, Any]:
    limit = memory_limit_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from visual_degrees.adapters.live.providers import build_fetcher
    from visual_degrees.settings import Settings

    fetcher = build_fetcher(Settings(fetch_allow_networks="127.0.0.1/32"))
    rss_before = _rss_mb()

    def one(index_name: tuple[int, str]) -> dict[str, Any]:
        index, name = index_name
        started = time.monotonic()
        try:
            image = fetcher.fetch(f"{base}/{name}?copy={index}")
            outcome = f"{image.content_type} {image.width}x{image.height} {len(image.data) // 1024} KB"
        except MemoryError:
            outcome = "MemoryError"
        except Exception as exc:
            outcome = f"{type(exc).__name__}: {getattr(exc, 'reason', '')} {exc}".strip()
        return {"image": name, "seconds": round(time.monotonic() - started, 2), "outcome": outcome}

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=pool_size) as pool:
        fetches = list(pool.map(one, enumerate(CASES[case][:pool_size])))
    return {
        "case": case,
        "rss_before_mb": round(rss_before, 1),
        "peak_rss_mb": round(_rss_mb(), 1),
        "longest_fetch_s": max(f["seconds"] for f in fetches),
        "wall_s": round(time.monotonic() - started, 2),
        "fetches": fetches,
    }


def run_case(case: str, base: str, memory_limit_mb: int, pool_size: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", case, "--base", base]
    command += ["--memory-limit-mb", str(memory_limit_mb), "--pool", str(pool_size)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
        return {"case": case, "error": tail[0]}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated; default: all")
    parser.add_argument("--drip-interval", type=float, default=1.0, help="seconds between dripped bytes")
    parser.add_argument("--drip-seconds", type=float, default=60.0, help="the server stops dripping after")
    parser.add_argument("--memory-limit-mb", type=int, default=8192, help="address-space cap of a child")
    parser.add_argument("--pool", type=int, default=POOL, help="fetches at once (1 shows one image's cost)")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "vd-image-limits"))
    parser.add_argument("--json", action="store_true", help="one JSON object per case")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        print(json.dumps(child(args.child, args.base, args.memory_limit_mb, args.pool)))
        return

    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"unknown cases {unknown}; choose from {list(CASES)}")
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    server = serve(build_images(cache), args.drip_interval, args.drip_seconds)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        if not args.json:
            print(f"{'case':<24}{'peak RSS':>10}{'idle':>9}{'longest':>10}  outcomes")
        for case in cases:
            result = run_case(case, base, args.memory_limit_mb, min(args.pool, POOL))
            if args.json:
                print(json.dumps(result))
            elif "error" in result:
                print(f"{case:<24}  failed: {result['error']}")
            else:
                outcomes = sorted({f"{f['image']}: {f['outcome']}" for f in result["fetches"]})
                print(
                    f"{case:<24}{result['peak_rss_mb']:>8.0f}MB{result['rss_before_mb']:>7.0f}MB"
                    f"{result['longest_fetch_s']:>9.1f}s  {outcomes[0]}"
                )
                for outcome in outcomes[1:]:
                    print(f"{'':<53}{outcome}")
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    main()
