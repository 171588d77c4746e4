"""`visual-degrees bench` end to end on the bundled world: the real state machine, the local engine,
sandbox providers, every answer checked against the simulator's ground truth."""

from __future__ import annotations

import json

import pytest

from visual_degrees_tools import cli
from visual_degrees_tools.bench import CONTRACT_KEYS
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR


def bench(capsys, *args: str) -> tuple[int, dict, str]:
    code = cli.main(["bench", *args])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if out.out.strip().startswith("{") else {}), out.err


def test_a_small_bench_prints_the_contract_figures_as_one_json_object(capsys):
    # Given four pairs sampled from the bundled world, When the default strategy is benchmarked
    code, figures, err = bench(capsys, "--sample", "4", "--seed", "3", "--json")
    # Then stdout is one JSON object carrying every contract key, and no reported path is false
    assert code == 0
    assert set(CONTRACT_KEYS) <= set(figures)
    assert figures["pairs"] == 4 and figures["strategy"] == "default"
    assert figures["false_paths"] == 0
    assert 0 <= figures["solved"] <= 4 and 0.0 <= figures["success_rate"] <= 1.0
    assert figures["mean_search_calls"] <= 20 and figures["mean_llm_calls"] <= 12  # default budgets
    # And progress went to stderr
    assert "4/4 runs" in err


def test_report_plot_and_runs_are_written_to_out(capsys, tmp_path):
    code, figures, _ = bench(
        capsys, "--sample", "3", "--seed", "1", "--strategy", "seed", "--json", "--out", str(tmp_path)
    )
    assert code == 0 and figures["strategy"] == "seed"
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| success_rate |" in report and "visual-degrees bench" in report
    assert (tmp_path / "plot.png").read_bytes().startswith(b"\x89PNG")
    runs = [json.loads(line) for line in (tmp_path / "runs-seed.jsonl").read_text().splitlines()]
    assert len(runs) == 3 and {"a", "b", "outcome", "cost_usd", "solvable"} <= set(runs[0])
    saved = json.loads((tmp_path / "figures.json").read_text())
    assert saved["sections"]["seed"]["pairs"] == 3


def test_pairs_file_in_display_names_runs_each_pair_and_judges_it(capsys, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "\n".join(json.dumps({"a": a, "b": b}) for a, b in (EXAMPLE_PAIR, FAR_PAIR)), encoding="utf-8"
    )
    code, figures, _ = bench(capsys, "--pairs", str(pairs), "--json", "--out", str(tmp_path / "out"))
    assert code == 0 and figures["pairs"] == 2
    runs = [json.loads(line) for line in (tmp_path / "out" / "runs-default.jsonl").read_text().splitlines()]
    assert [(r["a"], r["b"]) for r in runs] == [EXAMPLE_PAIR, FAR_PAIR]
    for r in runs:  # every reported path was checked photo by photo
        assert r["outcome"] != "path" or r["true_path"] is True


def test_a_repeated_question_costs_nothing_with_memory_shared_across_runs(capsys, tmp_path):
    # Given the same question asked twice, with one memory for both runs (cross-run reuse)
    pairs = tmp_path / "pairs.jsonl"
    line = json.dumps({"a": EXAMPLE_PAIR[0], "b": EXAMPLE_PAIR[1]})
    pairs.write_text(f"{line}\n{line}\n", encoding="utf-8")
    code, figures, _ = bench(
        capsys, "--pairs", str(pairs), "--shared-memory", "--json", "--out", str(tmp_path / "o")
    )
    first, second = (json.loads(x) for x in (tmp_path / "o" / "runs-default.jsonl").read_text().splitlines())
    # Then both runs answer, the second from the evidence the first verified, paying nothing
    assert code == 0 and figures["shared_memory"] is True
    assert first["outcome"] == second["outcome"] == "path" and second["true_path"] is True
    assert first["cost_usd"] > 0 and second["cost_usd"] == 0 and second["searches"] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--pairs", "/nonexistent/pairs.jsonl"],
        ["--sample", "2", "--knobs", "no_such_knob=on"],
        ["--sample", "2", "--knobs", "both_ends=maybe"],
        ["--sample", "2", "--world", "/nonexistent/world.txt"],
    ],
)
def test_bad_input_is_one_clear_message_and_exit_code_2(capsys, args):
    code, _, err = bench(capsys, *args)
    assert code == 2
    assert err.startswith("visual-degrees: error:") and "Traceback" not in err


def test_a_tier_on_either_web_says_which_it_benchmarked_and_how_far_each_path_was(capsys, tmp_path):
    # Given famous pairs of the bundled world on the clean web, and the same on the default web
    code, clean, _ = bench(
        capsys, "--sample", "3", "--tier", "famous", "--web", "clean", "--json", "--out", str(tmp_path)
    )
    assert code == 0
    code, realistic, _ = bench(capsys, "--sample", "3", "--tier", "famous", "--json")
    assert code == 0
    # Then the figures name the tier and the web, and split the solved pairs by path excess
    assert (clean["tier"], clean["web"]) == ("famous", "clean")
    assert (realistic["tier"], realistic["web"]) == ("famous", "realistic")
    for figures in (clean, realistic):
        excess = figures["path_excess_distribution"]
        assert sum(v["pairs"] for v in excess.values()) == figures["solved"] - figures["solved_unsolvable"]
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    if clean["solved"]:
        assert "path excess of solved pairs (found − shortest hops): +0" in report


def test_a_tier_is_for_sampled_pairs_only(capsys, tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"a": EXAMPLE_PAIR[0], "b": EXAMPLE_PAIR[1]}) + "\n", encoding="utf-8")
    code, _, err = bench(capsys, "--pairs", str(pairs), "--tier", "famous")
    assert code == 2 and "--tier chooses whom --sample draws from" in err


def test_pairs_and_sample_together_are_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exited:
        cli.main(["bench", "--pairs", "p.jsonl", "--sample", "3"])
    assert exited.value.code == 2


def test_a_second_pass_over_the_same_pairs_reports_only_that_pass():
    # Given three pairs asked twice on one memory
    from visual_degrees_tools.bench import Bench, BenchConfig, sample_pairs
    from visual_degrees_tools.local.environments import sandbox_environment

    environment = sandbox_environment(None, web="clean")  # its first pass solves some of these pairs
    pairs = sample_pairs(environment.web, 3, seed=4)
    bench = Bench(environment)
    first = bench.run(pairs, BenchConfig(shared_memory=True))
    again = bench.run(pairs, BenchConfig(shared_memory=True, passes=2))
    # Then the figures describe the second pass: same pairs, and every pair solved the first time is
    # answered from remembered evidence without a paid search
    assert again.figures["pairs"] == 3 and again.figures["passes"] == 2
    solved_first = {r.a for r in first.records if r.solved}
    assert solved_first, "the bundled world should let the default solve some of these pairs"
    assert all(r.searches == 0 and r.cost_usd == 0 for r in again.records if r.a in solved_first)


def test_a_stream_runs_on_one_memory_and_prints_the_cost_by_tens_with_a_plot(capsys, tmp_path):
    # Given a stream of 12 questions about the bundled world's most credited people
    code, figures, _ = bench(capsys, "--stream", "12", "--seed", "2", "--json", "--out", str(tmp_path / "o"))
    # Then every question ran on one memory, the cost curve has a point per ten, and it is plotted
    assert code == 0 and figures["shared_memory"] is True and figures["pairs"] == 12
    assert len(figures["stream_cost_by_tens"]) == 2 and figures["stream_compared"] == 6
    assert figures["stream_top"] == 400 and (tmp_path / "o" / "stream.png").stat().st_size > 0
