"""Fake Brave image search, Rekognition and Gemini servers, and a static image server, on 127.0.0.1.

They speak the real wire formats, so the live adapters run against them unchanged:
- Brave: `GET /res/v1/images/search?q=&count=&safesearch=` with `X-Subscription-Token`, answering
  the `{"type": "images", "results": [...]}` document (422 SUBSCRIPTION_TOKEN_INVALID for a bad token).
- Rekognition: AWS JSON 1.1, `POST /` with `X-Amz-Target: RekognitionService.RecognizeCelebrities`,
  body `{"Image": {"Bytes": base64}}`; SigV4 headers are accepted and ignored; errors as
  `{"__type": ..., "Message": ...}` so botocore raises the usual ClientError codes.
- Gemini: `POST /{version}/models/{model}:generateContent`, answering a plan or a list of links
  (whichever the request asks for: a connect request's data has `sideA`) computed from the
  planner's own data block (or scripted text), with usage metadata.
- OpenAI-compatible (Ollama, vLLM, LM Studio): `POST /v1/chat/completions` and `GET /v1/models`,
  with the servers' differences that matter (response formats refused, usage left out), answering
  both request kinds the same way.
- Images: any bytes at any path, plus redirects, endless bodies and stalls for the fetcher's tests
  (HTTPS too, given a server TLS context).

Point the adapters at them with `Settings(brave_endpoint=brave.endpoint, fetch_allow_networks=
"127.0.0.1/32", gemini_base_url=gemini.url)` and `AWS_ENDPOINT_URL_REKOGNITION=rekognition.url`
(plus dummy AWS credentials and a region). Use `retry_base_delay=0` to keep fault tests fast.
Every server is a context manager; request loops are bounded in bytes and time and stop by themselves.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import ssl
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from PIL import Image, ImageDraw

from visual_degrees.adapters.live.image_convert import ImageRejected, prepare_for_recognition
from visual_degrees_tools.wire.formats import CelebrityFace, FakeHit, brave_document, rekognition_error
from visual_degrees_tools.wire.server import Recorded, Reply, WireServer, json_reply

# The loopback server and the wire documents live in visual_degrees_tools.wire (the benchmarks use
# them too); they are re-exported here for the tests.

# ---- images -----------------------------------------------------------------------------------


def photo_bytes(label: str, size: tuple[int, int] = (320, 240), fmt: str = "JPEG") -> bytes:
    """A deterministic picture, different for every label (so every label has its own sha256)."""
    digest = hashlib.sha256(label.encode()).digest()
    image = Image.new("RGB", size, tuple(digest[:3]))
    draw = ImageDraw.Draw(image)
    for i in range(6):
        x = digest[3 + i] * size[0] // 256
        y = digest[10 + i] * size[1] // 256
        draw.ellipse((x, y, x + size[0] // 6, y + size[1] // 5), fill=tuple(digest[16 + i : 19 + i]))
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **({"quality": 90} if fmt in ("JPEG", "WEBP") else {}))
    return buffer.getvalue()


class StaticImageServer(WireServer):
    """Serves whatever was added at a path; 404 otherwise."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(tls)
        self._routes: dict[str, Reply] = {}

    def add(self, path: str, data: bytes, content_type: str = "image/jpeg") -> str:
        return self.add_reply(path, Reply(200, {"Content-Type": content_type}, data))

    def add_reply(self, path: str, reply: Reply) -> str:
        self._routes[path] = reply
        return self.url + path

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        return self.add_reply(path, Reply(status, {"Location": location}))

    def endless(
        self, path: str, content_type: str = "image/jpeg", limit_bytes: int = 64 * 1024 * 1024
    ) -> str:
        """A body with no Content-Length that keeps coming (bounded so the server stops by itself)."""

        def write(out: io.BufferedIOBase) -> None:
            chunk = b"\xff" * 65536
            sent = 0
            while sent < limit_bytes:
                out.write(chunk)
                sent += len(chunk)

        return self.add_reply(path, Reply(200, {"Content-Type": content_type}, write))

    def stalled(
        self, path: str, first: bytes, stall_seconds: float = 2.0, content_type: str = "image/jpeg"
    ) -> str:
        """Sends `first`, then nothing for `stall_seconds` (longer than a test's read timeout)."""

        def write(out: io.BufferedIOBase) -> None:
            out.write(first)
            out.flush()
            time.sleep(stall_seconds)

        return self.add_reply(path, Reply(200, {"Content-Type": content_type}, write))

    def handle(self, request: Recorded) -> Reply:
        return self._routes.get(request.path, Reply(404, {"Content-Type": "text/plain"}, b"not found"))


