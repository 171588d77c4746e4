"""One contract for the limiter's slot stores: in process (the CLI, `serve`) and in DynamoDB (every
Lambda of a deployment, through moto). Slots are taken `interval` apart, none before `now`, none
after `latest`; a refusal takes nothing; concurrent callers never share a slot."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.concurrently import concurrently
from tests.support.memory_fixtures import InterjectingClient, SerializedClient, fresh_table, moto_dynamodb
from visual_degrees.adapters.aws.dynamodb_slots import DynamoDbSlots
from visual_degrees.adapters.rate_limiter import InProcessSlots, Rates, SlotLimiter, SlotStore
from visual_degrees.constants import PARTITION_KEY, SORT_KEY

T0 = 1_767_225_600.0
KINDS = ("in-process", "dynamodb")


@pytest.fixture(scope="module")
def dynamodb() -> Iterator[Any]:
    with moto_dynamodb() as client:
        yield client


@pytest.fixture(params=KINDS)
def slots(request: pytest.FixtureRequest, dynamodb: Any) -> SlotStore:
    if request.param == "dynamodb":
        return DynamoDbSlots(fresh_table(dynamodb), client=SerializedClient(dynamodb))
    return InProcessSlots()


def test_slots_are_taken_one_interval_apart_from_the_first_caller(slots: SlotStore):
    taken = [slots.take("search", 0.25, T0, T0 + 60) for _ in range(4)]
    assert taken == pytest.approx([T0, T0 + 0.25, T0 + 0.5, T0 + 0.75])


def test_a_queue_idle_since_its_last_slot_grants_now(slots: SlotStore):
    assert slots.take("search", 0.5, T0, T0 + 60) == pytest.approx(T0)
    later = T0 + 30
    assert slots.take("search", 0.5, later, later + 60) == pytest.approx(later)
    assert slots.take("search", 0.5, later, later + 60) == pytest.approx(later + 0.5)


def test_a_slot_past_the_callers_latest_moment_is_refused_and_not_taken(slots: SlotStore):
    for _ in range(3):
        slots.take("recognition", 1.0, T0, T0 + 60)  # the next free slot is at T0 + 3
    assert slots.take("recognition", 1.0, T0, T0 + 2.5) is None
    assert slots.take("recognition", 1.0, T0, T0 + 60) == pytest.approx(T0 + 3)


def test_a_burst_lets_calls_go_early_by_up_to_ahead_and_no_more(slots: SlotStore):
    taken = [slots.take("turns", 1.0, T0, T0 + 60, ahead=2.0) for _ in range(5)]
    assert taken == pytest.approx([T0, T0, T0, T0 + 1, T0 + 2])
    # a slot due after `latest` even counting the burst is refused, and nothing taken
    assert slots.take("turns", 1.0, T0, T0 + 2.5, ahead=2.0) is None
    assert slots.take("turns", 1.0, T0, T0 + 60, ahead=2.0) == pytest.approx(T0 + 3)


def test_queues_are_independent(slots: SlotStore):
    assert slots.take("search", 1.0, T0, T0 + 60) == pytest.approx(T0)
    assert slots.take("search#client#a", 1.0, T0, T0 + 60) == pytest.approx(T0)
    assert slots.take("llm", 1.0, T0, T0 + 60) == pytest.approx(T0)
    assert slots.take("search", 1.0, T0, T0 + 60) == pytest.approx(T0 + 1)


def test_concurrent_callers_never_share_a_slot(slots: SlotStore):
    taken = concurrently(lambda: [slots.take("search", 0.1, T0, T0 + 3600) for _ in range(10)], threads=6)
    assert sorted(s for mine in taken for s in mine) == pytest.approx([T0 + 0.1 * i for i in range(60)])


def test_two_lambdas_share_one_queue_through_the_table(dynamodb: Any):
    # Given two containers, each with its own DynamoDbSlots (and its own guess of the queue's state)
    table = fresh_table(dynamodb)
    first, second = DynamoDbSlots(table, client=dynamodb), DynamoDbSlots(table, client=dynamodb)
    # When they take slots in turn
    taken = [store.take("search", 0.5, T0, T0 + 60) for store in (first, second, first, second)]
    # Then they take the queue's consecutive slots, as one limiter would
    assert taken == pytest.approx([T0, T0 + 0.5, T0 + 1.0, T0 + 1.5])


def test_a_slot_taken_by_another_lambda_between_guess_and_write_is_not_taken_twice(dynamodb: Any):
    # Given a container that last saw the queue idle, and another that takes its slot just before
    table = fresh_table(dynamodb)
    other = DynamoDbSlots(table, client=dynamodb)
    racing = InterjectingClient(dynamodb, "update_item", lambda: other.take("search", 1.0, T0, T0 + 60))
    store = DynamoDbSlots(table, client=racing)
    # When it takes a slot
    slot = store.take("search", 1.0, T0, T0 + 60)
    # Then its idle guess lost, and it took the next slot instead of the one already taken
    assert slot == pytest.approx(T0 + 1.0)
    assert racing.calls == ["update_item", "update_item"]


def test_a_grant_costs_one_conditional_write_per_queue_when_the_guess_is_right(dynamodb: Any):
    table = fresh_table(dynamodb)
    counted = InterjectingClient(dynamodb, "never", lambda: None)
    store = DynamoDbSlots(table, client=counted)
    store.take("search", 0.5, T0, T0 + 60)  # idle, as guessed
    store.take("search", 0.5, T0, T0 + 60)  # busy, as guessed
    assert counted.calls == ["update_item", "update_item"]
    item = dynamodb.get_item(
        TableName=table, Key={PARTITION_KEY: {"S": "limiter#search"}, SORT_KEY: {"S": "slots"}}
    )["Item"]
    assert float(item["nextAt"]["N"]) == pytest.approx(T0 + 1.0)
    assert int(item["expiresAt"]["N"]) >= T0 + 3600  # an idle queue's item goes by itself


def test_the_limiter_over_dynamodb_paces_a_client_at_its_share(dynamodb: Any):
    # Given the deployment's limiter over the table, 4 searches a second, a quarter for each client
    # (after a burst of CLIENT_BURST calls)
    now = [T0]
    limiter = SlotLimiter(
        DynamoDbSlots(fresh_table(dynamodb), client=dynamodb),
        Rates({"search": 4.0}, client_share=0.25),
        now=lambda: now[0],
        sleep=lambda seconds: now.__setitem__(0, now[0] + seconds),
    )
    granted = []
    for _ in range(3):
        assert limiter.acquire("search", "client-a", deadline=T0 + 60)
        granted.append(now[0] - T0)
    assert limiter.acquire("search", "client-b", deadline=T0 + 60)
    assert granted == pytest.approx([0.0, 0.25, 0.5])  # within the client's burst: the provider's pace
    assert now[0] - T0 == pytest.approx(0.75)
