from __future__ import annotations

import pytest

from visual_degrees_tools.bench.metrics import (
    CONTRACT_KEYS,
    RunRecord,
    cost_success_curve,
    percentile,
    summarize,
)


def run(
    outcome: str = "no_path", *, shortest: int | None = 3, true_path: bool | None = None, **kw
) -> RunRecord:
    defaults = {"a": "A", "b": "B", "reason": None if outcome == "path" else "budget"}
    meant = kw.pop("meant", True if outcome == "path" else None)
    return RunRecord(
        shortest=shortest,
        solvable=shortest is not None,
        outcome=outcome,
        true_path=true_path,
        meant=meant,
        **{**defaults, **kw},
    )


def test_percentiles_are_nearest_rank():
    values = [5.0, 1.0, 4.0, 2.0, 3.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == 5.0
    assert percentile(values, 20) == 1.0
    assert percentile([7.0], 50) == 7.0
    assert percentile([], 50) == 0.0
    with pytest.raises(ValueError):
        percentile(values, 0)


def test_summary_arithmetic_follows_its_definitions():
    # Given four runs: a solved 4-hop pair whose shortest is 3, a false path, an unsolvable pair
    # solved anyway in 2 hops, and an honest failure on a solvable pair
    records = [
        run(
            "path",
            shortest=3,
            true_path=True,
            hops=4,
            cost_usd=0.02,
            searches=2,
            recognitions=10,
            llm_calls=1,
            state_transitions=10,
            sim_latency_s=4.0,
            cpu_ms=10.0,
        ),
        run(
            "path",
            shortest=2,
            true_path=False,
            hops=2,
            cost_usd=0.04,
            searches=4,
            recognitions=20,
            llm_calls=2,
            state_transitions=20,
            sim_latency_s=8.0,
            cpu_ms=20.0,
        ),
        run(
            "path",
            shortest=None,
            true_path=True,
            hops=2,
            cost_usd=0.06,
            searches=6,
            recognitions=30,
            llm_calls=3,
            state_transitions=30,
            sim_latency_s=12.0,
            cpu_ms=30.0,
        ),
        run(
            "no_path",
            shortest=5,
            cost_usd=0.08,
            searches=8,
            recognitions=40,
            llm_calls=4,
            state_transitions=40,
            sim_latency_s=16.0,
            cpu_ms=40.0,
        ),
    ]
    figures = summarize(records, "default")
    assert list(figures)[: len(CONTRACT_KEYS)] == list(CONTRACT_KEYS)
    # Then: three solvable pairs, two true paths to the people meant, one of them among the solvable
    assert (figures["pairs"], figures["solvable"], figures["solved"]) == (4, 3, 2)
    assert figures["success_rate"] == round(1 / 3, 4)
    assert figures["solved_unsolvable"] == 1
    assert figures["false_paths"] == 1
    # means over every run; excess only over solved solvable pairs (4 - 3)
    assert figures["mean_cost_usd"] == 0.05
    assert figures["mean_search_calls"] == 5.0
    assert figures["mean_recognition_calls"] == 25.0
    assert figures["mean_llm_calls"] == 2.5
    assert figures["mean_state_transitions"] == 25.0
    assert figures["mean_path_excess"] == 1.0
    assert (figures["p50_sim_latency_s"], figures["p95_sim_latency_s"]) == (8.0, 16.0)
    assert figures["cpu_ms_p50"] == 20.0
    assert figures["strategy"] == "default"
    assert figures["solvable_by_distance"] == {
        "2": {"pairs": 1, "solved": 0},
        "3": {"pairs": 1, "solved": 1},
        "5": {"pairs": 1, "solved": 0},
    }
    # the excess distribution counts the same pairs as its mean: one, one hop over the shortest
    assert figures["path_excess_distribution"] == {"1": {"pairs": 1, "share": 1.0}}


def test_the_excess_distribution_gives_the_share_at_the_shortest_and_each_hop_over():
    # Given five solved solvable pairs (excess 0, 0, 0, 1, 3), one unsolved and one unsolvable
    records = [
        run("path", shortest=2, true_path=True, hops=2),
        run("path", shortest=3, true_path=True, hops=3),
        run("path", shortest=1, true_path=True, hops=1),
        run("path", shortest=2, true_path=True, hops=3),
        run("path", shortest=2, true_path=True, hops=5),
        run("no_path", shortest=2),
        run("path", shortest=None, true_path=True, hops=4),
    ]
    figures = summarize(records, "default")
    # Then each excess has its count and its share of the five, at the shortest first
    assert figures["path_excess_distribution"] == {
        "0": {"pairs": 3, "share": 0.6},
        "1": {"pairs": 1, "share": 0.2},
        "3": {"pairs": 1, "share": 0.2},
    }
    assert list(figures["path_excess_distribution"]) == ["0", "1", "3"]
    assert figures["mean_path_excess"] == 0.8
    # And nothing solved gives an empty distribution, not an error
    assert summarize([run("no_path", shortest=2)], "default")["path_excess_distribution"] == {}


def test_an_answer_below_the_ground_truths_shortest_counts_at_the_shortest_never_below():
    # Given a true chain of 2 where the ground truth's graph says 3 (it missed a link the run
    # proved), and one of 4 where it says 3
    records = [
        run("path", shortest=3, true_path=True, hops=2),
        run("path", shortest=3, true_path=True, hops=4),
    ]
    figures = summarize(records, "default")
    # Then the chain of 2 is at the shortest (a true chain is itself provable), not one below it
    assert figures["path_excess_distribution"] == {
        "0": {"pairs": 1, "share": 0.5},
        "1": {"pairs": 1, "share": 0.5},
    }
    assert figures["mean_path_excess"] == 0.5


def test_a_path_to_a_namesake_is_neither_solved_nor_false():
    records = [run("path", true_path=True, meant=False, hops=2)]
    figures = summarize(records, "seed")
    assert (figures["solved"], figures["false_paths"], figures["namesake_paths"]) == (0, 0, 1)


def test_nothing_solvable_gives_a_zero_rate_not_an_error():
    figures = summarize([run(shortest=None)], "seed")
    assert figures["success_rate"] == 0.0 and figures["mean_path_excess"] == 0.0


def test_cost_success_curve_counts_solved_solvable_runs_within_each_cap():
    records = [
        run("path", shortest=2, true_path=True, hops=2, cost_usd=0.01),
        run("path", shortest=3, true_path=True, hops=3, cost_usd=0.03),
        run("no_path", shortest=4, cost_usd=0.10),
        run("no_path", shortest=4, cost_usd=0.10),
    ]
    assert cost_success_curve(records) == [(0.0, 0.0), (0.01, 0.25), (0.03, 0.5), (0.10, 0.5)]
    assert cost_success_curve([run(shortest=None)]) == []