# ---- Brave image search -------------------------------------------------------------------------


class FakeBraveSearch(WireServer):
    PATH = "/res/v1/images/search"

    def __init__(self, token: str = "test-brave-token") -> None:
        super().__init__()
        self.token = token
        self._results: dict[str, list[FakeHit]] = {}
        self._faults: list[Reply] = []

    @property
    def endpoint(self) -> str:
        return self.url + self.PATH

    def add(self, query: str, hits: Iterable[FakeHit]) -> None:
        self._results.setdefault(query, []).extend(hits)

    def fail_next(
        self,
        status: int = 429,
        code: str = "RATE_LIMITED",
        *,
        times: int = 1,
        headers: dict[str, str] | None = None,
    ) -> None:
        """The next `times` requests get Brave's error document with this status, code and headers."""
        body = {
            "type": "ErrorResponse",
            "error": {"id": "fake", "status": status, "code": code, "detail": code},
        }
        for _ in range(times):
            self._faults.append(json_reply(status, body, **(headers or {})))

    @property
    def searches(self) -> list[Recorded]:
        return [r for r in self.requests if r.path == self.PATH]

    def handle(self, request: Recorded) -> Reply:
        if request.path != self.PATH or request.method != "GET":
            return json_reply(404, {"type": "ErrorResponse", "error": {"status": 404, "code": "NOT_FOUND"}})
        if request.headers.get("x-subscription-token") != self.token:
            return json_reply(
                422,
                {"type": "ErrorResponse", "error": {"status": 422, "code": "SUBSCRIPTION_TOKEN_INVALID"}},
            )
        with self.lock:
            if self._faults:
                return self._faults.pop(0)
        query = request.query.get("q", [""])[0]
        count = int(request.query.get("count", ["50"])[0])
        hits = self._results.get(query, [])[:count]
        return json_reply(200, brave_document(query, hits))


# ---- Rekognition ---------------------------------------------------------------------------------


class FakeRekognition(WireServer):
    TARGET = "RekognitionService.RecognizeCelebrities"
    MAX_BYTES = 5 * 1024 * 1024

    def __init__(self) -> None:
        super().__init__()
        self._faces: dict[str, tuple[list[CelebrityFace], int]] = {}
        self._faults: list[Reply] = []

    def register(self, image: bytes, faces: Sequence[CelebrityFace], *, unrecognized: int = 0) -> None:
        """Who is in `image`. Also registered under the bytes our fetcher would send after
        converting it (WebP, GIF, oversized...), so a converted picture is still recognised."""
        entry = (list(faces), unrecognized)
        self._faces[hashlib.sha256(image).hexdigest()] = entry
        with contextlib.suppress(ImageRejected):  # not convertible: only the raw bytes are known
            self._faces[prepare_for_recognition(image).sha256] = entry

    def fail_next(self, code: str = "ThrottlingException", status: int = 400, *, times: int = 1) -> None:
        for _ in range(times):
            self._faults.append(rekognition_error(code, status))

    @property
    def calls(self) -> list[Recorded]:
        return [r for r in self.requests if r.headers.get("x-amz-target") == self.TARGET]

    def handle(self, request: Recorded) -> Reply:
        if request.method != "POST" or request.headers.get("x-amz-target") != self.TARGET:
            return rekognition_error("UnknownOperationException", 400)
        with self.lock:
            if self._faults:
                return self._faults.pop(0)
        try:
            encoded = json.loads(request.body)["Image"]["Bytes"]
            data = base64.b64decode(encoded, validate=True)
        except (ValueError, KeyError, TypeError):
            return rekognition_error("InvalidParameterException", 400)
        if len(data) > self.MAX_BYTES:
            return rekognition_error("ImageTooLargeException", 400)
        if not _is_jpeg_or_png(data):
            return rekognition_error("InvalidImageFormatException", 400)
        faces, unrecognized = self._faces.get(hashlib.sha256(data).hexdigest(), ([], 0))
        document = {
            "CelebrityFaces": [face.wire() for face in faces],
            "UnrecognizedFaces": [
                {"BoundingBox": {"Width": 0.1, "Height": 0.1, "Left": 0.5, "Top": 0.5}, "Confidence": 98.0}
                for _ in range(unrecognized)
            ],
        }
        return json_reply(200, document, "application/x-amz-json-1.1", **{"x-amzn-RequestId": "fake-request"})


