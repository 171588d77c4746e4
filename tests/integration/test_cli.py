"""The CLI as a user meets it: exit codes, messages, nothing written on bad input, faults survived."""

from __future__ import annotations

import argparse
import re

import pytest

from tests.support.cli_runs import run_json
from visual_degrees_tools.cli import main
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR

A, B = EXAMPLE_PAIR


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
        ([A, "Niall Haloran"], "'Niall Haloran' is not anyone in this world (did you mean Niall Halloran?)"),
        ([A, B, "--budget-searches", "many"], "'many' is not a whole number"),
        ([A, B, "--budget-recognitions", "-5"], "error: --budget-recognitions must be between 0 and 100000"),
        ([A, B, "--max-hops", "-1"], "error: --max-hops must be between 1 and 10\n"),
        ([A, B, "--max-hops", "0"], "error: --max-hops must be between 1 and 10\n"),
        ([A, B, "--threshold", "40"], "error: --threshold must be between 50 and 100\n"),
        ([A, B, "--budget-shorten-min", "5"], "error: --budget-shorten-min must be between 0 and 0.1 USD\n"),
        ([A, B, "--budget-runtime", "0"], "--budget-runtime must be more than 0 and at most 3600 seconds"),
        ([A, B, "--budget-runtime", "nan"], "'nan' is not a finite number"),
        ([A, B, "--budget-searches", "0"], "--budget-searches must be at least 1 to start a run"),
        ([A, B, "--budget-recognitions", "0"], "--budget-recognitions must be at least 1 to start a run"),
        ([A, B, "--budget-runtime", "2"], "--budget-runtime must be at least 5 seconds to start a run"),
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


def test_a_run_says_its_counts_in_words_and_that_sandbox_time_is_simulated(state_dir, capsys):
    # A second run of the same pair is answered from remembered evidence: nothing spent, one of each
    # noun never reads "1 hops" or "1 LLM calls"
    main(["run", A, B, "--max-hops", "2"])
    out = capsys.readouterr().out
    assert "(1 hops)" not in out and "1 LLM calls" not in out and "1 searches" not in out
    assert " LLM call" in out
    spent = next(line for line in out.splitlines() if line.startswith("Spent: "))
    assert " · simulated " in spent and spent.endswith(" s")


@pytest.mark.parametrize("where", ["before", "after"])
def test_state_dir_may_come_before_or_after_the_command(tmp_path, capsys, where):
    place = tmp_path / where
    argv = ["run", A, B, "--state-dir", str(place)]
    if where == "before":
        argv = ["--state-dir", str(place), "run", A, B]
    assert main(argv) == 0
    assert (place / "memory.sqlite3").exists()
    capsys.readouterr()
    assert main(["trace", "--state-dir", str(place)]) == 0 and A in capsys.readouterr().out


def test_trace_lists_runs_with_their_world_and_start_and_shows_tasks_and_simulated_time(
    state_dir, capsys, tmp_path
):
    # Given two runs of one pair, in the bundled world and in another world file
    world = tmp_path / "two-galas.jsonl"
    world.write_text(
        f'{{"title": "Gala (2001)", "people": ["{A}", "Ann Lee"]}}\n'
        f'{{"title": "Gala (2002)", "people": ["Ann Lee", "{B}"]}}\n',
        encoding="utf-8",
    )
    main(["run", A, B])
    main(["run", A, B, "--world", str(world), "--seed", "3"])
    capsys.readouterr()

    # When the user lists them
    assert main(["trace"]) == 0
    listing = capsys.readouterr().out.splitlines()
    # Then the two rows tell the worlds apart, with the start time of each
    assert listing[0].split()[:4] == ["started", "world", "outcome", "people"]
    assert "two-galas.jsonl seed 3" in listing[1] and "bundled" in listing[2]
    assert all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  ", row) for row in listing[1:])

    # When they read one run's history
    run_id = listing[1].split()[-1]
    assert main(["trace", run_id]) == 0
    history = capsys.readouterr().out
    # Then each task says which step runs it, and times are simulated seconds, not 2024 dates
    assert "${" not in history and "step initialize_session" in history
    assert "2024-01-01" not in history and "simulated" in history
    assert re.search(r"^\s+1\s+\+0\.000 s\s+ExecutionStarted", history, re.MULTILINE)


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--help"])
    assert exited.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", ["run", "trace", "doctor", "serve", "bench"])
def test_every_option_has_a_line_of_help_and_its_default(capsys, command):
    from visual_degrees_tools.cli import _commands, build_parser

    parser = build_parser(_commands())
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    text = " ".join(_help(capsys, command).split())
    for action in sub._actions:
        assert action.help, f"{command} {action.dest} has no help"
        if action.default not in (None, False, argparse.SUPPRESS) and action.dest != "help":
            shown = " ".join(sub.formatter_class("x")._get_help_string(action).split()) % {
                "default": action.default
            }
            assert "default" in shown and shown in text, (command, action.dest)


