"""A sandbox photo web served on loopback in the live providers' wire formats, with their quotas
enforced, so the live adapters, the pacing and the budgets can be measured without a network:

- search: Brave's `GET /res/v1/images/search`, ranking the photo web's captions as the sandbox does,
  its image URLs on the image server;
- images: each photo as the sandbox renders it (a PNG carrying its photo id);
- recognition: Rekognition's RecognizeCelebrities (AWS JSON 1.1), reading the photo id from the
  image bytes and answering the sandbox's sightings of it.

Above its quota (calls in any one-second window), search answers 429 with Brave's error document and
rate-limit headers, recognition a ThrottlingException, as the real services do; both count what they
served and what they throttled. Each answer takes the sandbox's latency (times `latency_scale`).
Point the live adapters at it with `QuotaWeb.environ()`.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from visual_degrees.adapters.wall_clock import WallClock
from visual_degrees.domain.errors import ProviderError
from visual_degrees.domain.models import Face, FetchedImage
from visual_degrees_tools.sandbox import LATENCIES, PhotoWeb
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox.recognizer import SandboxRecognizer
from visual_degrees_tools.sandbox.render import render_png
from visual_degrees_tools.wire.formats import CelebrityFace, FakeHit, brave_document, rekognition_error
from visual_degrees_tools.wire.server import Recorded, Reply, WireServer, json_reply

if TYPE_CHECKING:
    from visual_degrees.ports import RateLimiter
    from visual_degrees_tools.local.runner import RunEnvironment

BRAVE_PATH = "/res/v1/images/search"
BRAVE_TOKEN = "loopback-brave-token"  # nothing secret: the fake takes only this one
REKOGNITION_TARGET = "RekognitionService.RecognizeCelebrities"
MAX_COUNT = 200


class Quota:
    """At most `per_second` calls in any window of one second (a sliding window, the strictest
    reading of a per-second quota); counts what it let through and what it refused."""

    def __init__(self, per_second: float) -> None:
        self.per_second = per_second
        self.served = 0
        self.throttled = 0
        self._times: deque[float] = deque()
        self._lock = threading.Lock()

    def admit(self) -> bool:
        now = time.monotonic()
        with self._lock:
            while self._times and self._times[0] <= now - 1.0:
                self._times.popleft()
            if len(self._times) >= self.per_second:
                self.throttled += 1
                return False
            self._times.append(now)
            self.served += 1
            return True


class _WebServer(WireServer):
    keeps_requests = False

    def __init__(self, web: PhotoWeb, latency: float) -> None:
        super().__init__()
        self.web = web
        self.latency = latency


class WorldImages(_WebServer):
    """Every photo of the web at `/photos/<id>.png`, rendered once."""

    def __init__(self, web: PhotoWeb, latency: float) -> None:
        super().__init__(web, latency)
        self._rendered: dict[int, bytes] = {}

    def url_of(self, photo: int) -> str:
        return f"{self.url}/photos/{self.web.photo_id(photo)}.png"

    def handle(self, request: Recorded) -> Reply:
        photo_id = request.path.removeprefix("/photos/").removesuffix(".png")
        photo = self.web.photo_index(photo_id) if request.path.startswith("/photos/") else None
        if photo is None:
            return Reply(404, {"Content-Type": "text/plain"}, b"not found")
        with self.lock:
            data = self._rendered.get(photo)
        if data is None:
            data = render_png(self.web, photo)
            with self.lock:
                self._rendered[photo] = data
        time.sleep(self.latency)
        return Reply(200, {"Content-Type": "image/png"}, data)


class WorldSearch(_WebServer):
    """Brave's image search over the web's captions, within `quota`."""

    def __init__(self, web: PhotoWeb, images: WorldImages, quota: Quota, latency: float) -> None:
        super().__init__(web, latency)
        self.images = images
        self.quota = quota
        self._ranker = ranker_for(web)

    @property
    def endpoint(self) -> str:
        return self.url + BRAVE_PATH

    def handle(self, request: Recorded) -> Reply:
        if request.path != BRAVE_PATH or request.headers.get("x-subscription-token") != BRAVE_TOKEN:
            return json_reply(422, {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}})
        if not self.quota.admit():
            limit = f"{self.quota.per_second:g}"
            document = {"type": "ErrorResponse", "error": {"status": 429, "code": "RATE_LIMITED"}}
            return json_reply(
                429,
                document,
                **{"X-RateLimit-Limit": limit, "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"},
            )
        query = request.query.get("q", [""])[0]
        count = min(MAX_COUNT, max(1, int(request.query.get("count", ["20"])[0])))
        with self.lock:  # the ranker's caches are not made for threads
            photos = self._ranker.rank(query, count)
        hits = [
            FakeHit(image_url=self.images.url_of(p), page_url=self.web.page_url(p), title=self.web.caption(p))
            for p in photos
        ]
        time.sleep(self.latency)
        return json_reply(200, brave_document(query, hits))


class WorldRekognition(_WebServer):
    """RecognizeCelebrities on the web's photos, within `quota`."""

    def __init__(self, web: PhotoWeb, quota: Quota, latency: float) -> None:
        super().__init__(web, latency)
        self.quota = quota
        self._recognizer = SandboxRecognizer(web)

    def handle(self, request: Recorded) -> Reply:
        if request.headers.get("x-amz-target") != REKOGNITION_TARGET:
            return rekognition_error("UnknownOperationException", 400)
        if not self.quota.admit():
            return rekognition_error("ThrottlingException", 400)
        try:
            data = base64.b64decode(json.loads(request.body)["Image"]["Bytes"], validate=True)
        except (ValueError, KeyError, TypeError):
            return rekognition_error("InvalidParameterException", 400)
        image = FetchedImage(url="", data=data, content_type="image/png", sha256="")
        try:
            with self.lock:
                faces = self._recognizer.recognize(image)
        except ProviderError:
            return rekognition_error("InvalidImageFormatException", 400)
        wire = [_celebrity(face).wire() for face in faces]
        time.sleep(self.latency)
        return json_reply(
            200, {"CelebrityFaces": wire, "UnrecognizedFaces": []}, "application/x-amz-json-1.1"
        )


