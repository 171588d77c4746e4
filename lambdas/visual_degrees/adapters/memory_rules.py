"""What every Memory adapter agrees on: limits, validation, TTL arithmetic and what a write means.

`apply` is the reference semantics of one write: DynamoDB decides a transaction's refusals with it
on a fresh read, then writes with conditions that pin what it read. SQLite does the same in SQL and
the shared contract suite (with a property test over random histories) holds the two together.

Rules (identical in every adapter):
- An item with `expires_at <= now` does not exist: reads hide it, `if_absent` and Increment treat
  it as absent, and a write to it starts a fresh item (old data and counters gone).
- `expires_at` is whole epoch seconds, `ceil(now + ttl_seconds)`: DynamoDB's TTL reads epoch
  seconds, and rounding up never shortens a lifetime.
- A Put replaces the item's data and its TTL (`ttl_seconds=None`: never expires) and keeps the
  counters of a live item.
- An Increment's `ttl_seconds` applies only when the increment creates the item; bumping a counter
  never extends or shortens a live item's life.
- `put_all` writes each item whole (data and TTL, no counters), as a batch write does.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from visual_degrees.ports import Increment, Item, Put, Write

MAX_DATA_BYTES = 350 * 1024  # DynamoDB caps a whole item at 400 KB; keys and counters need the rest
MAX_TRANSACT_WRITES = 100  # DynamoDB TransactWriteItems limit
MAX_BATCH_WRITES = 25  # DynamoDB BatchWriteItem limit: a longer put_all is sent in such requests
MAX_PARTITION_KEY_BYTES = 2048  # DynamoDB key size limits
MAX_SORT_KEY_BYTES = 1024


def expiry(now: float, ttl_seconds: int | None) -> int | None:
    return None if ttl_seconds is None else math.ceil(now + ttl_seconds)


def is_live(expires_at: float | None, now: float) -> bool:
    return expires_at is None or expires_at > now


# One encoder for every item: json.dumps with options builds a new encoder on each call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_MAX_UTF8_BYTES_PER_CHAR = 4


def encode_json(value: dict[str, Any]) -> str:
    return _ENCODER.encode(value)


def encode_data(pk: str, sk: str, data: dict[str, Any]) -> str:
    """The item's data as one compact JSON string, refused when it would make an unbounded item."""
    if not isinstance(data, dict):
        raise ValueError(f"item ({pk!r}, {sk!r}): data must be a dict, not {type(data).__name__}")
    try:
        text = _ENCODER.encode(data)
    except (TypeError, ValueError) as err:
        raise ValueError(f"item ({pk!r}, {sk!r}): data is not JSON-compatible: {err}") from err
    if len(text) * _MAX_UTF8_BYTES_PER_CHAR > MAX_DATA_BYTES:  # only then can it be too big
        size = len(text.encode("utf-8"))
        if size > MAX_DATA_BYTES:
            raise ValueError(
                f"item ({pk!r}, {sk!r}): data is {size} bytes serialised, over the {MAX_DATA_BYTES}-byte"
                " limit; split it across items"
            )
    return text


def decode_data(text: str | None) -> dict[str, Any]:
    if not text or text == "{}":
        return {}
    data: dict[str, Any] = json.loads(text)
    return data


def _check_key(label: str, value: object, limit: int) -> None:
    if type(value) is not str or not value:
        raise ValueError(f"{label} must be a non-empty string, got {value!r}")
    if len(value) * _MAX_UTF8_BYTES_PER_CHAR > limit and len(value.encode("utf-8")) > limit:
        raise ValueError(f"{label} {value[:40]!r}… is over {limit} bytes")


def check_key(pk: str, sk: str) -> None:
    _check_key("pk", pk, MAX_PARTITION_KEY_BYTES)
    _check_key("sk", sk, MAX_SORT_KEY_BYTES)


def check_query(pk: str, prefix: str, after: str | None, limit: int | None) -> None:
    _check_key("pk", pk, MAX_PARTITION_KEY_BYTES)
    if type(prefix) is not str or (after is not None and type(after) is not str):
        raise ValueError(f"prefix and after must be strings, got {prefix!r} and {after!r}")
    if limit is not None and (not _is_int(limit) or limit < 0):
        raise ValueError(f"limit must be a non-negative int, got {limit!r}")


