import threading

import pytest

from visual_degrees.domain.costs import CostTable
from visual_degrees.domain.models import Budgets
from visual_degrees.lifecycle.budget import Budget
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory


def budget(memory=None, **limits) -> Budget:
    return Budget(memory or SqliteMemory(":memory:"), "r1", Budgets(**limits), CostTable(), ttl_seconds=600)


def test_reservations_stop_exactly_at_the_limit_and_cost_is_counted():
    b = budget(searches=2, recognitions=3)
    assert [b.reserve("searches") for _ in range(3)] == [True, True, False]
    assert [b.reserve("recognitions") for _ in range(4)] == [True, True, True, False]
    b.record_llm_tokens(1_000, 200)
    s = b.usage()
    assert (s.searches, s.recognitions) == (2, 3)
    assert s.cost_usd == pytest.approx(2 * 0.005 + 3 * 0.001 + (1_000 * 0.75 + 200 * 3.75) / 1e6)
    assert b.remaining("searches") == 0 and b.remaining("llmCalls") == 12


def test_a_zero_budget_refuses_the_first_call():
    assert budget(llm_calls=0).reserve("llmCalls") is False


def test_concurrent_reservations_never_exceed_the_budget(tmp_path):
    memory = SqliteMemory(tmp_path / "m.sqlite3")
    granted: list[bool] = []
    lock = threading.Lock()

    def worker() -> None:
        mine = [budget(memory, recognitions=50).reserve("recognitions") for _ in range(20)]
        with lock:
            granted.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert granted.count(True) == 50
    assert budget(memory, recognitions=50).usage().recognitions == 50
