"""The client protocol, shared by the deployed WebSocket API and the local server (docs/web.md).

Client -> server: JSON objects routed on `action` (API Gateway's `$request.body.action`):
    {"action": "startRun", "personA", "personB", "options"?}
    {"action": "subscribe", "runId", "fromSeq"?, "runToken"?}
    {"action": "cancelRun", "runId", "runToken"?}
    {"action": "getRun", "runId", "runToken"?}
Server -> client: run events as stored (`{"runId", "seq", "type", "ts", "data"}`, recognisable by
`seq`), and replies without `seq`:
    {"type": "runAccepted", "runId", "runToken"}        to startRun (the client is subscribed)
    {"type": "subscribed", "runId", "fromSeq"}           to subscribe (replay follows, then live)
    {"type": "cancelRequested", "runId"}                 to cancelRun
    {"type": "run", "runId", "status", "personA", "personB", "lastSeq",
     "executionStatus", "cancelRequested", "final"}     to getRun
    {"type": "error", "code", "message", "action"?}      to anything malformed or refused
A connection may use a run it started; any connection holding the run's token may too (so a client
that reconnects keeps access). An unknown run and another client's run get the same `run_not_found`,
so run ids cannot be probed.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, ValidationError

from visual_degrees.constants import MAX_MESSAGE_BYTES
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

ACTIONS = ("startRun", "subscribe", "cancelRun", "getRun")
_RUN_ID = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
_TOKEN = Field(default=None, min_length=1, max_length=128)


class ProtocolError(VisualDegreesError):
    """A message we refuse, with the stable code the client sees."""

    def __init__(self, code: str, message: str, action: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.action = action

    def reply(self) -> dict[str, Any]:
        return error_reply(self.code, self.message, self.action)


class StartRun(Model):
    action: Literal["startRun"]
    person_a: str = Field(max_length=1000)  # the name rules (<= 200 chars, …) are checked by S0's validator
    person_b: str = Field(max_length=1000)
    options: dict[str, Any] | None = None


class Subscribe(Model):
    action: Literal["subscribe"]
    run_id: str = _RUN_ID
    from_seq: int = Field(default=1, ge=1)
    run_token: str | None = _TOKEN


class CancelRun(Model):
    action: Literal["cancelRun"]
    run_id: str = _RUN_ID
    run_token: str | None = _TOKEN


class GetRun(Model):
    action: Literal["getRun"]
    run_id: str = _RUN_ID
    run_token: str | None = _TOKEN


ClientMessage = Annotated[StartRun | Subscribe | CancelRun | GetRun, Field(discriminator="action")]
_MESSAGE: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)


def parse_message(raw: str | bytes) -> StartRun | Subscribe | CancelRun | GetRun:
    """Parse one frame, or raise ProtocolError with the code that names what is wrong."""
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(MESSAGE_TOO_LARGE, f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(INVALID_JSON, "message is not valid JSON") from None
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


def error_reply(code: str, message: str, action: str | None = None) -> dict[str, Any]:
    reply: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if action:
        reply["action"] = action
    return reply


def reply_for(exc: BaseException, action: str | None = None) -> dict[str, Any]:
    """The one place exceptions become client errors: ours keep code and message, others say nothing."""
    if isinstance(exc, ProtocolError):
        return exc.reply()
    if isinstance(exc, VisualDegreesError):  # `details`: e.g. unknown_person's suggestions
        return {**exc.details, **error_reply(exc.code, exc.message, action)}
    return error_reply(INTERNAL_ERROR, "something went wrong on our side", action)
