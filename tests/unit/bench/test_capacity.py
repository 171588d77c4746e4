"""The capacity model on hand-made per-run figures: which quota binds, what repeats change, what a
question costs on Standard and on Express."""

from __future__ import annotations

import pytest

from visual_degrees_tools.bench.capacity import Quotas, binding, capacity, costs, per_run


def figures(searches: int, recognitions: int, planner: int = 0, transitions: int = 10) -> dict:
    """One run as scripts/aws_figures.py --runs --json reports it."""
    return {
        "outcome": "final",
        "provider_calls": {"search": searches, "recognize": recognitions, "planner": planner, "fetch": 0},
        "state_transitions": transitions,
        "lambda_invocations_with_routes": 8,
        "lambda_seconds_estimate": 3.6,
        "lambda_gb_seconds_estimate": 3.0,
        "sim_seconds": 3.0,
        "dynamodb_rru": 200,
        "dynamodb_wru": 150,
        "post_to_connection": 12,
    }


RUN = per_run([figures(1, 4), figures(3, 8)])  # 2 searches and 6 recognitions a run on average


def test_per_run_figures_are_means_and_the_limiter_adds_two_writes_a_paid_call():
    assert (RUN["searches"], RUN["recognitions"], RUN["llm calls"]) == (2, 6, 0)
    assert RUN["dynamodb WRU (limiter)"] == 2 * (2 + 6)
    assert RUN["runs measured"] == 2 and RUN["solved"] == 2


def test_the_scarcest_quota_binds_first():
    # 5 recognitions a second for 6 a question: 3,000 an hour, far below search's 50 a second
    limits = capacity(RUN, Quotas(search_rps=50, recognition_rps=5), repeat=0.0)
    assert binding(limits) == "recognition"
    assert limits["recognition"] == pytest.approx(5 * 3600 / 6)
    assert limits["search"] == pytest.approx(50 * 3600 / 2)
    assert limits["llm"] == float("inf")  # no planner call in these runs
    assert limits["lambda concurrency"] == pytest.approx(1000 * 3600 / 3.6)
    # with 50 recognitions a second, search binds instead
    assert binding(capacity(RUN, Quotas(search_rps=3, recognition_rps=50), repeat=0.0)) == "search"


def test_repeats_answered_from_memory_multiply_what_the_providers_allow():
    quotas = Quotas(search_rps=50, recognition_rps=5)
    first, repeated = capacity(RUN, quotas, repeat=0.0), capacity(RUN, quotas, repeat=0.8)
    assert repeated["recognition"] == pytest.approx(5 * first["recognition"])
    assert repeated["lambda concurrency"] == first["lambda concurrency"]  # the workflow still runs


def test_express_costs_a_request_and_its_seconds_standard_its_transitions():
    price = costs(RUN, repeat=0.0)
    assert price["step functions standard"] == pytest.approx(10 * 0.025 / 1000)
    assert price["step functions express"] == pytest.approx(1e-6 + 3.0 * (64 / 1024) * 0.00001667)
    assert price["providers"] == pytest.approx(2 * 0.005 + 6 * 0.001)
    assert costs(RUN, repeat=0.5)["providers"] == pytest.approx(price["providers"] / 2)