def _celebrity(face: Face) -> CelebrityFace:
    box = face.box
    return CelebrityFace(
        face.name, face.celebrity_id, face.confidence, (box.left, box.top, box.width, box.height)
    )


@dataclass
class QuotaWeb:
    search: WorldSearch
    images: WorldImages
    rekognition: WorldRekognition
    settings: dict[str, str] = field(default_factory=dict)

    def environ(self) -> dict[str, str]:
        """The variables that point the live adapters here (and nowhere else)."""
        return {
            "VD_SEARCH_ENGINE": "brave",
            "VD_BRAVE_API_KEY": BRAVE_TOKEN,
            "VD_BRAVE_ENDPOINT": self.search.endpoint,
            "VD_FETCH_ALLOW_NETWORKS": "127.0.0.1/32",
            "AWS_ENDPOINT_URL_REKOGNITION": self.rekognition.url,
            "AWS_ACCESS_KEY_ID": "loopback",
            "AWS_SECRET_ACCESS_KEY": "loopback",
            "AWS_DEFAULT_REGION": "us-east-1",
            **self.settings,
        }

    def environment(
        self, web: PhotoWeb, limiter: RateLimiter | None, **settings: Any
    ) -> Callable[[str], RunEnvironment]:
        """Run environments on this quota web: the live search, fetcher and recogniser pointed
        here (their retries as deployed, `settings` overriding any), the sandbox's simulated planner
        on the same world, every paid call paced by `limiter` (None: unpaced)."""
        import boto3
        from botocore.config import Config

        from visual_degrees.adapters.live.providers import build_live_providers
        from visual_degrees.config import Settings
        from visual_degrees.ports import Providers
        from visual_degrees_tools.local.runner import RunEnvironment
        from visual_degrees_tools.sandbox.planner import SimulatedPlanner

        env = self.environ()
        config = Settings(
            search_engine="brave",
            brave_api_key=BRAVE_TOKEN,
            brave_endpoint=env["VD_BRAVE_ENDPOINT"],
            fetch_allow_networks=env["VD_FETCH_ALLOW_NETWORKS"],
            planner="bedrock",  # never built: the simulated planner below replaces it
            **settings,
        )
        rekognition = boto3.client(
            "rekognition",
            endpoint_url=self.rekognition.url,
            region_name=env["AWS_DEFAULT_REGION"],
            aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
            config=Config(retries={"total_max_attempts": 1}, max_pool_connections=64),
        )
        live = build_live_providers(config, paced=limiter is not None, rekognition_client=rekognition)
        label = f"loopback {web.identity}"

        def environment(run_id: str) -> RunEnvironment:
            providers = Providers(
                search=live.search,
                fetcher=live.fetcher,
                recognizer=live.recognizer,
                planner=SimulatedPlanner(web.world, seed=web.seed),
                web=label,
            )
            return RunEnvironment(providers=providers, clock=WallClock(), web=label, limiter=limiter)

        return environment

    def counts(self) -> dict[str, int]:
        return {
            "searchesServed": self.search.quota.served,
            "searchesThrottled": self.search.quota.throttled,
            "recognitionsServed": self.rekognition.quota.served,
            "recognitionsThrottled": self.rekognition.quota.throttled,
        }


@contextmanager
def quota_web(
    web: PhotoWeb, *, searches_per_second: float, recognitions_per_second: float, latency_scale: float = 1.0
) -> Iterator[QuotaWeb]:
    """The three servers, started, for as long as the block runs."""
    with ExitStack() as stack:
        images = stack.enter_context(WorldImages(web, LATENCIES.fetch * latency_scale))
        search = stack.enter_context(
            WorldSearch(web, images, Quota(searches_per_second), LATENCIES.search * latency_scale)
        )
        rekognition = stack.enter_context(
            WorldRekognition(web, Quota(recognitions_per_second), LATENCIES.recognize * latency_scale)
        )
        yield QuotaWeb(search=search, images=images, rekognition=rekognition)