def _is_jpeg_or_png(data: bytes) -> bool:
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.format in ("JPEG", "PNG")
    except Exception:
        return False


# ---- Gemini (generateContent) -----------------------------------------------------------------


PlanFunction = Callable[[dict[str, Any]], dict[str, Any]]


def first_candidates_plan(data: dict[str, Any]) -> dict[str, Any]:
    """A plausible planner: the two best offered candidates, each with the plain pair query."""
    names = [c["name"] for c in data.get("candidates", [])][:2]
    frontier = data.get("frontier", "")
    return {
        "nextCandidates": names,
        "searchQueries": [f"{frontier} {name}" for name in names],
        "narration": "Trying the strongest co-appearances first.",
    }


def no_links(data: dict[str, Any]) -> dict[str, Any]:
    """A planner that knows nobody: a valid connect answer with no pairs."""
    return {"links": [], "narration": "I cannot place any of these people together."}


def request_kind(data: dict[str, Any]) -> str:
    """ "connect" for a connect request's data block (the two sides), else "plan"."""
    return "connect" if "sideA" in data else "plan"


def data_block(user_text: str) -> dict[str, Any] | None:
    """The planner's JSON document inside <planning_data> tags, or None for any other text."""
    if not user_text.startswith("<planning_data>\n"):
        return None
    document: dict[str, Any] = json.loads(user_text.split("\n", 1)[1].rsplit("\n", 1)[0])
    return document


class _PlannerAnswers:
    """What the fake LLM servers share: a plan or a list of links computed from the data block
    (`plan` / `connect`), or `reply_text` verbatim for every request; `kinds` records what each
    request asked for ("plan", "connect", or "other" for anything without a data block), `usages`
    the usage each answer reported."""

    def __init__(self, plan: PlanFunction, connect: PlanFunction) -> None:
        self.plan = plan
        self.connect = connect
        self.reply_text: str | None = None
        self.kinds: list[str] = []
        self.usages: list[dict[str, int]] = []

    def reported(self, key: str) -> list[int]:
        """The `key` count of every usage reported so far (e.g. "promptTokenCount")."""
        return [usage[key] for usage in self.usages if key in usage]

    def answer(self, user_text: str) -> str | None:
        """The reply text for `user_text`; None when it holds no data block and nothing is scripted."""
        data = data_block(user_text)
        kind = "other" if data is None else request_kind(data)
        self.kinds.append(kind)
        if self.reply_text is not None:
            return self.reply_text
        if data is None:
            return None
        return json.dumps(self.connect(data) if kind == "connect" else self.plan(data))


class FakeGemini(WireServer, _PlannerAnswers):
    """`POST /{version}/models/{model}:generateContent` answering in the Gemini REST shape.

    The planner's data block is parsed out of the request and handed to `plan` (default:
    `first_candidates_plan`) or, for a connect request, to `connect` (default: `no_links`); set
    `reply_text` to answer raw text instead (e.g. invalid JSON). Point GeminiPlanner at it with
    `base_url=fake.url` (VD_GEMINI_BASE_URL).
    """

    def __init__(
        self,
        plan: PlanFunction = first_candidates_plan,
        api_key: str = "test-gemini-key",
        *,
        connect: PlanFunction = no_links,
    ) -> None:
        WireServer.__init__(self)
        _PlannerAnswers.__init__(self, plan, connect)
        self.api_key = api_key
        self._faults: list[Reply] = []

    def fail_next(self, status: int = 429, rpc_status: str = "RESOURCE_EXHAUSTED", *, times: int = 1) -> None:
        body = {"error": {"code": status, "message": rpc_status.lower(), "status": rpc_status}}
        for _ in range(times):
            self._faults.append(json_reply(status, body))

    @property
    def calls(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith(":generateContent")]

    def handle(self, request: Recorded) -> Reply:
        if request.method != "POST" or not request.path.endswith(":generateContent"):
            return json_reply(404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})
        if request.headers.get("x-goog-api-key") != self.api_key:
            message = "API key not valid. Please pass a valid API key."
            return json_reply(400, {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})
        with self.lock:
            if self._faults:
                return self._faults.pop(0)
        body = json.loads(request.body)
        user_text = body["contents"][0]["parts"][0]["text"]
        text = self.answer(user_text) or "OK"
        usage = {"promptTokenCount": len(user_text) // 4, "candidatesTokenCount": len(text) // 4}
        self.usages.append(usage)
        return json_reply(
            200,
            {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
                ],
                "usageMetadata": {**usage, "totalTokenCount": sum(usage.values())},
                "modelVersion": request.path.rsplit("/", 1)[-1].split(":")[0],
            },
        )


