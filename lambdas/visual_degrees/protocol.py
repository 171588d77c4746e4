"""The client protocol, shared by the deployed WebSocket API and the local server (docs/web.md).

Client -> server: JSON objects routed on `action` (API Gateway's `$request.body.action`):
    {"action": "startRun", "personA", "personB", "options"?}
    {"action": "subscribe", "runId", "fromSeq"?, "runToken"?, "shareToken"?}
    {"action": "cancelRun", "runId", "runToken"?}
    {"action": "getRun", "runId", "runToken"?, "shareToken"?}
    {"action": "getGraph", "runId", "runToken"?, "shareToken"?, "cursor"?}
    {"action": "continueRun", "runId", "runToken"?, "budgets"?, "via"?}
Server -> client: run events as stored (`{"runId", "seq", "type", "ts", "data"}`, recognisable by
`seq`), and replies without `seq`:
    {"type": "runAccepted", "runId", "runToken", "shareToken", "ceilings"}
                                                         to startRun (the client is subscribed;
                                                         `shareToken`: read-only access to the run,
                                                         lifecycle/run_sharing.py; `ceilings`: the
                                                         operator's, by option name, bounding the
                                                         run's total spend)
    {"type": "subscribed", "runId", "fromSeq"}           to subscribe (replay follows, then live)
    {"type": "cancelRequested", "runId"}                 to cancelRun
    {"type": "run", "runId", "status", "personA", "personB", "lastSeq",
     "executionStatus", "cancelRequested", "final"}     to getRun
    {"type": "graph", "runId", "nodes", "edges", "cursor"}  to getGraph: one page of the run's verified
                                                         graph (a link reused from an earlier run only
                                                         once the run re-checked its photo); `cursor`
                                                         asks for the next (null: done)
    {"type": "continueAccepted", "runId", "segment", "budgets", "via"}
                                                         to continueRun (the client is subscribed; the
                                                         run's `run_continued` event follows)
    {"type": "error", "code", "message", "action"?}      to anything malformed or refused
Every message we send fits one frame (MAX_EVENT_BYTES, under API Gateway's 128 KB): a terminal event
carries the chain, its evidence and a bounded graph summary (`graph.truncated` counts what it left
out); the whole graph is read with getGraph, page by page.
A connection may use a run it started; any connection holding the run's token may too (so a client
that reconnects keeps access). A holder of its share token may only watch and read it (subscribe,
getRun, getGraph: lifecycle/run_sharing.py). An unknown run and another client's run get the same
`run_not_found`, so run ids cannot be probed.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from visual_degrees.constants import MAX_EVENT_BYTES, MAX_MESSAGE_BYTES
from visual_degrees.domain.errors import VisualDegreesError
from visual_degrees.domain.models import Model
from visual_degrees.domain.requests import describe_validation_error

# Stable error codes (clients switch on these; messages are for people).
INVALID_JSON = "invalid_json"
MESSAGE_TOO_LARGE = "message_too_large"
UNKNOWN_ACTION = "unknown_action"
INVALID_MESSAGE = "invalid_message"
INVALID_INPUT = "invalid_input"  # also UnknownPerson's "unknown_person"
RUN_NOT_FOUND = "run_not_found"
TOO_MANY_RUNS = "too_many_runs"
RATE_LIMITED = "rate_limited"
UNAUTHORIZED = "unauthorized"
INTERNAL_ERROR = "internal_error"
# continueRun's refusals (domain/errors.py; above_ceiling is domain/ceilings.py's)
RUN_IN_PROGRESS = "run_in_progress"
NOT_CONTINUABLE = "not_continuable"
READ_ONLY = "read_only"  # a connection a share token opened asked for more than reading its run

ACTIONS = ("startRun", "subscribe", "cancelRun", "getRun", "getGraph", "continueRun")
# Deeper than any message of the protocol (startRun's options.budgets is 3 levels), far below what
# would exhaust the parser's recursion: `[` x 50,000 is 50 KB, well under the size limit.
MAX_JSON_DEPTH = 32
# A JSON string from its opening quote, written so that no character is read twice: the two
# alternatives cannot both match, and a string that never closes runs to the end of the text instead of
# failing (a failing match would be tried again from every later quote: quadratic time).
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"?', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_ONE_KIND = str.maketrans("{}", "[]")


def _nesting(depth: int) -> re.Pattern[str]:
    """Brackets that pair up and nest at most `depth` deep: bounded nesting is a regular language.
    Possessive loops: whether a bracket opens or closes decides each step, so nothing is retried."""
    pattern = ""
    for _ in range(depth):
        pattern = rf"(?:\[{pattern}\])*+"
    return re.compile(pattern)


_NESTING = _nesting(MAX_JSON_DEPTH)
RUN_ID_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
_RUN_ID = Field(min_length=1, max_length=64, pattern=RUN_ID_PATTERN.pattern)
_TOKEN = Field(default=None, min_length=1, max_length=128)


class ProtocolError(VisualDegreesError):
    """A message we refuse, with the stable code the client sees."""

    def __init__(self, code: str, message: str, action: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.action = action

    def reply(self) -> dict[str, Any]:
        return error_reply(self.code, self.message, self.action)


class Message(Model):
    """A client message. Strict: a number is a JSON number, a flag a JSON boolean (`"3"` and `true`
    are no maxHops); nothing is coerced."""

    model_config = ConfigDict(strict=True)


class StartRun(Message):
    action: Literal["startRun"]
    person_a: str = Field(max_length=1000)  # the name rules (<= 200 chars, …) are checked by S0's validator
    person_b: str = Field(max_length=1000)
    options: dict[str, Any] | None = None


class Subscribe(Message):
    action: Literal["subscribe"]
    run_id: str = _RUN_ID
    from_seq: int = Field(default=1, ge=1)
    run_token: str | None = _TOKEN
    share_token: str | None = _TOKEN


class CancelRun(Message):
    action: Literal["cancelRun"]
    run_id: str = _RUN_ID
    run_token: str | None = _TOKEN


class GetRun(Message):
    action: Literal["getRun"]
    run_id: str = _RUN_ID
    run_token: str | None = _TOKEN
    share_token: str | None = _TOKEN


class GetGraph(Message):
    action: Literal["getGraph"]
    run_id: str = _RUN_ID
    run_token: str | None = _TOKEN
    share_token: str | None = _TOKEN
    cursor: str | None = Field(default=None, min_length=1, max_length=2048)


class ContinueRun(Message):
    """Continue a run that stopped on a budget (lifecycle/continuation.py): `budgets` for the new
    segment by wire name (default: the run's own again), `via` a person believed to connect them."""

    action: Literal["continueRun"]
    run_id: str = _RUN_ID
    run_token: str | None = _TOKEN
    budgets: dict[str, Any] | None = None  # validated like startRun's options.budgets
    via: str | None = Field(default=None, max_length=1000)  # the name rules: domain/requests


AnyMessage = StartRun | Subscribe | CancelRun | GetRun | GetGraph | ContinueRun
ClientMessage = Annotated[AnyMessage, Field(discriminator="action")]
_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def parse_message(raw: str | bytes) -> AnyMessage:
    """Parse one frame, or raise ProtocolError with the code that names what is wrong."""
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(MESSAGE_TOO_LARGE, f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    body = _json(raw)
    if not isinstance(body, dict):
        raise ProtocolError(INVALID_MESSAGE, "message must be a JSON object")
    action = body.get("action")
    if action not in ACTIONS:
        shown = action if isinstance(action, str) and len(action) <= 40 else "?"
        raise ProtocolError(UNKNOWN_ACTION, f"unknown action {shown!r}; expected one of {', '.join(ACTIONS)}")
    try:
        return _MESSAGE.validate_python(body)
    except ValidationError as exc:
        raise ProtocolError(INVALID_MESSAGE, describe_validation_error(exc), action) from None


def _json(raw: str | bytes) -> Any:
    """The frame's JSON, refusing nesting deeper than MAX_JSON_DEPTH before the parser recurses."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise ProtocolError(INVALID_JSON, "message is not valid JSON") from None
    if not nests_within_limit(text):
        raise ProtocolError(
            INVALID_JSON, f"message is not valid JSON or nests deeper than {MAX_JSON_DEPTH} levels"
        )
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError(INVALID_JSON, "message is not valid JSON") from None


def nests_within_limit(text: str) -> bool:
    """Do the arrays and objects of `text` nest at most MAX_JSON_DEPTH deep, and pair up (brackets
    inside strings do not count)? False for text that is not JSON either way.

    Linear in the text whatever it holds (issue 17: the regex this replaced took 57 s on 64 KB): the
    strings go in one left-to-right pass, the other characters but brackets in a second, and what is
    left is matched by one pattern that never backtracks (_NESTING)."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return True  # cannot nest too deep: the common case costs two counts
    brackets = _NOT_BRACKETS.sub("", _STRING.sub("", text)).translate(_ONE_KIND)
    return _NESTING.fullmatch(brackets) is not None


def is_run_id(text: object) -> bool:
    """Whether `text` is shaped like a run id (as every message's `runId` must be)."""
    return isinstance(text, str) and RUN_ID_PATTERN.fullmatch(text) is not None


def error_reply(code: str, message: str, action: str | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if action:
        reply["action"] = action
    return reply


# ---- what goes out: every message within one frame -------------------------------------------


def wire_size(value: Any) -> int:
    """Bytes of `value` as it goes on the wire (compact JSON, UTF-8)."""
    return len(encode_json(value).encode("utf-8"))


def encode_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def encode(message: dict[str, Any], limit: int = MAX_EVENT_BYTES) -> str:
    """The frame for `message`, within `limit` bytes (see `fit`)."""
    text = encode_json(message)
    if len(text) * 4 <= limit or len(text.encode("utf-8")) <= limit:
        return text
    return encode_json(fit(message, limit))


def fit(message: dict[str, Any], limit: int = MAX_EVENT_BYTES) -> dict[str, Any]:
    """`message` if it fits in `limit` bytes; else the same message made smaller, saying what it left
    out. An event keeps runId, seq, type and ts (so a client sees no gap) and its data shrunk by
    `compact`; a `run` reply its final event likewise. The stored event is unchanged: `getRun` and
    `getGraph` read the rest."""
    if wire_size(message) <= limit:
        return message
    if "seq" in message and isinstance(message.get("data"), dict):
        room = limit - wire_size({**message, "data": {}})
        return {**message, "data": compact(message["data"], room)}
    if message.get("type") == "run" and isinstance(message.get("final"), dict):
        room = limit - wire_size({**message, "final": {}})
        return {**message, "final": fit(message["final"], room)}
    return error_reply(MESSAGE_TOO_LARGE, "the reply was too large to send")


def compact(data: dict[str, Any], limit: int) -> dict[str, Any]:
    """An event's data within `limit` bytes: the graph summary's people and links go first, then the
    chain's evidence beyond its photo and confidences, then the largest fields; `truncated` lists
    what was shortened or left out."""
    if wire_size(data) <= limit:
        return data
    out, truncated = dict(data), []
    graph = out.get("graph")
    if isinstance(graph, dict):
        out["graph"] = _empty_graph(graph)
        truncated.append("graph")
    edges = out.get("edges")
    if wire_size({**out, "truncated": truncated}) > limit and isinstance(edges, list):
        out["edges"] = [_cited(edge) for edge in edges]
        truncated.append("edges")
    while wire_size({**out, "truncated": truncated}) > limit and out:
        largest = max(out, key=lambda key: wire_size(out[key]))
        del out[largest]
        truncated.append(largest)
    out["truncated"] = sorted(set(truncated))
    return out


def _empty_graph(graph: dict[str, Any]) -> dict[str, Any]:
    found = graph.get("truncated")
    left_out: dict[str, Any] = found if isinstance(found, dict) else {}
    counts = {part: len(graph.get(part) or []) + int(left_out.get(part, 0)) for part in ("nodes", "edges")}
    return {"nodes": [], "edges": [], "truncated": counts}


def _cited(edge: Any) -> Any:
    """A chain link reduced to who, how sure, and the photo that proves it."""
    if not isinstance(edge, dict):
        return edge
    found = edge.get("evidence")
    evidence: dict[str, Any] = found if isinstance(found, dict) else {}
    kept = ("imageUrl", "pageUrl", "event", "confidenceA", "confidenceB")
    return {
        **{k: edge[k] for k in ("from", "to", "confidence") if k in edge},
        "evidence": {k: evidence[k] for k in kept if k in evidence},
    }


def reply_for(exc: BaseException, action: str | None = None) -> dict[str, Any]:
    """The one place exceptions become client errors: ours keep code and message, others say nothing."""
    if isinstance(exc, ProtocolError):
        return exc.reply()
    if isinstance(exc, VisualDegreesError):  # `details`: e.g. unknown_person's suggestions
        return {**exc.details, **error_reply(exc.code, exc.message, action)}
    return error_reply(INTERNAL_ERROR, "something went wrong on our side", action)
