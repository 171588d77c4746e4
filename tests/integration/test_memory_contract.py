"""The Memory port's contract: every implementation (SQLite file, SQLite in memory, DynamoDB on moto)
must give the same observable results. The docstrings of `visual_degrees.ports` and the rules in
`visual_degrees.adapters.memory_rules` are the specification.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError
from botocore.stub import Stubber
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.memory_fixtures import (
    KINDS,
    START,
    InterjectingClient,
    ManualClock,
    SerializedClient,
    fresh_table,
)
from tests.support.memory_fixtures import any_memory as any_memory  # the `memory` fixture
from tests.support.memory_fixtures import manual_clock as manual_clock  # `clock`
from tests.support.memory_fixtures import shared_moto_client as shared_moto_client  # `moto_client`
from visual_degrees.adapters.aws.dynamodb_memory import MAX_ATTEMPTS, DynamoDbMemory
from visual_degrees.adapters.memory_rules import MAX_BATCH_WRITES, MAX_DATA_BYTES, MAX_TRANSACT_WRITES
from visual_degrees.domain.errors import (
    ConditionFailed,
    ConfigurationError,
    ProviderError,
    TransientProviderError,
)
from visual_degrees.ports import Increment, Item, Memory, Put, Write
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

# ---- items, data and TTL ------------------------------------------------------------------------


def test_missing_item_reads_as_none(memory: Memory) -> None:
    # Given an empty store / When reading / Then nothing is there
    assert memory.get("run#1", "meta") is None
    assert memory.query("run#1") == []


def test_put_then_get_round_trips_json_data_exactly(memory: Memory) -> None:
    # Given a document with nesting, unicode, floats, big ints, booleans and nulls
    data = {
        "name": "Zoë Saldaña",
        "score": 0.1,
        "big": 2**53 + 1,
        "ok": True,
        "none": None,
        "l": [1, {"a": []}],
    }

    # When it is written and read back
    written = memory.put(Put("run#1", "meta", data))

    # Then it comes back equal, with ints still ints (no Decimal), no counters and no expiry
    assert written is True
    item = memory.get("run#1", "meta")
    assert item == Item("run#1", "meta", data, {}, None)
    assert type(item.data["big"]) is int


def test_ttl_hides_item_from_every_read_at_expiry(memory: Memory, clock: ManualClock) -> None:
    # Given an item written with a 30-second TTL
    memory.put(Put("run#1", "meta", {"v": 1}, ttl_seconds=30))
    item = memory.get("run#1", "meta")
    assert item is not None
    assert item.expires_at == START + 30

    # When the clock stands one second before expiry / Then it is visible
    clock.advance(29)
    assert memory.get("run#1", "meta") is not None
    assert [i.sk for i in memory.query("run#1")] == ["meta"]

    # When the clock reaches expiry / Then get and query both hide it
    clock.advance(1)
    assert memory.get("run#1", "meta") is None
    assert memory.query("run#1") == []


def test_fractional_now_rounds_expiry_up_to_whole_seconds(memory: Memory, clock: ManualClock) -> None:
    # Given a clock between two seconds
    clock.advance(0.25)

    # When an item with a 10-second TTL is written
    memory.put(Put("p", "s", {}, ttl_seconds=10))

    # Then it expires on the next whole second after now + ttl, never earlier
    item = memory.get("p", "s")
    assert item is not None and item.expires_at == START + 11


def test_put_replaces_data_and_ttl_but_keeps_live_counters(memory: Memory, clock: ManualClock) -> None:
    # Given a live item with data, a TTL and a counter
    memory.put(Put("p", "s", {"old": 1, "gone": True}, ttl_seconds=60))
    memory.increment(Increment("p", "s", "hits", 3))

    # When it is put again with new data and no TTL
    clock.advance(10)
    assert memory.put(Put("p", "s", {"new": 2})) is True

    # Then the data and TTL are replaced wholesale and the counter survives
    assert memory.get("p", "s") == Item("p", "s", {"new": 2}, {"hits": 3}, None)

    # When it is put again with a TTL / Then the TTL is set from now
    memory.put(Put("p", "s", {"new": 3}, ttl_seconds=5))
    assert memory.get("p", "s") == Item("p", "s", {"new": 3}, {"hits": 3}, START + 15)


def test_put_over_an_expired_item_starts_a_fresh_item(memory: Memory, clock: ManualClock) -> None:
    # Given an item with a counter that has expired
    memory.put(Put("p", "s", {"v": 1}, ttl_seconds=5))
    memory.increment(Increment("p", "s", "hits", 7))
    clock.advance(5)

    # When a plain put writes it again
    assert memory.put(Put("p", "s", {"v": 2})) is True

    # Then the expired item's counters are gone with it
    assert memory.get("p", "s") == Item("p", "s", {"v": 2}, {}, None)


def test_put_if_absent_refuses_a_live_item_without_raising(memory: Memory) -> None:
    # Given a live item
    assert memory.put(Put("p", "s", {"first": True}, if_absent=True)) is True

    # When a second if_absent put arrives
    second = memory.put(Put("p", "s", {"second": True}, if_absent=True))

    # Then it is refused and the first write stands
    assert second is False
    assert memory.get("p", "s") == Item("p", "s", {"first": True})


def test_put_if_absent_replaces_an_expired_item_entirely(memory: Memory, clock: ManualClock) -> None:
    # Given an expired item that had data, a counter and a TTL
    memory.put(Put("p", "s", {"old": 1}, ttl_seconds=10))
    memory.increment(Increment("p", "s", "hits"))
    clock.advance(10)

    # When an if_absent put arrives
    written = memory.put(Put("p", "s", {"new": 1}, ttl_seconds=20, if_absent=True))

    # Then it wins and nothing of the old item remains
    assert written is True
    assert memory.get("p", "s") == Item("p", "s", {"new": 1}, {}, START + 30)


def test_delete_removes_an_item_and_ignores_a_missing_one(memory: Memory) -> None:
    # Given an item
    memory.put(Put("p", "s", {"v": 1}))

    # When it is deleted, twice
    memory.delete("p", "s")
    memory.delete("p", "s")

    # Then it is gone, and an if_absent put can create it again
    assert memory.get("p", "s") is None
    assert memory.put(Put("p", "s", {"v": 2}, if_absent=True)) is True


# ---- counters -------------------------------------------------------------------------------------


def test_increment_counts_from_zero_beside_the_data(memory: Memory) -> None:
    # Given an item with data
    memory.put(Put("p", "s", {"hits": "not a counter"}))

    # When its counters are incremented, up and down
    values = [
        memory.increment(Increment("p", "s", "hits")),
        memory.increment(Increment("p", "s", "hits", 4)),
        memory.increment(Increment("p", "s", "misses", -2)),
    ]

    # Then each returns its new value and the data is untouched
    assert values == [1, 5, -2]
    assert memory.get("p", "s") == Item("p", "s", {"hits": "not a counter"}, {"hits": 5, "misses": -2})


def test_increment_creates_a_missing_item_with_its_ttl(memory: Memory) -> None:
    # Given nothing / When a counter with a TTL is incremented
    value = memory.increment(Increment("budget", "run#1", "searches", 2, ttl_seconds=1800))

    # Then the item exists with that counter, empty data and the TTL
    assert value == 2
    assert memory.get("budget", "run#1") == Item("budget", "run#1", {}, {"searches": 2}, START + 1800)


def test_increment_ttl_applies_only_when_it_creates_the_item(memory: Memory, clock: ManualClock) -> None:
    # Given a counter created with a 100-second TTL and an immortal item
    memory.increment(Increment("p", "mortal", "n", ttl_seconds=100))
    memory.put(Put("p", "immortal", {}))

    # When both are incremented later with other TTLs
    clock.advance(50)
    memory.increment(Increment("p", "mortal", "n", ttl_seconds=1000))
    memory.increment(Increment("p", "immortal", "n", ttl_seconds=1000))

    # Then neither lifetime changed
    mortal, immortal = memory.get("p", "mortal"), memory.get("p", "immortal")
    assert mortal is not None and mortal.expires_at == START + 100
    assert immortal is not None and immortal.expires_at is None


def test_increment_on_an_expired_item_starts_again_from_zero(memory: Memory, clock: ManualClock) -> None:
    # Given an expired item with data and two counters
    memory.put(Put("p", "s", {"old": 1}, ttl_seconds=10))
    memory.increment(Increment("p", "s", "a", 5))
    memory.increment(Increment("p", "s", "b", 9))
    clock.advance(10)

    # When one counter is incremented with expect=0 (the item counts as absent)
    value = memory.increment(Increment("p", "s", "a", 1, expect=0, ttl_seconds=60))

    # Then it restarts from 0, the old data and other counters are gone, and the new TTL applies
    assert value == 1
    assert memory.get("p", "s") == Item("p", "s", {}, {"a": 1}, START + 70)


def test_increment_expect_refuses_a_moved_counter(memory: Memory) -> None:
    # Given a counter at 2
    memory.increment(Increment("p", "s", "n", 2))

    # When increments expect 1, then 2, then expect 0 on a missing counter
    refused = memory.increment(Increment("p", "s", "n", expect=1))
    accepted = memory.increment(Increment("p", "s", "n", expect=2))
    fresh = memory.increment(Increment("p", "s", "other", expect=0))

    # Then only the matching expectations apply (a missing counter equals 0)
    assert (refused, accepted, fresh) == (None, 3, 1)
    item = memory.get("p", "s")
    assert item is not None and item.counters == {"n": 3, "other": 1}


def test_increment_ceiling_refuses_to_exceed_it(memory: Memory) -> None:
    # Given a budget of 5 with 3 used
    memory.increment(Increment("p", "s", "used", 3, ceiling=5))

    # When reservations of 3, 2 and 1 are attempted
    results = [memory.increment(Increment("p", "s", "used", amount, ceiling=5)) for amount in (3, 2, 1)]

    # Then the one that would exceed it is refused, reaching it exactly is allowed
    assert results == [None, 5, None]
    item = memory.get("p", "s")
    assert item is not None and item.counters == {"used": 5}


def test_increment_ceiling_below_amount_refuses_a_missing_counter(memory: Memory) -> None:
    # Given nothing / When an increment of 3 is capped at 2
    result = memory.increment(Increment("p", "s", "n", 3, ceiling=2))

    # Then it is refused and nothing is created
    assert result is None
    assert memory.get("p", "s") is None


# ---- transactions ---------------------------------------------------------------------------------


def test_transact_applies_every_write(memory: Memory) -> None:
    # Given a counter at 1
    memory.increment(Increment("run", "budget", "searches"))

    # When a transaction reserves budget, claims an event seq and stores the event
    memory.transact(
        [
            Increment("run", "budget", "searches", 1, ceiling=20),
            Put("run", "seq#000001", {"type": "status"}, ttl_seconds=60, if_absent=True),
            Increment("run", "meta", "seq", expect=0),
        ]
    )

    # Then all three are visible
    assert [(i.sk, i.data, i.counters) for i in memory.query("run")] == [
        ("budget", {}, {"searches": 2}),
        ("meta", {}, {"seq": 1}),
        ("seq#000001", {"type": "status"}, {}),
    ]


def test_transact_writes_nothing_and_names_the_first_refusal(memory: Memory) -> None:
    # Given a live item and a counter at 5
    memory.put(Put("run", "claimed", {"by": "a"}))
    memory.increment(Increment("run", "budget", "n", 5))
    writes: list[Write] = [
        Put("run", "new", {"v": 1}),
        Increment("run", "budget", "n", 1),
        Increment("run", "other", "n", 1, expect=3),  # refuses: the counter is missing (0)
        Put("run", "claimed", {"by": "b"}, if_absent=True),  # refuses too, but later
    ]

    # When the transaction runs
    with pytest.raises(ConditionFailed) as caught:
        memory.transact(writes)

    # Then the first refusing write is named and nothing was written
    assert caught.value.index == 2
    assert caught.value.code == "conflict"
    assert memory.get("run", "new") is None
    assert memory.get("run", "other") is None
    assert memory.get("run", "budget") == Item("run", "budget", {}, {"n": 5})
    assert memory.get("run", "claimed") == Item("run", "claimed", {"by": "a"})


def test_transact_treats_expired_items_as_absent(memory: Memory, clock: ManualClock) -> None:
    # Given an expired claim and an expired counter
    memory.put(Put("run", "claim", {"by": "old"}, ttl_seconds=5))
    memory.increment(Increment("run", "counter", "n", 9, ttl_seconds=5))
    clock.advance(5)

    # When a transaction claims again and counts from zero
    memory.transact(
        [Put("run", "claim", {"by": "new"}, if_absent=True), Increment("run", "counter", "n", expect=0)]
    )

    # Then both writes start fresh items
    assert memory.get("run", "claim") == Item("run", "claim", {"by": "new"})
    assert memory.get("run", "counter") == Item("run", "counter", {}, {"n": 1})


def test_transact_plain_put_keeps_live_counters_and_drops_expired_ones(
    memory: Memory, clock: ManualClock
) -> None:
    # Given one live and one soon-expired item, each with a counter
    memory.increment(Increment("p", "live", "n", 4))
    memory.increment(Increment("p", "stale", "n", 4, ttl_seconds=1))
    clock.advance(1)

    # When a transaction puts both
    memory.transact([Put("p", "live", {"v": 1}), Put("p", "stale", {"v": 1})])

    # Then only the live item keeps its counter
    assert memory.get("p", "live") == Item("p", "live", {"v": 1}, {"n": 4})
    assert memory.get("p", "stale") == Item("p", "stale", {"v": 1}, {})


def test_transact_accepts_the_dynamodb_limit_and_refuses_more(memory: Memory) -> None:
    # Given 100 writes and 101 writes
    full = [Increment("p", f"s{i:03}", "n") for i in range(MAX_TRANSACT_WRITES)]
    over: list[Write] = [*full, Put("p", "one-too-many", {})]

    # When / Then the limit itself is fine
    memory.transact(full)
    assert len(memory.query("p")) == MAX_TRANSACT_WRITES

    # When / Then one more is refused with a clear message, and nothing is written
    with pytest.raises(ValueError, match="at most 100 writes, got 101"):
        memory.transact(over)
    assert memory.get("p", "one-too-many") is None


def test_transact_refuses_two_writes_to_one_item(memory: Memory) -> None:
    # Given two writes to the same item / When transacted / Then refused before anything is written
    with pytest.raises(ValueError, match="more than once"):
        memory.transact([Put("p", "s", {}), Increment("p", "s", "n")])
    assert memory.get("p", "s") is None


def test_empty_transaction_is_a_no_op(memory: Memory) -> None:
    memory.transact([])
    assert memory.query("p") == []


# ---- put_all ------------------------------------------------------------------------------------


def test_put_all_writes_every_item_with_its_ttl(memory: Memory, clock: ManualClock) -> None:
    # Given more items than one DynamoDB batch takes, half of them with a TTL
    count = 2 * MAX_BATCH_WRITES + 3
    puts = [Put("titles#x", f"s{i:03}", {"i": i}, ttl_seconds=60 if i % 2 else None) for i in range(count)]

    # When they are written together
    memory.put_all(puts)

    # Then every one reads back, in order, with its own TTL
    items = memory.query("titles#x")
    assert [item.data["i"] for item in items] == list(range(count))
    assert {item.expires_at for item in items} == {None, START + 60}

    # And the TTL hides the expiring half when it passes
    clock.advance(60)
    assert [item.data["i"] for item in memory.query("titles#x")] == list(range(0, count, 2))


def test_put_all_replaces_an_item_whole_counters_too(memory: Memory) -> None:
    # Given a live item with data, a TTL and a counter
    memory.put(Put("p", "s", {"old": 1}, ttl_seconds=60))
    memory.increment(Increment("p", "s", "hits", 3))

    # When put_all writes it again without a TTL
    memory.put_all([Put("p", "s", {"new": 2})])

    # Then it is the new item alone: a batch write keeps nothing of the old one
    assert memory.get("p", "s") == Item("p", "s", {"new": 2}, {}, None)


@pytest.mark.parametrize(
    ("puts", "problem"),
    [
        ([Put("p", "a", {}), Put("p", "a", {"again": True})], r"writes item \('p', 'a'\) more than once"),
        ([Put("p", "a", {}), Put("p", "b", {}, if_absent=True)], r"item \('p', 'b'\) asks if_absent"),
        ([Put("p", "a", {}), Increment("p", "b", "n")], "takes Puts only"),
        ([Put("p", "a", {}), Put("p", "", {})], "sk"),
    ],
)
def test_put_all_refuses_a_bad_batch_before_writing_anything(
    memory: Memory, puts: list[Any], problem: str
) -> None:
    # When a batch holds one bad write / Then it is refused naming the problem, and nothing is written
    with pytest.raises(ValueError, match=problem):
        memory.put_all(puts)
    assert memory.query("p") == []


def test_put_all_of_nothing_is_a_no_op(memory: Memory) -> None:
    memory.put_all([])
    assert memory.query("p") == []


# ---- ordered range reads --------------------------------------------------------------------------


def test_query_reads_a_prefix_in_sort_key_order(memory: Memory) -> None:
    # Given items under two prefixes, written out of order, and one in another partition
    for sk in ("cand#b", "seen#2", "cand#a", "cand#c", "seen#1", "cand"):
        memory.put(Put("run", sk, {"sk": sk}))
    memory.put(Put("other", "cand#z", {}))

    # When reading the "cand#" prefix
    items = memory.query("run", "cand#")

    # Then exactly its items come back in ascending sk order
    assert [i.sk for i in items] == ["cand#a", "cand#b", "cand#c"]
    assert all(i.data == {"sk": i.sk} for i in items)
    assert [i.sk for i in memory.query("run")] == ["cand", "cand#a", "cand#b", "cand#c", "seen#1", "seen#2"]


def test_query_after_is_exclusive_and_may_lie_outside_the_prefix(memory: Memory) -> None:
    # Given three items under a prefix
    for sk in ("e#1", "e#2", "e#3"):
        memory.put(Put("run", sk, {}))

    # When paging with `after` inside, before and beyond the prefix
    inside = memory.query("run", "e#", after="e#1")
    absent_key = memory.query("run", "e#", after="e#15")
    before = memory.query("run", "e#", after="a")
    beyond = memory.query("run", "e#", after="f")

    # Then `after` itself is excluded, and outside keys bound the range as strings would
    assert [i.sk for i in inside] == ["e#2", "e#3"]
    assert [i.sk for i in absent_key] == ["e#2", "e#3"]
    assert [i.sk for i in before] == ["e#1", "e#2", "e#3"]
    assert beyond == []


def test_query_limit_counts_only_live_items(memory: Memory, clock: ManualClock) -> None:
    # Given ten items of which the first six expire
    for n in range(10):
        memory.put(Put("run", f"e#{n}", {"n": n}, ttl_seconds=5 if n < 6 else None))
    clock.advance(5)

    # When reading two at a time
    first = memory.query("run", "e#", limit=2)
    second = memory.query("run", "e#", after=first[-1].sk, limit=2)
    third = memory.query("run", "e#", after=second[-1].sk, limit=2)

    # Then pages hold live items only, full until the end
    assert [i.sk for i in first] == ["e#6", "e#7"]
    assert [i.sk for i in second] == ["e#8", "e#9"]
    assert third == []
    assert memory.query("run", "e#", limit=0) == []


def test_query_reads_past_one_dynamodb_page(memory: Memory) -> None:
    # Given more than 1 MB of items under one prefix (one DynamoDB query page holds at most 1 MB)
    blob = "x" * (100 * 1024)
    for n in range(14):
        memory.put(Put("run", f"img#{n:02}", {"blob": blob}))

    # When the whole prefix is read
    items = memory.query("run", "img#")

    # Then every item comes back, in order
    assert [i.sk for i in items] == [f"img#{n:02}" for n in range(14)]


# ---- bounded items and bad input -------------------------------------------------------------------


def _data_of_size(size: int) -> dict[str, Any]:
    return {"b": "x" * (size - len('{"b":""}'))}


def test_item_data_up_to_the_limit_is_stored(memory: Memory) -> None:
    # Given data whose JSON is exactly at the limit / When written / Then it is stored intact
    data = _data_of_size(MAX_DATA_BYTES)
    assert memory.put(Put("p", "s", data)) is True
    item = memory.get("p", "s")
    assert item is not None and item.data == data


def test_oversized_item_is_refused_naming_it(memory: Memory) -> None:
    # Given data one byte over the limit, in a put and in a transaction
    data = _data_of_size(MAX_DATA_BYTES + 1)

    # When / Then both are refused with the item and its size named, and nothing is written
    with pytest.raises(ValueError, match=rf"'p', 'big'.*{MAX_DATA_BYTES + 1} bytes"):
        memory.put(Put("p", "big", data))
    with pytest.raises(ValueError, match="'p', 'big'"):
        memory.transact([Put("p", "small", {}), Put("p", "big", data)])
    assert memory.query("p") == []


@pytest.mark.parametrize(
    ("write", "problem"),
    [
        (Put("", "s", {}), "pk must be a non-empty string"),
        (Put("p", "", {}), "sk must be a non-empty string"),
        (Put("p", "s", {"when": object()}), "not JSON-compatible"),
        (Put("p", "s", {"x": float("nan")}), "not JSON-compatible"),
        (Put("p", "s", ["not", "a", "dict"]), "must be a dict"),  # type: ignore[arg-type]
        (Put("p", "s", {}, ttl_seconds=0), "ttl_seconds must be a positive int"),
        (Increment("p", "s", ""), "counter name"),
        (Increment("p", "s", "n", amount=1.5), "amount must be an int"),  # type: ignore[arg-type]
        (Increment("p", "s", "n", ceiling=True), "ceiling must be an int"),
        (Put("p", "s" * 1025, {}), "over 1024 bytes"),
    ],
)
def test_malformed_writes_are_refused_clearly(memory: Memory, write: Write, problem: str) -> None:
    # Given a malformed write / When attempted alone and in a transaction / Then ValueError names it
    with pytest.raises(ValueError, match=problem):
        if isinstance(write, Put):
            memory.put(write)
        else:
            memory.increment(write)
    with pytest.raises(ValueError, match=problem):
        memory.transact([write])
    assert memory.query("p") == []


@pytest.mark.parametrize(
    ("read", "problem"),
    [
        (lambda m: m.get("", "s"), "pk must be a non-empty string"),
        (lambda m: m.get("p", ""), "sk must be a non-empty string"),
        (lambda m: m.delete("p", ""), "sk must be a non-empty string"),
        (lambda m: m.query(""), "pk must be a non-empty string"),
        (lambda m: m.query("p", limit=-1), "limit must be a non-negative int"),
        (lambda m: m.query("p", None), "prefix and after must be strings"),
    ],
)
def test_malformed_reads_are_refused_clearly(
    memory: Memory, read: Callable[[Memory], object], problem: str
) -> None:
    # Given a read with a bad key or bound / When attempted / Then ValueError names the problem
    with pytest.raises(ValueError, match=problem):
        read(memory)


# ---- races ------------------------------------------------------------------------------------------


@contextmanager
def _racing_stores(
    kind: str, clock: ManualClock, tmp_path: Path, client: Any
) -> Iterator[Callable[[], Memory]]:
    """A factory of stores over one backing store, one store per racing thread."""
    if kind == "dynamodb":
        table, shared = fresh_table(client), SerializedClient(client)
        yield lambda: DynamoDbMemory(table, client=shared, now=clock.now)
    elif kind == "sqlite-file":
        opened: list[SqliteMemory] = []

        def connect() -> Memory:  # one connection per thread: the file's own locking must hold
            opened.append(SqliteMemory(tmp_path / "race.sqlite3", now=clock.now))
            return opened[-1]

        yield connect
        for store in opened:
            store.close()
    else:
        with SqliteMemory(now=clock.now) as one:
            yield lambda: one


def _race(threads: int, store_for: Callable[[], Memory], work: Callable[[Memory], list[Any]]) -> list[Any]:
    stores = [store_for() for _ in range(threads)]
    start = threading.Barrier(threads)
    results: list[list[Any]] = [[] for _ in range(threads)]
    errors: list[BaseException] = []

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = work(stores[index])
        except BaseException as err:  # surfaced below: a thread's exception must fail the test
            errors.append(err)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert errors == []
    return [result for per_thread in results for result in per_thread]


@pytest.mark.parametrize("kind", KINDS)
def test_racing_increments_never_pass_the_ceiling(
    kind: str, clock: ManualClock, tmp_path: Path, moto_client: Any
) -> None:
    ceiling = 25
    with _racing_stores(kind, clock, tmp_path, moto_client) as store_for:
        # Given 6 threads that each try 10 reservations against a budget of 25
        def reserve(m: Memory) -> list[int | None]:
            return [m.increment(Increment("run", "budget", "n", ceiling=ceiling)) for _ in range(10)]

        # When they race
        results = _race(6, store_for, reserve)

        # Then exactly `ceiling` succeed, each handing out a distinct value, and the counter stops there
        assert sorted(r for r in results if r is not None) == list(range(1, ceiling + 1))
        item = store_for().get("run", "budget")
        assert item is not None and item.counters == {"n": ceiling}


@pytest.mark.parametrize("kind", KINDS)
def test_racing_if_absent_puts_have_exactly_one_winner(
    kind: str, clock: ManualClock, tmp_path: Path, moto_client: Any
) -> None:
    with _racing_stores(kind, clock, tmp_path, moto_client) as store_for:
        # Given 4 threads each claiming the same 15 keys in the same order
        def claim_all(m: Memory) -> list[tuple[str, bool, int]]:
            marker = id(m)
            return [
                (f"k{n}", m.put(Put("run", f"k{n}", {"by": marker}, if_absent=True)), marker)
                for n in range(15)
            ]

        # When they race
        results = _race(4, store_for, claim_all)

        # Then every key has exactly one winner, and the stored claim is the winner's
        reader = store_for()
        for n in range(15):
            winners = [marker for key, won, marker in results if key == f"k{n}" and won]
            assert len(winners) == 1
            item = reader.get("run", f"k{n}")
            assert item is not None and item.data == {"by": winners[0]}


@pytest.mark.parametrize("kind", KINDS)
def test_racing_transactions_stay_all_or_nothing(
    kind: str, clock: ManualClock, tmp_path: Path, moto_client: Any
) -> None:
    with _racing_stores(kind, clock, tmp_path, moto_client) as store_for:
        # Given 4 threads that each try, 8 times, to claim the next event seq and store its event atomically
        def append_events(m: Memory) -> list[int]:
            claimed = []
            for _ in range(8):
                head = m.get("run", "head")
                seq = head.counters.get("seq", 0) if head else 0
                try:
                    m.transact(
                        [
                            Increment("run", "head", "seq", expect=seq),
                            Put("run", f"ev#{seq + 1:04}", {"seq": seq + 1}, if_absent=True),
                        ]
                    )
                    claimed.append(seq + 1)
                except ConditionFailed:
                    pass  # another thread took this seq: read the head again
            return claimed

        # When they race
        claimed = _race(4, store_for, append_events)

        # Then the seqs are gap-free, each claimed once, and every claimed seq has its event
        reader = store_for()
        head = reader.get("run", "head")
        assert head is not None
        assert sorted(claimed) == list(range(1, head.counters["seq"] + 1))
        assert [i.data["seq"] for i in reader.query("run", "ev#")] == sorted(claimed)


# ---- one random history, every implementation ------------------------------------------------------

_PKS = st.sampled_from(["a", "b"])
_SKS = st.sampled_from(["x", "x#1", "x#2", "x#10", "y", "é"])
_TTLS = st.none() | st.integers(1, 4)
_DATA = st.dictionaries(
    st.sampled_from(["k", "v", "é"]), st.integers(-3, 3) | st.text(max_size=3), max_size=2
)
_PUT = st.builds(Put, _PKS, _SKS, _DATA, _TTLS, st.booleans())
_INCREMENT = st.builds(
    Increment,
    _PKS,
    _SKS,
    st.sampled_from(["n", "m"]),
    st.integers(-2, 3),
    st.none() | st.integers(0, 4),
    st.none() | st.integers(0, 6),
    _TTLS,
)
_WRITE = _PUT | _INCREMENT
_OPERATION = st.one_of(
    st.tuples(st.just("put"), _PUT),
    st.tuples(st.just("increment"), _INCREMENT),
    st.tuples(st.just("transact"), st.lists(_WRITE, max_size=4)),
    st.tuples(st.just("get"), st.tuples(_PKS, _SKS)),
    st.tuples(
        st.just("query"),
        st.tuples(
            _PKS, st.sampled_from(["", "x", "x#", "y"]), st.none() | _SKS, st.none() | st.integers(0, 3)
        ),
    ),
    st.tuples(st.just("delete"), st.tuples(_PKS, _SKS)),
    st.tuples(st.just("advance"), st.integers(0, 3)),
)


def _observe(memory: Memory, clock: ManualClock, operation: tuple[str, Any]) -> Any:
    """What a caller sees from one operation: its result or the error it raised."""
    name, arg = operation
    try:
        if name == "advance":
            clock.advance(arg)
            return None
        if name == "put":
            return memory.put(arg)
        if name == "increment":
            return memory.increment(arg)
        if name == "transact":
            return memory.transact(arg)
        if name == "get":
            return memory.get(*arg)
        if name == "delete":
            return memory.delete(*arg)
        pk, prefix, after, limit = arg
        return memory.query(pk, prefix, after=after, limit=limit)
    except ConditionFailed as err:
        return ("ConditionFailed", err.index)
    except ValueError as err:
        return ("ValueError", str(err))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=st.lists(_OPERATION, max_size=25))
def test_every_implementation_observes_the_same_history(
    operations: list[tuple[str, Any]], tmp_path: Path, moto_client: Any
) -> None:
    # Given a fresh store of every kind, each with its own copy of one clock
    table, sqlite_file = fresh_table(moto_client), tmp_path / f"{uuid.uuid4()}.sqlite3"
    stores: dict[str, Callable[[ManualClock], Memory]] = {
        "sqlite-file": lambda clock: SqliteMemory(sqlite_file, now=clock.now),
        "sqlite-memory": lambda clock: SqliteMemory(now=clock.now),
        "dynamodb": lambda clock: DynamoDbMemory(table, client=moto_client, now=clock.now),
    }
    observed: dict[str, list[Any]] = {}
    for kind, open_store in stores.items():
        clock = ManualClock(START)
        memory = open_store(clock)
        # When the same random operations run against it, and the final state is read in full
        observed[kind] = [_observe(memory, clock, operation) for operation in operations]
        observed[kind].append([memory.query(pk) for pk in ("a", "b")])
        if isinstance(memory, SqliteMemory):
            memory.close()

    # Then every implementation saw exactly the same results
    assert observed["sqlite-memory"] == observed["sqlite-file"]
    assert observed["dynamodb"] == observed["sqlite-file"]


# ---- DynamoDB: race windows between requests, and errors -------------------------------------------


def _dynamodb_pair(
    moto_client: Any, clock: ManualClock, operation: str, competitor: Callable[[DynamoDbMemory], object]
) -> tuple[DynamoDbMemory, DynamoDbMemory, InterjectingClient]:
    """Our store, whose `operation` lets `competitor` act first once, and the competitor's store."""
    table = fresh_table(moto_client)
    other = DynamoDbMemory(table, client=moto_client, now=clock.now)
    racing = InterjectingClient(moto_client, operation, lambda: competitor(other))
    return DynamoDbMemory(table, client=racing, now=clock.now), other, racing