def _is_int(value: object) -> bool:
    return type(value) is int


def check_write(write: Write) -> None:
    """Refuse malformed writes before touching the store (a ValueError names the problem)."""
    if not isinstance(write, Put | Increment):
        raise ValueError(f"not a memory write: {write!r}")
    check_key(write.pk, write.sk)
    if write.ttl_seconds is not None and (not _is_int(write.ttl_seconds) or write.ttl_seconds <= 0):
        raise ValueError(f"item ({write.pk!r}, {write.sk!r}): ttl_seconds must be a positive int")
    if isinstance(write, Increment):
        if type(write.name) is not str or not write.name:
            raise ValueError(f"item ({write.pk!r}, {write.sk!r}): counter name must be a non-empty string")
        for label, value, optional in (
            ("amount", write.amount, False),
            ("expect", write.expect, True),
            ("ceiling", write.ceiling, True),
        ):
            if not _is_int(value) and not (optional and value is None):
                raise ValueError(f"item ({write.pk!r}, {write.sk!r}): {label} must be an int, got {value!r}")


def check_transaction(writes: Sequence[Write]) -> list[Write]:
    writes = list(writes)
    if len(writes) > MAX_TRANSACT_WRITES:
        raise ValueError(f"a transaction takes at most {MAX_TRANSACT_WRITES} writes, got {len(writes)}")
    seen: set[tuple[str, str]] = set()
    for write in writes:
        check_write(write)
        if (write.pk, write.sk) in seen:
            # DynamoDB refuses two operations on one item in a transaction; so must every store.
            raise ValueError(f"a transaction writes item ({write.pk!r}, {write.sk!r}) more than once")
        seen.add((write.pk, write.sk))
    return writes


def check_batch(puts: Sequence[Put]) -> list[Put]:
    """A Memory.put_all batch: unconditional Puts, each item once (DynamoDB refuses a batch that
    names an item twice; so must every store)."""
    puts = list(puts)
    seen: set[tuple[str, str]] = set()
    for put in puts:
        if not isinstance(put, Put):
            raise ValueError(f"put_all takes Puts only, not {put!r}")
        check_write(put)
        if put.if_absent:
            raise ValueError(f"put_all writes unconditionally: item ({put.pk!r}, {put.sk!r}) asks if_absent")
        if (put.pk, put.sk) in seen:
            raise ValueError(f"put_all writes item ({put.pk!r}, {put.sk!r}) more than once")
        seen.add((put.pk, put.sk))
    return puts


def next_count(current: int, inc: Increment) -> int | None:
    """The counter after `inc`, or None if `expect` or `ceiling` refuses it."""
    if inc.expect is not None and current != inc.expect:
        return None
    result = current + inc.amount
    if inc.ceiling is not None and result > inc.ceiling:
        return None
    return result


def apply(write: Write, live: Item | None, now: float) -> Item | None:
    """The item after `write`, given the live item (None if absent or expired); None if refused."""
    if isinstance(write, Put):
        if write.if_absent and live is not None:
            return None
        counters = dict(live.counters) if live is not None else {}
        return Item(write.pk, write.sk, write.data, counters, expiry(now, write.ttl_seconds))
    current = live.counters.get(write.name, 0) if live is not None else 0
    value = next_count(current, write)
    if value is None:
        return None
    if live is None:
        return Item(write.pk, write.sk, {}, {write.name: value}, expiry(now, write.ttl_seconds))
    return Item(write.pk, write.sk, live.data, {**live.counters, write.name: value}, live.expires_at)


def refusal(index: int, write: Write) -> str:
    if isinstance(write, Put):
        return f"write {index}: put ({write.pk!r}, {write.sk!r}) if_absent found a live item"
    return (
        f"write {index}: increment of {write.name!r} on ({write.pk!r}, {write.sk!r}) refused"
        f" (expect={write.expect}, ceiling={write.ceiling})"
    )