def test_help_shows_what_a_newcomer_looks_for(capsys):
    run = " ".join(_help(capsys, "run").split())
    assert "A the first person" in run and "B the second person" in run
    for option in ("--max-hops N longest chain accepted, 1 to 10 hops (default: 6)", "(default: 80)"):
        assert option in run
    assert "--providers {sandbox,live}" in run and "(default: sandbox)" in run
    serve = " ".join(_help(capsys, "serve").split())
    assert "(default: 8765)" in serve and "(default: 127.0.0.1)" in serve
    top = _help(capsys)
    assert 'visual-degrees run "Vesna Hawthorne" "Niall Halloran"' in top


def test_version(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0 and capsys.readouterr().out.startswith("visual-degrees ")


def test_a_bare_command_prints_the_help(capsys):
    assert main([]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: visual-degrees") and "start here:" in out


def test_a_run_that_ran_out_of_budget_says_how_to_continue_it_and_continues(state_dir, capsys):
    # Given a run that ran out of searches, on the clean web (where the hint links both ends)
    code = main(["run", A, B, "--web", "clean", "--budget-searches", "1"])
    out = capsys.readouterr().out
    run_id = re.search(r"run id (\S+)", out)[1]
    assert code == 3
    assert f"continue with: visual-degrees run --continue {run_id} --budget-searches 20" in out
    # When it is continued from the command line, with a hint
    code = main(["run", "--continue", run_id, "--budget-searches", "5", "--via", "Dorian Ivesdale"])
    out = capsys.readouterr().out
    # Then it goes on in the same log, finds the chain, says what became of the hint and what each
    # part of the run spent
    assert code == 0
    assert re.search(r"\[\s*\d+\] continued   Continuing with 5 more searches", out)
    assert "Your hint, Dorian Ivesdale: Confirmed" in out
    assert "Spent (first run): 1 search ·" in out
    assert "Spent (continuation 1): " in out and "Spent in total: " in out
    # And the trace shows both executions, and the list of runs says it was continued
    assert main(["trace", run_id]) == 0
    trace = capsys.readouterr().out
    assert f"Run {run_id}: {A} → {B}" in trace
    assert f"continuation 1 (execution {run_id}--c1)" in trace
    assert main(["trace"]) == 0
    assert "path (continued)" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-hops", "3"], "--max-hops cannot change when continuing a run"),
        (["--via", A], "via must be someone other than"),
        (["--via", "Dorian Ivesdalle"], "is not anyone in this world (did you mean Dorian Ivesdale?)"),
        (["--budget-searches", "-1"], "--budget-searches must be between 0 and 10000"),
    ],
)
def test_a_continuation_is_refused_with_one_clear_message(state_dir, capsys, argv, message):
    main(["run", A, B, "--budget-searches", "1"])
    run_id = re.search(r"run id (\S+)", capsys.readouterr().out)[1]
    code = main(["run", "--continue", run_id, *argv])
    captured = capsys.readouterr()
    assert code == 2
    assert message in captured.err
    assert "run_continued" not in captured.out


def test_only_a_run_that_ran_out_of_budget_is_continued(state_dir, capsys):
    main(["run", A, B])
    run_id = re.search(r"run id (\S+)", capsys.readouterr().out)[1]
    assert main(["run", "--continue", run_id]) == 2
    assert f"run {run_id} cannot be continued: The run already found a chain." in capsys.readouterr().err
    assert main(["run", "--continue", "20260101T000000-000000"]) == 2
    assert "no run '20260101T000000-000000'" in capsys.readouterr().err
    assert main(["run"]) == 2
    assert "name two people, A and B (or continue a run: --continue RUN_ID)" in capsys.readouterr().err


def test_the_clean_web_is_asked_for_by_name_and_a_continuation_stays_on_it(state_dir, capsys):
    # Given the example pair asked on the default (realistic) web and on the clean web
    code, realistic = run_json(capsys, A, B)
    assert code == 0
    main(["run", A, B, "--web", "clean", "--budget-searches", "1"])
    run_id = re.search(r"run id (\S+)", capsys.readouterr().out)[1]
    # When the clean run is continued without saying which web
    code = main(["run", "--continue", run_id, "--budget-searches", "5"])
    out = capsys.readouterr().out
    # Then it goes on on the clean web it was made on (another web would be refused, exit 2) and
    # finds the clean web's chain, which the realistic web's answer is not
    assert code == 0
    assert "Vesna Hawthorne → Dorian Ivesdale → Niall Halloran" in out
    assert realistic[-1]["data"]["path"] != ["Vesna Hawthorne", "Dorian Ivesdale", "Niall Halloran"]
    # And a continuation on the other web is refused, saying what to pass
    main(["run", A, B, "--web", "clean", "--budget-searches", "1"])
    run_id = re.search(r"run id (\S+)", capsys.readouterr().out)[1]
    assert main(["run", "--continue", run_id, "--web", "realistic"]) == 2
    assert "pass the --world (and --seed, --faults, --web) it was made with" in capsys.readouterr().err


def test_serve_refuses_an_unsent_bytes_cap_below_one_frame(state_dir, capsys):
    assert main(["serve", "--max-unsent-bytes", "1000"]) == 2
    assert "--max-unsent-bytes must be at least 131072 (one frame)" in capsys.readouterr().err
    assert not state_dir.exists()
