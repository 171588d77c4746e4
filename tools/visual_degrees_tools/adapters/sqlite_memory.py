"""Run memory in one SQLite file: the local default implementation of the Memory port (ports.py).

One connection guarded by a lock serves every thread of the process: the local server runs many
investigations in threads against one file, and a single connection measured faster than one per
thread (Python holds the GIL during most of the call anyway). WAL and a busy timeout let other
processes (the CLI's `trace`) read the file while a run writes it. The semantics are those of
`memory_rules`, done in SQL: a put is one UPSERT, an increment one read-modify-write in a
`BEGIN IMMEDIATE` transaction; the shared contract suite holds this adapter and DynamoDB's together.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from visual_degrees.adapters import memory_rules as rules
from visual_degrees.domain.errors import ConditionFailed
from visual_degrees.ports import Increment, Item, Put, Write

BUSY_TIMEOUT_SECONDS = 10.0
PURGE_INTERVAL_SECONDS = 60.0
_MAX_CODE_POINT = 0x10FFFF

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    pk TEXT NOT NULL,
    sk TEXT NOT NULL,
    data TEXT NOT NULL DEFAULT '{}',
    counters TEXT NOT NULL DEFAULT '{}',
    expires_at INTEGER,
    PRIMARY KEY (pk, sk)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_expiry ON items (expires_at) WHERE expires_at IS NOT NULL;
"""
# The clustered (pk, sk) primary key is the index prefix scans use: `pk = ? AND sk >= ? AND sk < ?`.
# The partial expiry index keeps purges cheap without slowing writes of immortal items.

_PUT = """
INSERT INTO items (pk, sk, data, counters, expires_at) VALUES (?, ?, ?, '{}', ?)
ON CONFLICT (pk, sk) DO UPDATE SET
    data = excluded.data,
    expires_at = excluded.expires_at,
    counters = CASE WHEN items.expires_at <= ? THEN '{}' ELSE items.counters END
"""
_PUT_IF_ABSENT = """
INSERT INTO items (pk, sk, data, counters, expires_at) VALUES (?, ?, ?, '{}', ?)
ON CONFLICT (pk, sk) DO UPDATE SET
    data = excluded.data, counters = '{}', expires_at = excluded.expires_at
WHERE items.expires_at <= ?
"""
_STORE = "INSERT OR REPLACE INTO items (pk, sk, data, counters, expires_at) VALUES (?, ?, ?, ?, ?)"
_LOAD = "SELECT data, counters, expires_at FROM items WHERE pk = ? AND sk = ?"
_LOAD_COUNTERS = "SELECT counters, expires_at FROM items WHERE pk = ? AND sk = ?"
_SET_COUNTERS = "UPDATE items SET counters = ? WHERE pk = ? AND sk = ?"


def prefix_end(prefix: str) -> str | None:
    """The smallest string above every string starting with `prefix` (None: no such bound).

    SQLite compares TEXT bytewise as UTF-8, which orders like code points, so bumping the last
    code point that can be bumped gives the exclusive upper bound of the prefix range.
    """
    stripped = prefix.rstrip(chr(_MAX_CODE_POINT))
    if not stripped:
        return None
    bumped = ord(stripped[-1]) + 1
    if 0xD800 <= bumped <= 0xDFFF:  # surrogates cannot be encoded; the next code point is U+E000
        bumped = 0xE000
    return stripped[:-1] + chr(bumped)