def test_dynamodb_increment_that_loses_the_creation_race_counts_on_top(
    moto_client: Any, clock: ManualClock
) -> None:
    # Given a missing counter, and a competitor that creates it at 5 just before our create
    ours, other, racing = _dynamodb_pair(
        moto_client, clock, "put_item", lambda m: m.increment(Increment("run", "budget", "n", 5))
    )

    # When we increment it by 1
    value = ours.increment(Increment("run", "budget", "n", 1, ceiling=10))

    # Then our create was refused and our retry added to theirs
    assert value == 6
    assert racing.calls == ["update_item", "put_item", "update_item"]
    assert other.get("run", "budget") == Item("run", "budget", {}, {"n": 6})


def test_dynamodb_put_over_an_expired_item_keeps_a_revivers_counters(
    moto_client: Any, clock: ManualClock
) -> None:
    # Given an expired item, and a competitor that revives it with a counter just before our replace
    ours, other, racing = _dynamodb_pair(
        moto_client, clock, "put_item", lambda m: m.increment(Increment("run", "meta", "seq", 3))
    )
    other.put(Put("run", "meta", {"old": True}, ttl_seconds=1))
    clock.advance(1)

    # When we put new data
    assert ours.put(Put("run", "meta", {"new": True})) is True

    # Then our replace lost to the live item, so the retry updated it in place, keeping its counter
    assert racing.calls == ["update_item", "put_item", "update_item"]
    assert other.get("run", "meta") == Item("run", "meta", {"new": True}, {"seq": 3})


