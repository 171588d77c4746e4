"""The operator's ceilings on the local server (issue 9.7): `serve` options set them, a startRun
above one is refused with `above_ceiling` naming the limit, nothing is started; the CLI's `run`
(whose user is the operator) keeps accepting any valid budget."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from tests.support.ws_client import WsClient
from tests.support.ws_server import running_server
from visual_degrees.domain.ceilings import RunCeilings
from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.commands import serve
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

A, B = EXAMPLE_PAIR
ISSUE_BUDGETS = {"searches": 10_000, "recognitions": 100_000, "runtimeSeconds": 3_600}


def test_the_issues_budgets_are_refused_by_default_naming_each_limit(tmp_path: Path) -> None:
    with running_server(tmp_path) as srv, WsClient(srv.ws_url) as client:
        # When a client asks for 10,000 searches, 100,000 recognitions and an hour
        reply = client.start(A, B, budgets=ISSUE_BUDGETS)

        # Then it is refused with a stable code, naming each limit and the ceiling it passed
        assert (reply["type"], reply["code"], reply["action"]) == ("error", "above_ceiling", "startRun")
        for named in (
            "options.budgets.searches: 10,000 is above the operator's ceiling of 100",
            "options.budgets.recognitions: 100,000 is above the operator's ceiling of 600",
            "options.budgets.runtimeSeconds: 3,600 is above the operator's ceiling of 600",
        ):
            assert named in reply["message"]
        # And the connection stays usable: a run within the ceilings is accepted
        accepted = client.start(A, B, budgets={"searches": 100})
        assert accepted["type"] == "runAccepted"
        assert client.events_until_terminal(accepted["runId"])[-1]["type"] == "final"


def test_ceilings_set_by_the_operator_bind_hops_images_and_every_budget(tmp_path: Path) -> None:
    ceilings = RunCeilings.model_validate(
        {"maxHops": 4, "imagesPerSearch": 5, "budgets": {"searches": 30, "llmCalls": 5}}
    )
    with running_server(tmp_path, ceilings=ceilings) as srv, WsClient(srv.ws_url) as client:
        refused = [
            client.start(A, B, maxHops=5),
            client.start(A, B, imagesPerSearch=6),
            client.start(A, B, budgets={"searches": 31}),
            client.start(A, B, budgets={"llmCalls": 6}),
        ]
        assert [r["code"] for r in refused] == ["above_ceiling"] * 4
        assert "options.maxHops: 5 is above the operator's ceiling of 4" in refused[0]["message"]
        assert client.start(A, B, maxHops=4, budgets={"searches": 30})["type"] == "runAccepted"
        # And a default above a ceiling (12 LLM calls; the ceiling is 5) is brought down to it: a
        # request without options is served, not refused for what the client never asked
        accepted = client.start(A, B)
        started = client.events_until_terminal(accepted["runId"])[0]["data"]["options"]
        assert (started["maxHops"], started["imagesPerSearch"]) == (4, 5)
        assert started["budgets"]["llmCalls"] == 5
        assert (started["budgets"]["searches"], started["budgets"]["recognitions"]) == (20, 120)


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    serve.configure(parser)
    return parser.parse_args(list(argv))


def test_serve_options_set_the_ceilings_and_default_to_five_times_the_budgets() -> None:
    assert serve.ceilings_of(_serve_args()) == RunCeilings()
    given = serve.ceilings_of(
        _serve_args(
            "--max-budget-searches", "40", "--max-budget-recognitions", "200", "--max-budget-llm", "8",
            "--max-budget-runtime", "90", "--max-hops-ceiling", "5", "--max-images-per-search", "8",
        )
    )  # fmt: skip
    assert given.dump() == {
        "maxHops": 5,
        "imagesPerSearch": 8,
        "budgets": {"searches": 40, "recognitions": 200, "llmCalls": 8, "runtimeSeconds": 90.0},
    }


def test_serve_help_states_the_default_ceilings() -> None:
    parser = argparse.ArgumentParser()
    serve.configure(parser)
    text = " ".join(parser.format_help().split())
    defaults = RunCeilings()
    for phrase in (
        f"image searches (default {defaults.budgets.searches})",
        f"face recognitions (default {defaults.budgets.recognitions})",
        f"planner (LLM) calls (default {defaults.budgets.llm_calls})",
        f"runtime (default {defaults.budgets.runtime_seconds:g})",
        f"maxHops (default {defaults.max_hops})",
        f"imagesPerSearch (default {defaults.images_per_search})",
    ):
        assert phrase in text


def test_a_ceiling_out_of_range_is_bad_input() -> None:
    with pytest.raises(InvalidInput, match="maxHops"):
        serve.ceilings_of(_serve_args("--max-hops-ceiling", "11"))
