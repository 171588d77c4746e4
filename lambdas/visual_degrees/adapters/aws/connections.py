"""WebSocket connections and their subscriptions, in the run-memory table.

Layout (infra/constructs/run_memory_table.py):
  conn#<connectionId> / meta        data {clientId, connectedAt}; TTL connect + 2 h 10 min
  conn#<connectionId> / sub#<runId> top-level SUBSCRIBED_RUN_ATTRIBUTE = runId (the sparse index);
                                    TTL the run's
A subscription needs that top-level attribute, which the Memory port cannot write, hence this
adapter over the low-level client. Everything of one connection shares its partition, so dropping a
connection (on $disconnect or a 410 Gone) is one query and a delete per item; its runs go on.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.adapters.aws.errors import domain_error
from visual_degrees.constants import (
    CONNECTIONS_BY_RUN_INDEX,
    DATA_ATTRIBUTE,
    PARTITION_KEY,
    SORT_KEY,
    SUBSCRIBED_RUN_ATTRIBUTE,
    TTL_ATTRIBUTE,
)

# API Gateway closes every connection after 2 hours; the margin outlives the $disconnect that follows.
CONNECTION_TTL_SECONDS = 2 * 3600 + 10 * 60
RETRY_CONFIG = {"mode": "standard", "max_attempts": 5}
_META = "meta"
_SUB = "sub#"


def connection_pk(connection_id: str) -> str:
    return f"conn#{connection_id}"


class DynamoDbConnections:
    def __init__(
        self, table_name: str, *, client: Any | None = None, now: Callable[[], float] = time.time
    ) -> None:
        self._table = table_name
        self._clients = LazyClient("dynamodb", client, retries=RETRY_CONFIG)
        self._now = now

    @property
    def client(self) -> Any:
        return self._clients.get()

    # ---- connections ------------------------------------------------------------------------

    def open(self, connection_id: str, client_id: str) -> None:
        now = self._now()
        data = {"clientId": client_id, "connectedAt": now}
        self._put(connection_id, _META, data, now + CONNECTION_TTL_SECONDS)

    def client_of(self, connection_id: str) -> str | None:
        """The client a live connection belongs to (None once it is gone or expired)."""
        reply = self._call(
            "get_item",
            TableName=self._table,
            Key=_key(connection_pk(connection_id), _META),
            ConsistentRead=True,
        )
        item = reply.get("Item")
        if not item or _expired(item, self._now()):
            return None
        client_id = json.loads(item.get(DATA_ATTRIBUTE, {}).get("S", "{}")).get("clientId")
        return client_id if isinstance(client_id, str) else None

    def close(self, connection_id: str) -> int:
        """Delete everything of the connection (meta and subscriptions); how many items went."""
        pk = connection_pk(connection_id)
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "#pk = :pk",
            "ExpressionAttributeNames": {"#pk": PARTITION_KEY, "#sk": SORT_KEY},
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ProjectionExpression": "#pk, #sk",
            "ConsistentRead": True,
        }
        deleted = 0
        while True:
            page = self._call("query", **request)
            for item in page.get("Items", []):
                self._call("delete_item", TableName=self._table, Key=_key(pk, item[SORT_KEY]["S"]))
                deleted += 1
            if "LastEvaluatedKey" not in page:
                return deleted
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # ---- subscriptions ----------------------------------------------------------------------

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None:
        now = self._now()
        self._put(connection_id, _SUB + run_id, {}, now + ttl_seconds, {SUBSCRIBED_RUN_ATTRIBUTE: run_id})

    def listeners(self, run_id: str) -> list[str]:
        """Connection ids subscribed to `run_id`, from the sparse index (eventually consistent)."""
        request: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": CONNECTIONS_BY_RUN_INDEX,
            "KeyConditionExpression": "#run = :run",
            "ExpressionAttributeNames": {"#run": SUBSCRIBED_RUN_ATTRIBUTE},
            "ExpressionAttributeValues": {":run": {"S": run_id}},
        }
        found: list[str] = []
        while True:
            page = self._call("query", **request)
            prefix = connection_pk("")
            found += [i[PARTITION_KEY]["S"].removeprefix(prefix) for i in page.get("Items", [])]
            if "LastEvaluatedKey" not in page:
                return found
            request["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # ---- requests ---------------------------------------------------------------------------

    def _put(
        self,
        connection_id: str,
        sk: str,
        data: dict[str, Any],
        expires_at: float,
        extra: dict[str, str] | None = None,
    ) -> None:
        item: dict[str, Any] = {
            **_key(connection_pk(connection_id), sk),
            DATA_ATTRIBUTE: {"S": json.dumps(data, separators=(",", ":"))},
            TTL_ATTRIBUTE: {"N": str(math.ceil(expires_at))},
        }
        for name, value in (extra or {}).items():
            item[name] = {"S": value}
        self._call("put_item", TableName=self._table, Item=item)

    def _call(self, operation: str, **request: Any) -> dict[str, Any]:
        try:
            reply: dict[str, Any] = getattr(self.client, operation)(**request)
            return reply
        except (ClientError, BotoCoreError) as err:
            raise domain_error(err, "DynamoDB", operation) from None


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {PARTITION_KEY: {"S": pk}, SORT_KEY: {"S": sk}}


def _expired(item: dict[str, Any], now: float) -> bool:
    expires = item.get(TTL_ATTRIBUTE)
    return expires is not None and float(expires["N"]) <= now