def test_dynamodb_if_absent_put_loses_to_a_claim_made_first(moto_client: Any, clock: ManualClock) -> None:
    # Given a competitor that claims the key just before our claim reaches DynamoDB
    ours, other, _ = _dynamodb_pair(
        moto_client, clock, "put_item", lambda m: m.put(Put("run", "claim", {"by": "them"}, if_absent=True))
    )

    # When we claim it / Then we lose and their claim stands
    assert ours.put(Put("run", "claim", {"by": "us"}, if_absent=True)) is False
    assert other.get("run", "claim") == Item("run", "claim", {"by": "them"})


def test_dynamodb_transaction_rereads_when_its_snapshot_moves(moto_client: Any, clock: ManualClock) -> None:
    # Given a competitor that claims seq 1 between our snapshot and our transaction
    ours, other, racing = _dynamodb_pair(
        moto_client, clock, "transact_write_items", lambda m: m.increment(Increment("run", "head", "seq"))
    )

    # When we try to claim seq 1 too
    with pytest.raises(ConditionFailed) as caught:
        ours.transact([Increment("run", "head", "seq", expect=0), Put("run", "ev#1", {}, if_absent=True)])

    # Then DynamoDB cancelled ours, the re-read names the moved counter, and nothing of ours was written
    assert caught.value.index == 0
    assert racing.calls == ["batch_get_item", "transact_write_items", "batch_get_item"]
    assert other.get("run", "ev#1") is None
    assert other.get("run", "head") == Item("run", "head", {}, {"seq": 1})