# ---- OpenAI-compatible chat completions (Ollama, vLLM, LM Studio) -----------------------------


class FakeOpenAI(WireServer, _PlannerAnswers):
    """An OpenAI-compatible server under `/v1`, as Ollama, vLLM and LM Studio serve it:
    `POST /v1/chat/completions` and `GET /v1/models`.

    The planner's data block is parsed out of the user message and handed to `plan` (default:
    `first_candidates_plan`) or, for a connect request, to `connect` (default: `no_links`); set
    `reply_text` to answer raw content instead (prose, fenced JSON).
    `accepts` names the response_format types the server takes; any other is refused with vLLM's
    400 error document. `usage=False` leaves `usage` out (some servers do). With `api_key`, requests
    need `Authorization: Bearer <key>` (401 otherwise, as OpenAI answers); an unknown model is a 404
    in Ollama's words. Point the planner at it with `base_url=fake.base_url` (VD_OPENAI_BASE_URL).
    """

    PREFIX = "/v1"

    def __init__(
        self,
        plan: PlanFunction = first_candidates_plan,
        *,
        models: Sequence[str] = ("llama3.1:8b",),
        api_key: str | None = None,
        accepts: Iterable[str] = ("json_schema", "json_object"),
        list_models: bool = True,
        connect: PlanFunction = no_links,
    ) -> None:
        WireServer.__init__(self)
        _PlannerAnswers.__init__(self, plan, connect)
        self.models = list(models)
        self.api_key = api_key
        self.accepts = set(accepts)
        self.list_models = list_models
        self.usage = True
        self._faults: list[Reply] = []

    @property
    def base_url(self) -> str:
        return self.url + self.PREFIX

    def fail_next(self, status: int = 429, *, times: int = 1, headers: dict[str, str] | None = None) -> None:
        """The next `times` completions get an OpenAI error document with this status."""
        kind = "rate_limit_exceeded" if status == 429 else "server_error"
        body = {"error": {"message": f"fake {status}", "type": kind, "param": None, "code": kind}}
        for _ in range(times):
            self._faults.append(json_reply(status, body, **(headers or {})))

    @property
    def calls(self) -> list[Recorded]:
        return [r for r in self.requests if r.path == self.PREFIX + "/chat/completions"]

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.calls]

    def handle(self, request: Recorded) -> Reply:
        if self.api_key is not None and request.headers.get("authorization") != f"Bearer {self.api_key}":
            error = {"message": "Incorrect API key provided.", "type": "invalid_request_error"}
            return json_reply(401, {"error": {**error, "param": None, "code": "invalid_api_key"}})
        if request.method == "GET" and request.path == self.PREFIX + "/models" and self.list_models:
            listed = [{"id": m, "object": "model", "created": 1, "owned_by": "library"} for m in self.models]
            return json_reply(200, {"object": "list", "data": listed})
        if request.method != "POST" or request.path != self.PREFIX + "/chat/completions":
            return Reply(404, {"Content-Type": "text/plain"}, b"404 page not found")
        with self.lock:
            if self._faults:
                return self._faults.pop(0)
        body = json.loads(request.body)
        model = body.get("model")
        if model not in self.models:
            message = f'model "{model}" not found, try pulling it first'
            return json_reply(404, {"error": {"message": message, "type": "api_error", "param": None}})
        kind = (body.get("response_format") or {}).get("type")
        if kind is not None and kind not in self.accepts:
            return json_reply(
                400,
                {
                    "object": "error",
                    "message": f"response_format type {kind!r} is not supported by this server",
                    "type": "BadRequestError",
                    "param": "response_format",
                    "code": 400,
                },
            )
        user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        text = self.answer(user) or "OK"  # "OK": anything else, e.g. the doctor's one-token ping
        document: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1,
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
        }
        if self.usage:
            prompt = sum(len(m["content"]) for m in body["messages"]) // 4 + 7
            completion = len(text) // 4 + 3
            document["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            self.usages.append(document["usage"])
        return json_reply(200, document)
