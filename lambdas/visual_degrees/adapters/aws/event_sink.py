"""Pushing to WebSocket clients through API Gateway's management API (PostToConnection).

`ConnectionPusher` sends one message to one connection; a 410 Gone means the client left, so the
connection's items are dropped (its runs go on). `ApiGatewayEventSink` is the EventSink port: a
stored event goes to every connection the `connectionsByRun` index lists for its run.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from visual_degrees import protocol
from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.adapters.aws.errors import error_code
from visual_degrees.constants import MAX_EVENT_BYTES
from visual_degrees.domain.errors import ConfigurationError, VisualDegreesError
from visual_degrees.domain.models import RunEvent

log = logging.getLogger(__name__)

# A push is on a step's critical path: fail fast, let the client catch up with subscribe/fromSeq.
CLIENT_CONFIG: dict[str, Any] = {
    "connect_timeout": 2,
    "read_timeout": 5,
    "retries": {"mode": "standard", "max_attempts": 3},
}
_GONE = {"GoneException"}
_TOO_LARGE = {"PayloadTooLargeException"}
FALLBACK_BYTES = 8 * 1024  # a message API Gateway refused for its size is sent again within this


class ConnectionRegistry(Protocol):
    def listeners(self, run_id: str) -> list[str]: ...
    def close(self, connection_id: str) -> int: ...


def encode(message: Mapping[str, Any], limit: int = MAX_EVENT_BYTES) -> bytes:
    """The frame for `message`, within `limit` bytes: a larger one is shrunk, saying so (protocol.fit)."""
    return protocol.encode(dict(message), limit).encode("utf-8")


class ConnectionPusher:
    """PostToConnection on the stage at `endpoint` (https://…/<stage>, VD_WEBSOCKET_ENDPOINT)."""

    def __init__(
        self,
        endpoint: str | None,
        connections: ConnectionRegistry | None,
        *,
        client: Any | None = None,
    ) -> None:
        """`connections` None: a function without run memory (the $default route) cannot drop a gone
        connection; its items then expire with their TTL."""
        self._endpoint = endpoint
        self._connections = connections
        self._clients = LazyClient("apigatewaymanagementapi", client, endpoint_url=endpoint, **CLIENT_CONFIG)

    @property
    def client(self) -> Any:
        if not self._clients.built and not self._endpoint:
            raise ConfigurationError("this function cannot push (VD_WEBSOCKET_ENDPOINT is not set)")
        return self._clients.get()

    def send(self, connection_id: str, message: Mapping[str, Any]) -> bool:
        """Deliver `message`; False if the connection is gone (and now forgotten) or could not be
        reached. Never raises for a vanished or failing listener."""
        try:
            self.client.post_to_connection(ConnectionId=connection_id, Data=encode(message))
            return True
        except ClientError as err:
            code = error_code(err)
            if code in _GONE:
                self.forget(connection_id)
            elif code in _TOO_LARGE:
                # Never lose a message (an ending least of all) to its size: send it small, saying what
                # it left out; the client reads the rest with getRun / getGraph.
                log.warning("push too large; sent shortened", extra={"connectionId": connection_id})
                return self._post(connection_id, encode(message, FALLBACK_BYTES))
            else:
                log.warning("push failed", extra={"connectionId": connection_id, "errorCode": code})
        except BotoCoreError as err:
            log.warning("push failed", extra={"connectionId": connection_id, "errorCode": type(err).__name__})
        return False

    def _post(self, connection_id: str, data: bytes) -> bool:
        try:
            self.client.post_to_connection(ConnectionId=connection_id, Data=data)
            return True
        except (ClientError, BotoCoreError) as err:
            code = error_code(err) if isinstance(err, ClientError) else type(err).__name__
            log.warning("push failed", extra={"connectionId": connection_id, "errorCode": code})
            return False

    def forget(self, connection_id: str) -> None:
        if self._connections is None:
            log.info("connection gone", extra={"connectionId": connection_id})
            return
        try:
            dropped = self._connections.close(connection_id)
        except VisualDegreesError as exc:  # the items expire with their TTL anyway
            log.warning(
                "could not drop a gone connection", extra={"connectionId": connection_id, "code": exc.code}
            )
            return
        log.info("connection gone; dropped", extra={"connectionId": connection_id, "items": dropped})


class ApiGatewayEventSink:
    """The EventSink port: every connection subscribed to the event's run gets it."""

    def __init__(self, connections: ConnectionRegistry, pusher: ConnectionPusher) -> None:
        self._connections = connections
        self._pusher = pusher

    def deliver(self, event: RunEvent) -> None:
        try:
            listeners = self._connections.listeners(event.run_id)
        except VisualDegreesError as exc:  # the event is stored; subscribe with fromSeq replays it
            log.warning(
                "listeners unknown; event not pushed", extra={"runId": event.run_id, "code": exc.code}
            )
            return
        message = event.dump()
        for connection_id in listeners:
            self._pusher.send(connection_id, message)