def test_dynamodb_transaction_retries_when_a_harmless_change_cancels_it(
    moto_client: Any, clock: ManualClock
) -> None:
    # Given a competitor that creates an item with a counter between our snapshot and our transaction
    ours, other, racing = _dynamodb_pair(
        moto_client, clock, "transact_write_items", lambda m: m.increment(Increment("run", "x", "n", 3))
    )

    # When our transaction puts that item (absent in our snapshot) and another
    ours.transact([Put("run", "x", {"v": 1}), Put("run", "y", {"v": 2})])

    # Then the first attempt was cancelled, the second updated the now-live item keeping its counter
    assert racing.calls == [
        "batch_get_item",
        "transact_write_items",
        "batch_get_item",
        "transact_write_items",
    ]
    assert other.get("run", "x") == Item("run", "x", {"v": 1}, {"n": 3})
    assert other.get("run", "y") == Item("run", "y", {"v": 2})


def _stubbed() -> tuple[DynamoDbMemory, Stubber]:
    """A store over a real botocore client whose answers are scripted (one attempt, no retries)."""
    client = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(retries={"total_max_attempts": 1}),
    )
    return DynamoDbMemory("runs", client=client), Stubber(client)


@pytest.mark.parametrize(
    ("code", "domain_error"),
    [
        ("ResourceNotFoundException", ConfigurationError),
        ("AccessDeniedException", ConfigurationError),
        ("ProvisionedThroughputExceededException", TransientProviderError),
        ("ThrottlingException", TransientProviderError),
        ("InternalServerError", TransientProviderError),
        ("ValidationException", ProviderError),
    ],
)
def test_dynamodb_errors_become_domain_errors_naming_the_cause(
    code: str, domain_error: type[Exception]
) -> None:
    # Given DynamoDB answering a read with an error
    memory, stubber = _stubbed()
    stubber.add_client_error("get_item", service_error_code=code, service_message="it went wrong")

    # When reading / Then the domain error names the operation, the table and the AWS code
    with stubber, pytest.raises(domain_error, match=rf"get_item on runs failed: {code}: it went wrong"):
        memory.get("run", "meta")
    stubber.assert_no_pending_responses()


