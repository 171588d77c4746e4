"""`visual-degrees hunches [RUN_ID ...]`: what the planner's suggestions came to in past local runs:
how many it made, how many a search checked, how many a photo proved; the figure an operator
compares planner models by."""

from __future__ import annotations

import json
import re

import pytest

from tests.integration.test_cli_show import expire_run_memory
from visual_degrees_tools.cli import main
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR


def ran(capsys: pytest.CaptureFixture[str], a: str, b: str) -> tuple[str, str]:
    assert main(["run", a, b]) == 0
    out = capsys.readouterr().out
    return out, re.search(r"run id (\S+)", out)[1]


def hunches_said(out: str) -> int:
    """How many hunches the run's printed events announced ("…; and 3 more" counts 3)."""
    total = 0
    for line in re.findall(r"Hunches to check with photos: (.*)", out):
        total += line.count("might have worked with")
        more = re.search(r"and (\d+) more$", line)
        total += int(more[1]) if more else 0
    return total


def test_each_run_counts_the_hunches_it_announced_and_the_photos_that_proved_them(state_dir, capsys) -> None:
    # Given two runs, one whose planner was asked
    far, far_id = ran(capsys, *FAR_PAIR)
    near, near_id = ran(capsys, *EXAMPLE_PAIR)
    assert hunches_said(far) > 0

    # When the user asks what the planner's hunches came to, as JSON
    assert main(["hunches", "--json", far_id, near_id]) == 0
    shown = json.loads(capsys.readouterr().out)

    # Then each run lists the hunches its events announced, in the order asked
    runs = shown["runs"]
    assert [r["runId"] for r in runs] == [far_id, near_id]
    for run, out in zip(runs, (far, near), strict=True):
        assert len(run["hunches"]) == hunches_said(out)
        # and a hunch counted as proven is a pair the run showed a photo of
        for hunch in run["hunches"]:
            if hunch["linked"]:
                photos = re.findall(r"\] photo\s+(.*)", out)
                assert any(hunch["a"] in p and hunch["b"] in p for p in photos)
    # and the totals add the runs up, a proven check never more than the checks
    total = shown["total"]
    assert total["hunches"] == sum(len(r["hunches"]) for r in runs)
    assert total["searched"] == sum(h["searched"] for r in runs for h in r["hunches"])
    assert 0 <= total["searched_and_linked"] <= total["searched"] <= total["hunches"]


def test_without_run_ids_the_recent_runs_are_read_and_the_share_proven_is_said(state_dir, capsys) -> None:
    _, run_id = ran(capsys, *FAR_PAIR)
    assert main(["hunches"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["hunches", "checked", "proven", "people", "run", "id"]
    assert lines[1].endswith(run_id) and f"{FAR_PAIR[0]} → {FAR_PAIR[1]}" in lines[1]
    assert re.fullmatch(
        r"\d+ hunches; \d+ checked with a search, \d+ of them proven by a photo( \(\d+%\))?", lines[-1]
    )


def test_a_run_whose_memory_has_expired_is_listed_as_such_and_counts_nothing(state_dir, capsys) -> None:
    _, run_id = ran(capsys, *FAR_PAIR)
    expire_run_memory(state_dir)
    assert main(["hunches", run_id]) == 0
    out = capsys.readouterr().out
    assert "(its memory has expired)" in out
    assert out.rstrip().endswith("0 hunches; 0 checked with a search, 0 of them proven by a photo")


def test_an_unknown_run_is_refused_with_where_to_find_runs(state_dir, capsys) -> None:
    assert main(["hunches"]) == 2
    assert "no local runs yet" in capsys.readouterr().err
    ran(capsys, *EXAMPLE_PAIR)
    assert main(["hunches", "20260101T000000-000000"]) == 2
    assert "no run '20260101T000000-000000' here" in capsys.readouterr().err
