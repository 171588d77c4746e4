"""Run memory in one DynamoDB table (`pk`/`sk`, TTL on `expiresAt`): the AWS adapter of the Memory port.

Layout of an item: the keys, `data` (the JSON document as one string: no Decimal conversion, honest
size accounting), one top-level number `n_<name>` per counter (so ADD is atomic) and `expiresAt`
(epoch seconds; absent = never). DynamoDB deletes expired items lazily (within days), so every read
and every condition treats `expiresAt <= now` as absent, as `memory_rules` says.

Writes are optimistic: one conditional request for the common case (the item is absent or live);
when the condition refuses, the old item (ReturnValuesOnConditionCheckFailure=ALL_OLD) tells a
genuine refusal from an expired item that must be replaced whole, and the write is retried against
what it found. Transactions read a consistent snapshot first, decide refusals on it with the same
rules as SQLite, and pin that snapshot with their conditions; a snapshot that moved is re-read.
"""

from __future__ import annotations

import math
import random
import re
import time
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError

from visual_degrees.adapters import memory_rules as rules
from visual_degrees.adapters.aws.clients import LazyClient
from visual_degrees.constants import (
    COUNTERS_ATTRIBUTE_PREFIX,
    DATA_ATTRIBUTE,
    PARTITION_KEY,
    SORT_KEY,
    TTL_ATTRIBUTE,
)
from visual_degrees.domain.errors import (
    ConditionFailed,
    ConfigurationError,
    ProviderError,
    TransientProviderError,
    VisualDegreesError,
)
from visual_degrees.ports import Increment, Item, Put, Write

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
else:
    DynamoDBClient = Any

MAX_ATTEMPTS = 8  # optimistic rounds before contention is reported
RETRY_CONFIG = {"mode": "standard", "max_attempts": 5}  # throttling and 5xx retries are botocore's job

_NAMES = {"#pk": PARTITION_KEY, "#sk": SORT_KEY, "#exp": TTL_ATTRIBUTE}
_EXPRESSIONS = (
    "ConditionExpression",
    "UpdateExpression",
    "KeyConditionExpression",
    "FilterExpression",
    "ProjectionExpression",
)
_ABSENT_OR_EXPIRED = "attribute_not_exists(#pk) OR #exp <= :now"
_ABSENT_OR_LIVE = "attribute_not_exists(#exp) OR #exp > :now"
_LIVE = "attribute_exists(#pk) AND (attribute_not_exists(#exp) OR #exp > :now)"

_CONDITION_FAILED = "ConditionalCheckFailedException"
_CANCELLED = "TransactionCanceledException"
_TRANSIENT = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
    "TransactionConflictException",
    "TransactionInProgressException",
    "LimitExceededException",
}
_CONFIGURATION = {
    "ResourceNotFoundException",
    "AccessDeniedException",
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "ExpiredTokenException",
    "MissingAuthenticationTokenException",
}
_RACE_REASONS = {"ConditionalCheckFailed", "TransactionConflict"}
_TRANSIENT_REASONS = {"ProvisionedThroughputExceeded", "ThrottlingError", "TransactionConflict"}