def test_dynamodb_transaction_cancelled_by_throttling_is_transient() -> None:
    # Given a transaction DynamoDB cancels because one write was throttled, not refused
    memory, stubber = _stubbed()
    stubber.add_response("batch_get_item", {"Responses": {"runs": []}, "UnprocessedKeys": {}})
    stubber.add_client_error(
        "transact_write_items",
        service_error_code="TransactionCanceledException",
        modeled_fields={"CancellationReasons": [{"Code": "None"}, {"Code": "ThrottlingError"}]},
    )

    # When it runs / Then the error is retryable and names the reason, not a condition failure
    with stubber, pytest.raises(TransientProviderError, match="cancelled: ThrottlingError"):
        memory.transact([Put("run", "a", {}), Put("run", "b", {})])
    stubber.assert_no_pending_responses()


def _batch(table: str, *sks: str) -> dict[str, Any]:
    return {
        table: [
            {"PutRequest": {"Item": {"pk": {"S": "p"}, "sk": {"S": sk}, "data": {"S": "{}"}}}} for sk in sks
        ]
    }


def test_dynamodb_put_all_sends_again_what_a_batch_left_unprocessed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given DynamoDB leaving one item of a batch unprocessed (throttled), then taking it
    monkeypatch.setattr("time.sleep", lambda _seconds: None)
    memory, stubber = _stubbed()
    stubber.add_response(
        "batch_write_item",
        {"UnprocessedItems": _batch("runs", "b")},
        {"RequestItems": _batch("runs", "a", "b")},
    )
    stubber.add_response("batch_write_item", {"UnprocessedItems": {}}, {"RequestItems": _batch("runs", "b")})

    # When both are written / Then the unprocessed one is sent again, alone
    with stubber:
        memory.put_all([Put("p", "a", {}), Put("p", "b", {})])
    stubber.assert_no_pending_responses()


