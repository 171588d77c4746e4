"""What only the SQLite memory promises: a file under a state directory, safety across threads and
connections, and purging. The behaviour it shares with DynamoDB is in the memory contract suite."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from tests.support.fakes import ManualClock
from visual_degrees.domain.errors import ConditionFailed
from visual_degrees.ports import Increment, Item, Put
from visual_degrees_tools.adapters.sqlite_memory import PURGE_INTERVAL_SECONDS, SqliteMemory, prefix_end

START = 1_767_225_600.0


def _stored(path: Path) -> list[str]:
    """Every sort key on disk, expired or not, read behind the store's back."""
    with sqlite3.connect(path) as raw:
        return [sk for (sk,) in raw.execute("SELECT sk FROM items ORDER BY sk")]


def test_file_is_created_under_a_missing_state_directory_and_outlives_the_store(tmp_path: Path) -> None:
    # Given a path whose directories do not exist yet
    path = tmp_path / ".state" / "runs" / "memory.sqlite3"

    # When a store writes there and is closed, then opened again
    with SqliteMemory(path) as memory:
        memory.put(Put("run#1", "meta", {"a": "Ada"}))
        memory.increment(Increment("run#1", "meta", "hops", 2))
    with SqliteMemory(path) as reopened:
        item = reopened.get("run#1", "meta")

    # Then the file exists, in WAL mode, and still holds the item
    assert path.is_file()
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert item == Item("run#1", "meta", {"a": "Ada"}, {"hops": 2})


def test_threads_sharing_one_store_never_pass_a_ceiling(tmp_path: Path) -> None:
    # Given one file-backed store shared by 8 threads, each trying 50 reservations against 150
    memory = SqliteMemory(tmp_path / "memory.sqlite3")
    granted: list[int] = []
    start = threading.Barrier(8)

    def reserve() -> None:
        start.wait()
        for _ in range(50):
            value = memory.increment(Increment("run", "budget", "recognitions", ceiling=150))
            if value is not None:
                granted.append(value)

    # When they race
    workers = [threading.Thread(target=reserve) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    # Then exactly 150 were granted, each value once
    assert sorted(granted) == list(range(1, 151))
    memory.close()


def test_separate_connections_to_one_file_serialise_their_writes(tmp_path: Path) -> None:
    # Given 4 stores (4 connections) on one file, each in its own thread, incrementing and claiming
    path = tmp_path / "memory.sqlite3"
    stores = [SqliteMemory(path) for _ in range(4)]
    wins: list[bool] = []
    start = threading.Barrier(4)

    def work(memory: SqliteMemory) -> None:
        start.wait()
        for n in range(100):
            memory.increment(Increment("run", "total", "n"))
            wins.append(memory.put(Put("run", f"claim#{n}", {}, if_absent=True)))

    # When they run at once
    workers = [threading.Thread(target=work, args=(store,)) for store in stores]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    # Then no increment was lost and each claim had exactly one winner
    total = stores[0].get("run", "total")
    assert total is not None and total.counters == {"n": 400}
    assert wins.count(True) == 100
    for store in stores:
        store.close()


def test_a_refused_transaction_leaves_the_file_untouched_for_other_connections(tmp_path: Path) -> None:
    # Given two connections and a live claim
    path = tmp_path / "memory.sqlite3"
    with SqliteMemory(path) as writer, SqliteMemory(path) as reader:
        writer.put(Put("run", "claim", {"by": "a"}))

        # When a transaction fails on its last write
        with pytest.raises(ConditionFailed) as caught:
            writer.transact([Put("run", "x", {}), Put("run", "claim", {"by": "b"}, if_absent=True)])

        # Then the other connection sees nothing of it, and the writer can go on writing
        assert caught.value.index == 1
        assert reader.get("run", "x") is None
        assert writer.put(Put("run", "y", {})) is True
        assert reader.get("run", "y") is not None


def test_purge_expired_deletes_only_expired_rows(tmp_path: Path) -> None:
    # Given two expired items and two live ones (one immortal)
    clock = ManualClock(START)
    path = tmp_path / "memory.sqlite3"
    memory = SqliteMemory(path, now=clock.now)
    memory.put(Put("run", "a", {}, ttl_seconds=10))
    memory.increment(Increment("run", "b", "n", ttl_seconds=10))
    memory.put(Put("run", "c", {}, ttl_seconds=100))
    memory.put(Put("run", "d", {}))
    clock.advance(10)

    # When purged
    purged = memory.purge_expired()

    # Then the expired rows are gone from the file and the live ones remain
    assert purged == 2
    assert _stored(path) == ["c", "d"]
    assert [i.sk for i in memory.query("run")] == ["c", "d"]
    memory.close()


def test_writes_purge_expired_rows_at_most_once_an_interval(tmp_path: Path) -> None:
    # Given an item that expires, on a store that has just purged at opening
    clock = ManualClock(START)
    path = tmp_path / "memory.sqlite3"
    memory = SqliteMemory(path, now=clock.now)
    memory.put(Put("run", "old", {}, ttl_seconds=1))

    # When a write happens after expiry but within the purge interval
    clock.advance(2)
    memory.put(Put("run", "new1", {}))
    on_disk_within_interval = _stored(path)

    # And another once the interval has passed
    clock.advance(PURGE_INTERVAL_SECONDS)
    memory.put(Put("run", "new2", {}))

    # Then the expired row stays on disk (hidden) until the opportunistic purge removes it
    assert memory.get("run", "old") is None
    assert on_disk_within_interval == ["new1", "old"]
    assert _stored(path) == ["new1", "new2"]
    memory.close()


def test_closed_store_refuses_further_use(tmp_path: Path) -> None:
    # Given a closed store / When it is used / Then sqlite says so instead of writing anywhere
    memory = SqliteMemory(tmp_path / "memory.sqlite3")
    memory.close()
    with pytest.raises(sqlite3.ProgrammingError):
        memory.get("run", "meta")


@pytest.mark.parametrize(
    ("prefix", "end"),
    [
        ("cand#", "cand$"),
        ("", None),
        ("a\U0010ffff", "b"),
        ("\U0010ffff\U0010ffff", None),
        ("x\ud7ff", "x\ue000"),
    ],
)
def test_prefix_end_bounds_exactly_the_strings_with_the_prefix(prefix: str, end: str | None) -> None:
    assert prefix_end(prefix) == end


def test_query_handles_prefixes_at_the_edges_of_unicode() -> None:
    # Given sort keys around the surrogate gap and the last code point
    with SqliteMemory() as memory:
        for sk in ("x\ud7ff", "x\ud7ffz", "x\ue000", "a\U0010ffff", "a\U0010ffffq", "b"):
            memory.put(Put("run", sk, {}))

        # When querying prefixes ending in those code points / Then exactly their items come back
        assert [i.sk for i in memory.query("run", "x\ud7ff")] == ["x\ud7ff", "x\ud7ffz"]
        assert [i.sk for i in memory.query("run", "a\U0010ffff")] == ["a\U0010ffff", "a\U0010ffffq"]