class DynamoDbMemory:
    """The Memory port over DynamoDB's low-level client. `client` defaults to boto3's, built lazily."""

    def __init__(
        self,
        table_name: str,
        *,
        client: DynamoDBClient | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self._table = table_name
        self._clients = LazyClient("dynamodb", client, retries=RETRY_CONFIG)
        self._now = now

    @property
    def client(self) -> DynamoDBClient:
        client: DynamoDBClient = self._clients.get()
        return client

    # ---- reads ------------------------------------------------------------------------------

    def get(self, pk: str, sk: str) -> Item | None:
        rules.check_key(pk, sk)
        now = self._now()
        reply = self._call("get_item", TableName=self._table, Key=_key(pk, sk), ConsistentRead=True)
        return _live(reply.get("Item"), now)

    def query(
        self, pk: str, prefix: str = "", *, after: str | None = None, limit: int | None = None
    ) -> list[Item]:
        rules.check_query(pk, prefix, after, limit)
        if not after:
            after = None
        elif not after.startswith(prefix):
            # DynamoDB refuses a start key outside the key condition; the answer is known anyway.
            if after > prefix:
                return []  # every sk with this prefix sorts before `after`
            after = None  # every sk with this prefix sorts after `after`
        if limit == 0:
            return []
        now = self._now()
        request: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": "#pk = :pk",
            "FilterExpression": _ABSENT_OR_LIVE,
            "ExpressionAttributeNames": dict(_NAMES),
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":now": _number(math.floor(now))},
            "ConsistentRead": True,
        }
        if prefix:
            request["KeyConditionExpression"] += " AND begins_with(#sk, :prefix)"
            request["ExpressionAttributeValues"][":prefix"] = {"S": prefix}
        start = None if after is None else _key(pk, after)
        items: list[Item] = []
        while True:
            if start is not None:
                request["ExclusiveStartKey"] = start
            if limit is not None:
                # Limit counts items read before the filter hides expired ones: ask for what is missing.
                request["Limit"] = limit - len(items)
            page = self._call("query", **request)
            items.extend(_item(raw) for raw in page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if start is None or (limit is not None and len(items) >= limit):
                return items

    # ---- writes -----------------------------------------------------------------------------

    def put(self, put: Put) -> bool:
        rules.check_write(put)
        text = rules.encode_data(put.pk, put.sk, put.data)
        for _ in range(MAX_ATTEMPTS):
            now = self._now()
            fresh = self._put_request(
                Item(put.pk, put.sk, put.data, {}, rules.expiry(now, put.ttl_seconds)), text
            )
            if put.if_absent:
                try:
                    self._call("put_item", **fresh, **_condition(_ABSENT_OR_EXPIRED, now))
                except ClientError:
                    return False  # only a condition failure reaches here: a live item is there
                return True
            try:
                # Absent or live: replace data and TTL in place, keeping the live item's counters.
                self._call("update_item", **self._set_data(put, text, now, _ABSENT_OR_LIVE))
                return True
            except ClientError:
                pass  # the item is there but expired: its counters must go, so replace it whole
            try:
                self._call("put_item", **fresh, **_condition(_ABSENT_OR_EXPIRED, now))
                return True
            except ClientError:
                continue  # someone revived it in between: it is live now, update it in place
        raise TransientProviderError(f"put ({put.pk!r}, {put.sk!r}) kept losing to concurrent writers")

    def put_all(self, puts: Sequence[Put]) -> None:
        """BatchWriteItem, MAX_BATCH_WRITES a request; the part DynamoDB leaves unprocessed (its
        throttling, which botocore does not retry inside a batch) is sent again, backing off."""
        puts = rules.check_batch(puts)
        now = self._now()
        items = [Item(p.pk, p.sk, p.data, {}, rules.expiry(now, p.ttl_seconds)) for p in puts]
        requests = [{"PutRequest": {"Item": self._put_request(item)["Item"]}} for item in items]
        for start in range(0, len(requests), rules.MAX_BATCH_WRITES):
            batch = requests[start : start + rules.MAX_BATCH_WRITES]
            for attempt in range(MAX_ATTEMPTS):
                reply = self._call("batch_write_item", RequestItems={self._table: batch})
                batch = reply.get("UnprocessedItems", {}).get(self._table) or []
                if not batch:
                    break
                time.sleep(random.uniform(0, 0.005 * 2**attempt))
            else:
                raise TransientProviderError(
                    f"DynamoDB batch_write_item on {self._table} kept returning unprocessed items"
                )

    def increment(self, inc: Increment) -> int | None:
        rules.check_write(inc)
        for _ in range(MAX_ATTEMPTS):
            now = self._now()
            try:
                # UPDATED_NEW omits a counter that ADD 0 left unchanged; only then fetch the whole item.
                returned = "UPDATED_NEW" if inc.amount else "ALL_NEW"
                reply = self._call("update_item", **self._add(inc, now), ReturnValues=returned)
                return int(reply["Attributes"][_counter(inc.name)]["N"])
            except ClientError as err:
                live = _live(err.response.get("Item"), now)
            if live is not None:
                current = live.counters.get(inc.name, 0)
                if rules.next_count(current, inc) is None:
                    return None
                continue  # the counter moved between the update and the failure report
            created = rules.apply(inc, None, now)
            if created is None:
                return None  # refused even from 0 on a fresh item
            try:
                self._call("put_item", **self._put_request(created), **_condition(_ABSENT_OR_EXPIRED, now))
                return created.counters[inc.name]
            except ClientError:
                continue  # created by someone else meanwhile: increment theirs
        raise TransientProviderError(
            f"increment of {inc.name!r} on ({inc.pk!r}, {inc.sk!r}) kept losing to concurrent writers"
        )

    def transact(self, writes: Sequence[Write]) -> None:
        writes = rules.check_transaction(writes)
        texts = [rules.encode_data(w.pk, w.sk, w.data) if isinstance(w, Put) else "" for w in writes]
        if not writes:
            return
        lost_at = 0
        for attempt in range(MAX_ATTEMPTS):
            now = self._now()
            actions: list[dict[str, Any]] = []
            for index, (write, raw) in enumerate(zip(writes, self._snapshot(writes), strict=True)):
                live = _live(raw, now)
                result = rules.apply(write, live, now)
                if result is None:
                    raise ConditionFailed(rules.refusal(index, write), index=index)
                actions.append(self._action(write, texts[index], live, result, now))
            try:
                # The token makes botocore's own retries of this request idempotent (10 minutes).
                self._call(
                    "transact_write_items", TransactItems=actions, ClientRequestToken=str(uuid.uuid4())
                )
                return
            except ClientError as err:
                lost_at = self._cancelled_at(err)
            time.sleep(random.uniform(0, 0.005 * 2**attempt))  # let the other writer finish
        raise ConditionFailed(
            f"transaction kept losing to concurrent writers (last at write {lost_at})", index=lost_at
        )

    def delete(self, pk: str, sk: str) -> None:
        rules.check_key(pk, sk)
        self._call("delete_item", TableName=self._table, Key=_key(pk, sk))

    # ---- requests ---------------------------------------------------------------------------

    def _put_request(self, item: Item, text: str | None = None) -> dict[str, Any]:
        raw: dict[str, Any] = _key(item.pk, item.sk)
        raw[DATA_ATTRIBUTE] = {
            "S": text if text is not None else rules.encode_data(item.pk, item.sk, item.data)
        }
        for name, value in item.counters.items():
            raw[_counter(name)] = _number(value)
        if item.expires_at is not None:
            raw[TTL_ATTRIBUTE] = _number(int(item.expires_at))
        return {"TableName": self._table, "Item": raw}

    def _set_data(self, put: Put, text: str, now: float, condition: str) -> dict[str, Any]:
        request = {"TableName": self._table, "Key": _key(put.pk, put.sk), **_condition(condition, now)}
        request["ExpressionAttributeNames"]["#data"] = DATA_ATTRIBUTE
        request["ExpressionAttributeValues"][":data"] = {"S": text}
        expires_at = rules.expiry(now, put.ttl_seconds)
        if expires_at is None:
            request["UpdateExpression"] = "SET #data = :data REMOVE #exp"
        else:
            request["UpdateExpression"] = "SET #data = :data, #exp = :exp"
            request["ExpressionAttributeValues"][":exp"] = _number(expires_at)
        return request

    def _add(self, inc: Increment, now: float) -> dict[str, Any]:
        """ADD to a live item's counter, guarded by the increment's own conditions."""
        parts = [f"({_LIVE})"]
        values: dict[str, Any] = {":amount": _number(inc.amount)}
        if inc.expect is not None:
            values[":expect"] = _number(inc.expect)
            parts.append("(attribute_not_exists(#n) OR #n = :expect)" if inc.expect == 0 else "#n = :expect")
        if inc.ceiling is not None:
            # result <= ceiling  <=>  current <= ceiling - amount; a missing counter is 0.
            headroom = inc.ceiling - inc.amount
            values[":headroom"] = _number(headroom)
            parts.append(
                "(attribute_not_exists(#n) OR #n <= :headroom)" if headroom >= 0 else "#n <= :headroom"
            )
        request = {
            "TableName": self._table,
            "Key": _key(inc.pk, inc.sk),
            "UpdateExpression": "ADD #n :amount",
            **_condition(" AND ".join(parts), now),
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        request["ExpressionAttributeNames"]["#n"] = _counter(inc.name)
        request["ExpressionAttributeValues"].update(values)
        return request

    def _action(self, write: Write, text: str, live: Item | None, result: Item, now: float) -> dict[str, Any]:
        """One TransactWriteItems entry whose condition pins the snapshot the refusal check used."""
        if live is None:
            put = {**self._put_request(result, text or None), **_condition(_ABSENT_OR_EXPIRED, now)}
            return {"Put": _pruned(put)}
        if isinstance(write, Put):
            return {"Update": _pruned(self._set_data(write, text, now, _ABSENT_OR_LIVE))}
        update = self._add(write, now)
        del update["ReturnValuesOnConditionCheckFailure"]
        return {"Update": _pruned(update)}

    def _snapshot(self, writes: list[Write]) -> list[dict[str, Any] | None]:
        """The targets, read consistently; only what the refusal check needs (never `data`).

        One BatchGetItem rather than TransactGetItems: half the read cost, and the transaction's
        conditions pin each item's state anyway, so the reads need not be one atomic snapshot.
        """
        names = dict(_NAMES)
        counters = sorted({_counter(w.name) for w in writes if isinstance(w, Increment)})
        names.update({f"#n{i}": counter for i, counter in enumerate(counters)})
        keys = [_key(w.pk, w.sk) for w in writes]
        request: dict[str, Any] = {
            "Keys": keys,
            "ConsistentRead": True,
            "ProjectionExpression": ", ".join(names),
            "ExpressionAttributeNames": names,
        }
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for attempt in range(MAX_ATTEMPTS):
            reply = self._call("batch_get_item", RequestItems={self._table: request})
            for raw in reply.get("Responses", {}).get(self._table, []):
                found[(raw[PARTITION_KEY]["S"], raw[SORT_KEY]["S"])] = raw
            unprocessed = reply.get("UnprocessedKeys", {}).get(self._table)
            if not unprocessed:
                return [found.get((w.pk, w.sk)) for w in writes]
            request = unprocessed  # throttled part of the batch: botocore does not retry these
            time.sleep(random.uniform(0, 0.005 * 2**attempt))
        raise TransientProviderError(
            f"DynamoDB batch_get_item on {self._table} kept returning unprocessed keys"
        )

    def _cancelled_at(self, err: ClientError) -> int:
        """The first write a cancelled transaction names; raises unless it lost a race worth retrying."""
        reasons = [reason.get("Code", "None") for reason in err.response.get("CancellationReasons", [])]
        named = [(index, code) for index, code in enumerate(reasons) if code not in ("None", None)]
        if not named:
            raise _mapped(err, "transact_write_items", self._table) from err
        for _, code in named:
            if code not in _RACE_REASONS:
                kind = TransientProviderError if code in _TRANSIENT_REASONS else ProviderError
                raise kind(f"DynamoDB transaction on {self._table} cancelled: {code}") from err
        return named[0][0]

    def _call(self, operation: str, **request: Any) -> dict[str, Any]:
        """One client call; a refused condition stays a ClientError for the caller, the rest is mapped."""
        try:
            reply: dict[str, Any] = getattr(self.client, operation)(**_pruned(request))
            return reply
        except ClientError as err:
            if err.response.get("Error", {}).get("Code") in (_CONDITION_FAILED, _CANCELLED):
                raise
            raise _mapped(err, operation, self._table) from err
        except (NoCredentialsError, NoRegionError) as err:
            raise ConfigurationError(f"DynamoDB {operation}: {err}") from err
        except BotoCoreError as err:
            raise TransientProviderError(f"DynamoDB {operation} on {self._table} failed: {err}") from err


def _mapped(err: ClientError, operation: str, table: str) -> VisualDegreesError:
    error = err.response.get("Error", {})
    code = error.get("Code", "Unknown")
    message = f"DynamoDB {operation} on {table} failed: {code}: {error.get('Message', '')[:200]}"
    if code in _TRANSIENT:
        return TransientProviderError(message)
    if code in _CONFIGURATION:
        return ConfigurationError(message)
    return ProviderError(message)


def _pruned(request: dict[str, Any]) -> dict[str, Any]:
    """DynamoDB refuses placeholders no expression uses, so drop the shared ones this request doesn't."""
    used = set(re.findall(r"[#:]\w+", " ".join(request.get(field, "") for field in _EXPRESSIONS)))
    pruned = dict(request)
    for field in ("ExpressionAttributeNames", "ExpressionAttributeValues"):
        if field in pruned:
            kept = {name: value for name, value in pruned[field].items() if name in used}
            if kept:
                pruned[field] = kept
            else:
                del pruned[field]
    return pruned


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {PARTITION_KEY: {"S": pk}, SORT_KEY: {"S": sk}}


def _number(value: int) -> dict[str, str]:
    return {"N": str(value)}


def _counter(name: str) -> str:
    return COUNTERS_ATTRIBUTE_PREFIX + name


def _condition(expression: str, now: float) -> dict[str, Any]:
    # Stored expiries are whole seconds, so comparing with floor(now) decides exactly as `now` would.
    return {
        "ConditionExpression": expression,
        "ExpressionAttributeNames": dict(_NAMES),
        "ExpressionAttributeValues": {":now": _number(math.floor(now))},
    }


def _item(raw: dict[str, Any]) -> Item:
    expires = raw.get(TTL_ATTRIBUTE)
    return Item(
        pk=raw[PARTITION_KEY]["S"],
        sk=raw[SORT_KEY]["S"],
        data=rules.decode_data(raw.get(DATA_ATTRIBUTE, {}).get("S")),
        counters={
            name[len(COUNTERS_ATTRIBUTE_PREFIX) :]: int(value["N"])
            for name, value in raw.items()
            if name.startswith(COUNTERS_ATTRIBUTE_PREFIX)
        },
        expires_at=None if expires is None else float(expires["N"]),
    )


def _live(raw: dict[str, Any] | None, now: float) -> Item | None:
    if not raw:
        return None
    item = _item(raw)
    return item if rules.is_live(item.expires_at, now) else None
