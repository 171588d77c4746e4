import pytest

from tests.support.concurrently import concurrently
from visual_degrees.domain.costs import CostTable
from visual_degrees.domain.models import Budgets
from visual_degrees.services.budget import Budget
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def budget(memory=None, **limits) -> Budget:
    return Budget(memory or SqliteMemory(":memory:"), "r1", Budgets(**limits), CostTable(), ttl_seconds=600)


def test_reservations_stop_exactly_at_the_limit_and_cost_is_counted():
    b = budget(searches=2, recognitions=3)
    assert [b.reserve("searches") for _ in range(3)] == [True, True, False]
    assert [b.reserve("recognitions") for _ in range(4)] == [True, True, True, False]
    b.record_llm_tokens(1_000, 200)
    s = b.summary()
    assert (s["searches"], s["recognitions"]) == (2, 3)
    assert s["costUsd"] == pytest.approx(2 * 0.005 + 3 * 0.001 + (1_000 * 0.75 + 200 * 3.75) / 1e6)
    assert b.remaining("searches") == 0 and b.remaining("llmCalls") == 12


def test_a_zero_budget_refuses_the_first_call():
    assert budget(llm_calls=0).reserve("llmCalls") is False


def test_concurrent_reservations_never_exceed_the_budget(tmp_path):
    memory = SqliteMemory(tmp_path / "m.sqlite3")
    granted = concurrently(
        lambda: [budget(memory, recognitions=50).reserve("recognitions") for _ in range(20)], threads=8
    )
    assert sum(mine.count(True) for mine in granted) == 50
    assert budget(memory, recognitions=50).summary()["recognitions"] == 50


def test_a_refund_gives_back_the_unit_and_its_spend_and_counts_the_call_as_throttled():
    # Given two searches reserved
    b = budget(searches=2)
    assert b.reserve("searches") and b.reserve("searches")
    # When the provider throttled the second one and its reservation is given back
    assert b.refund("searches", "reservation-2") is True
    # Then one search is billed, one is counted throttled, and the budget has room for one more
    s = b.summary()
    assert (s["searches"], s["throttledSearches"]) == (1, 1)
    assert s["costUsd"] == pytest.approx(0.005)
    assert b.reserve("searches") is True and b.reserve("searches") is False


def test_a_reservation_is_given_back_once_however_often_the_refund_is_repeated():
    # Given one reservation given back
    b = budget(recognitions=5)
    for _ in range(3):
        b.reserve("recognitions")
    assert b.refund("recognitions", "k1") is True
    # When the same refund is written again (a retried write, a re-run of its step)
    again = [b.refund("recognitions", "k1") for _ in range(3)]
    # Then nothing more is given back
    assert again == [False, False, False]
    s = b.summary()
    assert (s["recognitions"], s["throttledRecognitions"]) == (2, 1)
    assert s["costUsd"] == pytest.approx(2 * 0.001)


def test_a_run_may_retry_as_many_throttled_answers_as_its_budget_and_no_more():
    b = budget(llm_calls=3)
    assert [b.note_throttled("llmCalls") for _ in range(5)] == [True, True, True, False, False]
    assert b.summary()["throttledLlmCalls"] == 3


def test_concurrent_refunds_of_one_reservation_give_it_back_once(tmp_path):
    memory = SqliteMemory(tmp_path / "m.sqlite3")
    b = budget(memory, searches=10)
    for _ in range(4):
        b.reserve("searches")
    results = concurrently(lambda: budget(memory, searches=10).refund("searches", "the-one"), threads=8)
    assert results.count(True) == 1
    assert b.summary()["searches"] == 3
