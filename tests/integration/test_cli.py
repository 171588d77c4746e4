"""The CLI as a user meets it: exit codes, messages, nothing written on bad input, faults survived."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from visual_degrees.cli import main
from visual_degrees.sandbox import EXAMPLE_PAIR, FAR_PAIR

A, B = EXAMPLE_PAIR


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "state"
    monkeypatch.setenv("VISUAL_DEGREES_STATE_DIR", str(path))
    return path


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict]]:
    code = main(["run", *argv, "--json"])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_path_exits_0_and_prints_the_path_with_its_evidence(state_dir, capsys):
    code = main(["run", A, B])
    out = capsys.readouterr().out
    assert code == 0
    assert f"Path (2 hops): {A} → " in out and out.count("image https://") == 2
    assert (state_dir / "memory.sqlite3").exists()


def test_json_lines_are_the_events_in_order(state_dir, capsys):
    code, events = run_json(capsys, *FAR_PAIR)
    assert code == 0
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "final"
    assert events[-1]["data"]["path"][0] == FAR_PAIR[0] and events[-1]["data"]["path"][-1] == FAR_PAIR[1]


def test_an_honest_no_path_exits_3(state_dir, capsys):
    code, events = run_json(capsys, *FAR_PAIR, "--budget-searches", "1")
    assert code == 3
    assert events[-1]["type"] == "no_path" and events[-1]["data"]["exhausted"] == "searches"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["", B], "personA is empty"),
        (["   ", B], "personA is empty"),
        ([A, "x" * 201], "personB is 201 characters long"),
        ([A, "Niall\x1bHalloran"], "control character"),
        ([A, A.upper()], "the same person"),
        ([A, "Nobody Inthisworld"], "is not anyone in this world"),
        ([A, B, "--budget-searches", "many"], "'many' is not a whole number"),
        ([A, B, "--budget-recognitions", "-5"], "'-5' is negative"),
        ([A, B, "--max-hops", "-1"], "'-1' is negative"),
        ([A, B, "--max-hops", "0"], "maxHops"),
        ([A, B, "--budget-runtime", "nan"], "positive number of seconds"),
        ([A, B, "--world", "/no/such/world.txt"], "no such file"),
        ([A, B, "--faults", "gremlins=0.5"], "unknown fault 'gremlins'"),
    ],
)
def test_bad_input_exits_2_with_one_clear_message_and_writes_nothing(state_dir, capsys, argv, message):
    with pytest.raises(SystemExit) as exited:  # argparse's own refusals exit with 2 as well
        raise SystemExit(main(["run", *argv]))
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert message in err
    assert "Traceback" not in err
    assert not state_dir.exists()


def test_a_malformed_world_file_is_refused_with_its_line_number(state_dir, capsys, tmp_path):
    world = tmp_path / "world.jsonl"
    world.write_text('{"title": "Gala", "people": ["Ann Lee", "Bob Ray"]}\n{"title": 5}\n')
    assert main(["run", "Ann Lee", "Bob Ray", "--world", str(world)]) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and not state_dir.exists()


def test_persistent_search_faults_end_in_an_error_event_not_a_crash(state_dir, capsys):
    code, events = run_json(capsys, A, B, "--faults", "search_5xx=1.0")
    assert code == 1
    assert events[-1]["type"] == "error" and events[-1]["data"]["code"] == "provider_unavailable"


@pytest.mark.parametrize("seed", range(4))
def test_intermittent_faults_are_survived_within_budget(state_dir, capsys, seed):
    faults = (
        "search_5xx=0.3,fetch_timeout=0.2,dead_link=0.2,webp=0.3,recognize_throttle=0.2,planner_error=0.3"
    )
    code, events = run_json(capsys, *FAR_PAIR, "--faults", faults, "--seed", str(seed))
    final = events[-1]
    assert code in (0, 1, 3)
    assert final["type"] in ("final", "no_path", "error")
    usage = final["data"].get("usage")
    if usage:
        assert usage["searches"] <= 20 and usage["recognitions"] <= 120 and usage["llmCalls"] <= 12


def test_trace_prints_the_execution_history_of_a_past_run(state_dir, capsys):
    main(["run", A, B])
    run_id = capsys.readouterr().out.strip().splitlines()[-1].split()[2]
    assert main(["trace"]) == 0
    assert run_id in capsys.readouterr().out
    assert main(["trace", run_id]) == 0
    out = capsys.readouterr().out
    assert "S0_InitializeSession" in out and "S6_FinalizeSuccess" in out and "ExecutionSucceeded" in out
    assert main(["trace", "no-such-run"]) == 2