def test_dynamodb_put_all_that_stays_unprocessed_is_transient(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given DynamoDB that never processes the item
    monkeypatch.setattr("time.sleep", lambda _seconds: None)
    memory, stubber = _stubbed()
    for _ in range(MAX_ATTEMPTS):
        stubber.add_response("batch_write_item", {"UnprocessedItems": _batch("runs", "a")})

    # When it is written / Then the failure is retryable and says what happened
    with stubber, pytest.raises(TransientProviderError, match="kept returning unprocessed items"):
        memory.put_all([Put("p", "a", {})])
    stubber.assert_no_pending_responses()


class _Unreachable:
    def get_item(self, **request: Any) -> Any:
        raise EndpointConnectionError(endpoint_url="https://dynamodb.example")


def test_dynamodb_unreachable_endpoint_is_transient() -> None:
    # Given an endpoint that cannot be reached / When reading / Then the failure is retryable
    memory = DynamoDbMemory("runs", client=_Unreachable())
    with pytest.raises(TransientProviderError, match="get_item on runs failed"):
        memory.get("run", "meta")


def test_dynamodb_default_client_is_built_lazily_with_standard_retries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given no client / When the store is made / Then no client exists until one is needed
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    memory = DynamoDbMemory("runs")
    assert not memory._clients.built
    client = memory.client
    assert client.meta.region_name == "eu-west-1"
    assert client.meta.config.retries["mode"] == "standard"
    assert memory.client is client
