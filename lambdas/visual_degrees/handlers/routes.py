"""The one factory behind the WebSocket route handlers, and the one dispatch they share.

API Gateway invokes a route's function with a WebSocket proxy event; no route response is configured,
so every answer goes back with PostToConnection and the function returns 200. Exceptions become client
errors in one place (`client_view`, then `protocol.reply_for`): a refusal of the request keeps its
stable code and message, a busy dependency its code, anything else is an `internal_error` that says
nothing more (the reason goes to the operators' log, a traceback only for what is a bug).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from aws_lambda_powertools.utilities.parser.models import APIGatewayWebSocketEventRequestContextBase
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from visual_degrees.constants import WEBSOCKET_ROUTES
from visual_degrees.domain.errors import InvalidInput, RunNotFound, TransientProviderError, VisualDegreesError
from visual_degrees.handlers.observability import Handler, instrumented, logger
from visual_degrees.handlers.wiring import AwsRuntime, current_runtime
from visual_degrees.lifecycle.runs_api import Caller
from visual_degrees.protocol import (
    INVALID_JSON,
    UNAUTHORIZED,
    UNKNOWN_ACTION,
    ProtocolError,
    parse_message,
    reply_for,
)

CONNECT, DISCONNECT = "$connect", "$disconnect"
CLIENT_FACING = (ProtocolError, InvalidInput, RunNotFound)  # about the request itself: safe to say


class RequestContext(APIGatewayWebSocketEventRequestContextBase):
    """Powertools' WebSocket request context, with what every route reads besides: its route, its
    kind of event, and the client id the $connect authorizer put there."""

    route_key: str = Field(alias="routeKey")
    event_type: str | None = Field(default=None, alias="eventType")
    authorizer: dict[str, Any] | None = None


class WebSocketRequest(BaseModel):
    """An API Gateway WebSocket proxy event ($connect, $disconnect or a message), as a route reads it."""

    model_config = ConfigDict(populate_by_name=True)

    request_context: RequestContext = Field(alias="requestContext")
    body: str | None = None
    is_base64_encoded: bool = Field(default=False, alias="isBase64Encoded")

    @property
    def connection_id(self) -> str:
        return self.request_context.connection_id

    @property
    def client_id(self) -> str | None:
        value = (self.request_context.authorizer or {}).get("clientId")
        return value if isinstance(value, str) and value else None

    def frame(self) -> str | bytes:
        text = self.body or ""
        if not self.is_base64_encoded:
            return text
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise ProtocolError(INVALID_JSON, "message is not valid JSON") from None


def _status(code: int) -> dict[str, Any]:
    return {"statusCode": code}


def route_handler(route_key: str) -> Handler:
    """The Lambda handler of `route_key` (a key of constants.WEBSOCKET_ROUTES)."""
    if route_key not in WEBSOCKET_ROUTES:
        raise KeyError(f"unknown route {route_key!r}")

    @instrumented
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return handle(route_key, event, current_runtime())

    handler.route_key = route_key  # type: ignore[attr-defined]
    return handler


def handle(route_key: str, event: dict[str, Any], runtime: AwsRuntime) -> dict[str, Any]:
    try:
        request = WebSocketRequest.model_validate(event)
    except ValidationError:
        logger.warning("not a WebSocket event", extra={"routeKey": route_key})
        return _status(400)
    logger.append_keys(routeKey=route_key, connectionId=request.connection_id, clientId=request.client_id)
    if route_key == CONNECT:
        return _connect(request, runtime)
    if route_key == DISCONNECT:
        return _disconnect(request, runtime)
    return _message(route_key, request, runtime)


def _connect(request: WebSocketRequest, runtime: AwsRuntime) -> dict[str, Any]:
    """The authorizer let the client in; remember whose connection this is. $connect cannot push."""
    if request.client_id is None:
        logger.warning("connect without an authorized client")
        return _status(403)
    try:
        runtime.connections.open(request.connection_id, request.client_id)
    except Exception as exc:
        _log_failure("connect failed", exc, None)
        return _status(500)
    logger.info("connected")
    return _status(200)


def _disconnect(request: WebSocketRequest, runtime: AwsRuntime) -> dict[str, Any]:
    """Forget the connection and its subscriptions; its runs go on (a run token brings a client back)."""
    try:
        dropped = runtime.connections.close(request.connection_id)
    except Exception as exc:  # the items expire with their TTL anyway
        _log_failure("disconnect cleanup failed", exc, None)
        return _status(200)
    logger.info("disconnected", extra={"items": dropped})
    return _status(200)


def _message(route_key: str, request: WebSocketRequest, runtime: AwsRuntime) -> dict[str, Any]:
    action: str | None = None
    try:
        message = parse_message(request.frame())
        action = message.action
        if action != route_key:  # API Gateway routes on `action`: only $default sees a mismatch
            raise ProtocolError(UNKNOWN_ACTION, f"action {action!r} is not served here", action)
        runtime.runs_api.handle(Caller(request.connection_id, _client_of(request, runtime)), message)
    except Exception as exc:
        _log_failure("request refused", exc, action)
        _reply(runtime, request.connection_id, reply_for(client_view(exc), action))
        return _status(200)
    logger.info("request served", extra={"action": action})
    return _status(200)


def _client_of(request: WebSocketRequest, runtime: AwsRuntime) -> str:
    """The authorizer's client id (API Gateway passes it to every route), else the connection's record."""
    client_id = request.client_id or runtime.connections.client_of(request.connection_id)
    if client_id is None:
        raise ProtocolError(UNAUTHORIZED, "this connection is not signed in; reconnect with a token")
    return client_id


def _reply(runtime: AwsRuntime, connection_id: str, reply: dict[str, Any]) -> None:
    try:
        runtime.pusher.send(connection_id, reply)
    except Exception as exc:
        _log_failure("error reply not sent", exc, None)


def client_view(exc: BaseException) -> BaseException:
    """What a client may learn of `exc`. Refusals of its request keep code and message; a busy
    dependency keeps its code with a message of ours (AWS messages name accounts, roles and tables);
    anything else becomes an internal error that says nothing."""
    if isinstance(exc, CLIENT_FACING):
        return exc
    if isinstance(exc, TransientProviderError):
        return ProtocolError(exc.code, "a service the run depends on is busy; try again shortly")
    return RuntimeError()


def _log_failure(what: str, exc: BaseException, action: str | None) -> None:
    """Refusals of bad requests are news, not errors: code only. Our own failures: code and message
    (for operators). Anything else is a bug: traceback."""
    fields = {"action": action, "errorType": type(exc).__name__}
    if isinstance(exc, CLIENT_FACING):
        logger.info(what, extra={**fields, "code": exc.code})
    elif isinstance(exc, VisualDegreesError):
        logger.error(what, extra={**fields, "code": exc.code, "reason": exc.message})
    else:
        logger.exception(what, extra=fields)