class SqliteMemory:
    """The Memory port over SQLite. `path` is a file (its directory is created) or ":memory:"."""

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, now: Callable[[], float] = time.time):
        self._now = now
        target = os.fspath(path)
        if target != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(
            target, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
        )
        self._conn.execute("PRAGMA journal_mode = WAL")
        # Run memory lives for minutes: losing the last commits on a power cut is acceptable, an fsync
        # per commit is not (NORMAL in WAL mode still never corrupts the file).
        self._conn.execute("PRAGMA synchronous = NORMAL")
        self._conn.executescript(_SCHEMA)
        self._next_purge = float("-inf")

    # ---- reads ------------------------------------------------------------------------------

    def get(self, pk: str, sk: str) -> Item | None:
        rules.check_key(pk, sk)
        now = self._now()
        with self._lock:
            row = self._conn.execute(_LOAD, (pk, sk)).fetchone()
        return _live_item(pk, sk, row, now)

    def query(
        self, pk: str, prefix: str = "", *, after: str | None = None, limit: int | None = None
    ) -> list[Item]:
        rules.check_query(pk, prefix, after, limit)
        if limit == 0:
            return []
        now = self._now()
        # One lower bound only: given two, SQLite seeks on one and filters the other row by row.
        strictly_after = after is not None and after >= prefix
        lower = "sk > ?" if strictly_after else "sk >= ?"
        sql = [f"SELECT sk, data, counters, expires_at FROM items WHERE pk = ? AND {lower}"]
        params: list[Any] = [pk, after if strictly_after else prefix]
        end = prefix_end(prefix)
        if end is not None:
            sql.append("AND sk < ?")
            params.append(end)
        sql.append("AND (expires_at IS NULL OR expires_at > ?) ORDER BY sk")
        params.append(now)
        if limit is not None:
            sql.append("LIMIT ?")
            params.append(limit)
        with self._lock:
            rows = self._conn.execute(" ".join(sql), params).fetchall()
        return [
            Item(pk, sk, rules.decode_data(data), _counters(counters), _seconds(expires_at))
            for sk, data, counters, expires_at in rows
        ]

    # ---- writes -----------------------------------------------------------------------------

    def put(self, put: Put) -> bool:
        rules.check_write(put)
        text = rules.encode_data(put.pk, put.sk, put.data)
        now = self._now()
        with self._lock:
            self._maybe_purge(now)
            return self._put(put, text, now)

    def increment(self, inc: Increment) -> int | None:
        rules.check_write(inc)
        now = self._now()
        with self._lock:
            self._maybe_purge(now)
            with self._transaction():
                return self._increment(inc, now)

    def transact(self, writes: Sequence[Write]) -> None:
        writes = rules.check_transaction(writes)
        texts = [rules.encode_data(w.pk, w.sk, w.data) if isinstance(w, Put) else "" for w in writes]
        if not writes:
            return
        now = self._now()
        with self._lock:
            self._maybe_purge(now)
            with self._transaction():
                for index, write in enumerate(writes):
                    if isinstance(write, Put):
                        done = self._put(write, texts[index], now)
                    else:
                        done = self._increment(write, now) is not None
                    if not done:  # raising rolls back every write before this one
                        raise ConditionFailed(rules.refusal(index, write), index=index)

    def put_all(self, puts: Sequence[Put]) -> None:
        puts = rules.check_batch(puts)
        rows = [(p.pk, p.sk, rules.encode_data(p.pk, p.sk, p.data), "{}") for p in puts]
        if not rows:
            return
        now = self._now()
        with self._lock:
            self._maybe_purge(now)
            with self._transaction():
                self._conn.executemany(
                    _STORE,
                    [(*row, rules.expiry(now, put.ttl_seconds)) for row, put in zip(rows, puts, strict=True)],
                )

    def delete(self, pk: str, sk: str) -> None:
        rules.check_key(pk, sk)
        with self._lock:
            self._conn.execute("DELETE FROM items WHERE pk = ? AND sk = ?", (pk, sk))

    # ---- housekeeping -----------------------------------------------------------------------

    def purge_expired(self) -> int:
        """Delete every expired item now; the number deleted. Reads never need it, disk space does."""
        now = self._now()
        with self._lock:
            return self._purge(now)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> SqliteMemory:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # ---- internals (callers hold the lock) --------------------------------------------------

    def _transaction(self) -> _Transaction:
        return _Transaction(self._conn)

    def _put(self, put: Put, text: str, now: float) -> bool:
        params = (put.pk, put.sk, text, rules.expiry(now, put.ttl_seconds), now)
        return self._conn.execute(_PUT_IF_ABSENT if put.if_absent else _PUT, params).rowcount == 1

    def _increment(self, inc: Increment, now: float) -> int | None:
        """Read-modify-write of one counter; the caller holds a write transaction."""
        row = self._conn.execute(_LOAD_COUNTERS, (inc.pk, inc.sk)).fetchone()
        live = row is not None and rules.is_live(row[1], now)
        counters: dict[str, int] = json.loads(row[0]) if live else {}
        value = rules.next_count(counters.get(inc.name, 0), inc)
        if value is None:
            return None
        counters[inc.name] = value
        if live:
            self._conn.execute(_SET_COUNTERS, (rules.encode_json(counters), inc.pk, inc.sk))
        else:  # absent or expired: a fresh item, whose TTL this increment sets
            expires_at = rules.expiry(now, inc.ttl_seconds)
            self._conn.execute(_STORE, (inc.pk, inc.sk, "{}", rules.encode_json(counters), expires_at))
        return value

    def _maybe_purge(self, now: float) -> None:
        # Opportunistic: at most once a minute of the injected clock, on a write that holds the lock.
        if now >= self._next_purge:
            self._purge(now)

    def _purge(self, now: float) -> int:
        self._next_purge = now + PURGE_INTERVAL_SECONDS
        return self._conn.execute("DELETE FROM items WHERE expires_at <= ?", (now,)).rowcount


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any exception: takes the write lock up front, so
    a read-modify-write cannot lose to another process between its read and its write."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._conn.execute("COMMIT" if kind is None else "ROLLBACK")


def _counters(text: str) -> dict[str, int]:
    return {} if text == "{}" else dict(json.loads(text))  # most items have no counters


def _seconds(expires_at: int | None) -> float | None:
    return None if expires_at is None else float(expires_at)


def _live_item(pk: str, sk: str, row: tuple[str, str, int | None] | None, now: float) -> Item | None:
    if row is None or not rules.is_live(row[2], now):
        return None
    data, counters, expires_at = row
    return Item(pk, sk, rules.decode_data(data), _counters(counters), _seconds(expires_at))
