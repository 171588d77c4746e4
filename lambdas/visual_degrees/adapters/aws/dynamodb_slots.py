"""Rate-limiter slots in the run-memory table, shared by every Lambda of a deployment (the SlotStore
of adapters/rate_limiter.py).

One item per queue (`limiter#<queue>` / `slots`) holds `nextAt`, the epoch time of the queue's next
free slot, and is moved only by conditional updates, so concurrent callers on any machine each take
a different slot and nobody reads first:
- the queue is busy (`now <= nextAt <= latest + ahead`): `SET nextAt = nextAt + interval`, the
  slot is the old `nextAt` less `ahead` (a burst), not before now;
- the queue is idle (no item, or `nextAt < now`): `SET nextAt = now + interval`, the slot is now;
- `nextAt > latest + ahead`: nothing is taken (the refused update's old item says so).
A grant costs one write (two when the first guess of busy or idle was wrong); see docs/operators.md.
Items expire an hour after their last use (TTL), so queues of clients long gone disappear.
"""

from __future__ import annotations

import math
import threading
from typing import Any

from botocore.exceptions import ClientError

from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.adapters.aws.errors import domain_error, error_code
from visual_degrees.constants import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE
from visual_degrees.domain.errors import TransientProviderError

MAX_ATTEMPTS = 8  # rounds lost to other callers before contention is reported
KEEP_SECONDS = 3600  # a queue's item lives this long after its last slot was taken
_NEXT = "nextAt"
_BUSY = "#next BETWEEN :now AND :latest"
_IDLE = "attribute_not_exists(#next) OR #next < :now"


class DynamoDbSlots:
    def __init__(self, table_name: str, *, client: Any | None = None) -> None:
        self._table = table_name
        self._clients = LazyClient("dynamodb", client, retries={"mode": "standard", "max_attempts": 5})
        self._seen: dict[str, float] = {}  # each queue's nextAt as last seen: the first guess
        self._lock = threading.Lock()

    def take(self, key: str, interval: float, now: float, latest: float, ahead: float = 0.0) -> float | None:
        with self._lock:
            busy = self._seen.get(key, 0.0) >= now
        for _ in range(MAX_ATTEMPTS):
            try:
                if busy:
                    due = self._busy_slot(key, interval, now, latest + ahead)
                    slot = max(due - ahead, now)
                else:
                    slot = due = self._idle_slot(key, interval, now)
            except ClientError as err:
                if error_code(err) != "ConditionalCheckFailedException":
                    raise domain_error(err, "DynamoDB", "update_item") from None
                seen = _next_at(err.response.get("Item"))
                self._remember(key, seen or 0.0)
                if seen is not None and seen > latest + ahead:
                    return None
                busy = seen is not None and seen >= now
                continue
            self._remember(key, due + interval)
            return slot
        raise TransientProviderError(f"rate-limiter queue {key!r} kept changing under concurrent callers")

    def _busy_slot(self, key: str, interval: float, now: float, latest: float) -> float:
        reply = self._update(
            key,
            "SET #next = #next + :interval, #exp = :exp",
            _BUSY,
            {":interval": interval, ":now": now, ":latest": latest, ":exp": math.ceil(now + KEEP_SECONDS)},
            returned="UPDATED_OLD",
        )
        return float(reply["Attributes"][_NEXT]["N"])

    def _idle_slot(self, key: str, interval: float, now: float) -> float:
        self._update(
            key,
            "SET #next = :next, #exp = :exp",
            _IDLE,
            {":next": now + interval, ":now": now, ":exp": math.ceil(now + KEEP_SECONDS)},
        )
        return now

    def _update(
        self, key: str, update: str, condition: str, values: dict[str, float], returned: str = "NONE"
    ) -> dict[str, Any]:
        try:
            reply: dict[str, Any] = self._clients.get().update_item(
                TableName=self._table,
                Key={PARTITION_KEY: {"S": f"limiter#{key}"}, SORT_KEY: {"S": "slots"}},
                UpdateExpression=update,
                ConditionExpression=condition,
                ExpressionAttributeNames={"#next": _NEXT, "#exp": TTL_ATTRIBUTE},
                ExpressionAttributeValues={name: {"N": _number(v)} for name, v in values.items()},
                ReturnValues=returned,
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ClientError:
            raise  # the caller tells a refused condition from a failure
        except Exception as err:  # no credentials, no region, a lost connection
            raise domain_error(err, "DynamoDB", "update_item") from None
        return reply

    def _remember(self, key: str, next_at: float) -> None:
        with self._lock:
            if len(self._seen) > 1024:  # clients come and go
                self._seen.clear()
            self._seen[key] = next_at


def _next_at(item: dict[str, Any] | None) -> float | None:
    raw = (item or {}).get(_NEXT)
    return float(raw["N"]) if raw else None


def _number(value: float) -> str:
    """Times to the microsecond; the TTL in whole seconds, as DynamoDB's TTL reads it."""
    return str(value) if isinstance(value, int) else f"{value:.6f}"
