"""Issue 13's figures: how many of `default`'s budget-ended runs one continuation solves, at what cost,
and how many a correct hint solves.

    python scripts/continue_figures.py --world ../shared/data/worlds/cast.G.txt      # 200 pairs, seed 11
    python scripts/continue_figures.py --world … --report docs/benchmarks/continue-cast.G.md --out DIR

The pairs are the benchmark's (`visual-degrees bench --sample 200 --seed 11`: the same sample, the
same photo web, default options, a fresh run memory per pair). Each run that ended `no_path` because
a budget ran out is continued once with `--more-searches` (20) more searches and the run's own other
budgets again (120 recognitions, 12 LLM calls, 120 s), exactly as `visual-degrees run --continue
RUN_ID --budget-searches 20` does. Then, for each of those runs that is solvable (its ends at most max
hops apart in the simulator's provable graph, and not one photo apart), the same first run is made
again in a fresh memory and continued the same way with a correct hint: someone on a true shortest
chain between the two, the one nearest its middle and, among those, named in the most captions (the
connector a person who knows them would name). For comparison, each of those pairs is also run once
from scratch with the two budgets together (40 searches). Every reported path is checked edge by
edge against the ground truth, and every provider call is counted: a continuation must search no
query and recognise no image twice. Benchmark-only: the hint is read from the photo web's ground
truth, which no strategy may see.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import mean
from typing import Any

from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.ports import Providers
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import BenchPair, Truth, machine_state, sample_pairs
from visual_degrees_tools.bench.counting import Counting
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.environments import SandboxEnvironment, sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult

WORLDS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "worlds"


class Counted:
    """A run environment whose providers count into one tally (one per pair and attempt)."""

    def __init__(self, sandbox: SandboxEnvironment) -> None:
        self.sandbox = sandbox
        self.searches: Counter[str] = Counter()
        self.recognised: Counter[str] = Counter()

    def __call__(self, run_id: str) -> RunEnvironment:
        env = self.sandbox(run_id)
        counting = Counting(env.providers, self.searches, self.recognised)
        providers = Providers(counting, counting, counting, env.providers.planner, web=env.providers.web)
        return replace(env, providers=providers)

    def repeats(self) -> tuple[int, int]:
        """(searches, recognitions) made more than once, across the run's segments."""
        return (
            sum(n - 1 for n in self.searches.values()),
            sum(n - 1 for n in self.recognised.values()),
        )


@dataclass
class Attempt:
    """One first run on a fresh memory, ready to be continued."""

    runner: LocalRunner
    counted: Counted
    first: RunResult
    memory: SqliteMemory

    @property
    def data(self) -> dict[str, Any]:
        return self.first.final.data if self.first.final is not None else {}


def first_run(env: SandboxEnvironment, pair: BenchPair, options: RunOptions, definition: Any) -> Attempt:
    memory = SqliteMemory(":memory:")
    counted = Counted(env)
    runner = LocalRunner(memory, counted, definition=definition)
    return Attempt(runner, counted, runner.run(pair.a.name, pair.b.name, options), memory)


def correct_hint(truth: Truth, pair: BenchPair, max_hops: int) -> str | None:
    """Someone on a true shortest chain between the pair (None: they are one photo apart, or no chain
    within max hops): nearest the chain's middle, then named in the most captions."""
    graph, web = truth.graph, truth.web
    d = truth.shortest(pair, max_hops)
    if d is None or d < 2:
        return None
    from_a: dict[int, int] = {}
    from_b: dict[int, int] = {}
    for sources, found in ((pair.a.indices, from_a), (pair.b.indices, from_b)):
        for source in sources:
            for node, depth in graph.distances_from(source, d).items():
                found[node] = min(depth, found.get(node, depth))
    on_chain = [x for x, da in from_a.items() if 0 < da < d and da + from_b.get(x, d + 1) == d]
    best = min(on_chain, key=lambda x: (abs(2 * from_a[x] - d), -len(web.named_in[x]), x))
    return web.world.name(best)


def judged(truth: Truth, pair: BenchPair, result: RunResult) -> tuple[bool, bool]:
    """(solved, a false path)."""
    if result.outcome != "path" or result.final is None:
        return False, False
    verdict = truth.check(result.final.data, pair)
    return verdict.solved, not verdict.true


def ending(result: RunResult) -> str:
    data = result.final.data if result.final is not None else {}
    return str(data.get("reason") or data.get("code") or result.outcome)


def measure(
    env: SandboxEnvironment, truth: Truth, pair: BenchPair, options: RunOptions, more: int, definition: Any
) -> tuple[str, dict[str, Any] | None]:
    """The first run's ending, and for a run a budget ended, what continuing it did."""
    attempt = first_run(env, pair, options, definition)
    data = attempt.data
    try:
        if not (attempt.first.outcome == "no_path" and data.get("reason") == "budget"):
            return ending(attempt.first), None
        then = attempt.runner.continue_run(attempt.first.run_id, budgets={"searches": more})
        spent = then.final.data.get("segmentUsage", {}) if then.final else {}
        solved, false_path = judged(truth, pair, then)
        row: dict[str, Any] = {
            "a": pair.a.given,
            "b": pair.b.given,
            "exhausted": data.get("exhausted"),
            "shortest": truth.shortest(pair, options.max_hops),
            "first_cost_usd": data["usage"]["costUsd"],
            "first_searches": data["usage"]["searches"],
            "continued": ending(then),
            "continued_solved": solved,
            "continued_false_path": false_path,
            "extra_cost_usd": spent.get("costUsd", 0.0),
            "extra_searches": spent.get("searches", 0),
            "extra_recognitions": spent.get("recognitions", 0),
            "extra_llm_calls": spent.get("llmCalls", 0),
            "repeated": attempt.counted.repeats(),
        }
    finally:
        attempt.memory.close()
    # For comparison: the pair asked once with both budgets together.
    total = options.budgets.model_copy(update={"searches": options.budgets.searches + more})
    bigger = first_run(env, pair, options.model_copy(update={"budgets": total}), definition)
    try:
        solved, false_path = judged(truth, pair, bigger.first)
        row.update(
            bigger=ending(bigger.first),
            bigger_solved=solved,
            bigger_false_path=false_path,
            bigger_cost_usd=bigger.data.get("usage", {}).get("costUsd", 0.0),
        )
    finally:
        bigger.memory.close()
    hint = correct_hint(truth, pair, options.max_hops)
    row["hint"] = hint
    if hint is None:
        return "budget", row
    again = first_run(env, pair, options, definition)
    try:
        row["hint_first_run_same"] = again.data.get("reason") == "budget" and again.data.get(
            "usage"
        ) == data.get("usage")
        hinted = again.runner.continue_run(again.first.run_id, budgets={"searches": more}, via=hint)
        final = hinted.final.data if hinted.final else {}
        solved, false_path = judged(truth, pair, hinted)
        row.update(
            hinted=ending(hinted),
            hinted_solved=solved,
            hinted_false_path=false_path,
            hint_confirmed=bool((final.get("hint") or {}).get("confirmed")),
            hinted_extra_cost_usd=final.get("segmentUsage", {}).get("costUsd", 0.0),
            hinted_repeated=again.counted.repeats(),
        )
    finally:
        again.memory.close()
    return "budget", row


def _mean(values: list[float], digits: int = 4) -> float:
    return round(mean(values), digits) if values else 0.0


def summarise(
    rows: list[dict[str, Any]], endings: Counter[str], args: argparse.Namespace, wall: float
) -> dict[str, Any]:
    solvable = [r for r in rows if r["shortest"] is not None]
    solved = [r for r in rows if r["continued_solved"]]
    hinted = [r for r in rows if r.get("hint") is not None]
    return {
        "world": args.world.name,
        "sample": args.sample,
        "sample_seed": args.seed,
        "web_seed": args.web_seed,
        "budgets": Budgets().dump(),
        "first_run_endings": dict(endings.most_common()),
        "budget_ended": len(rows),
        "budget_ended_by": dict(Counter(str(r["exhausted"]) for r in rows)),
        "budget_ended_solvable": len(solvable),
        "more_searches": args.more_searches,
        "continued_solved": len(solved),
        "continued_endings": dict(Counter(r["continued"] for r in rows).most_common()),
        "continued_false_paths": sum(r["continued_false_path"] for r in rows),
        "continued_mean_cost_usd": _mean([r["extra_cost_usd"] for r in rows]),
        "continued_total_cost_usd": round(sum(r["extra_cost_usd"] for r in rows), 4),
        "continued_mean_cost_usd_solved": _mean([r["extra_cost_usd"] for r in solved]),
        "continued_mean_searches": _mean([r["extra_searches"] for r in rows], 2),
        "continued_mean_recognitions": _mean([r["extra_recognitions"] for r in rows], 2),
        "continued_mean_llm_calls": _mean([r["extra_llm_calls"] for r in rows], 2),
        "first_mean_cost_usd": _mean([r["first_cost_usd"] for r in rows]),
        "repeated_searches": sum(r["repeated"][0] for r in rows),
        "repeated_recognitions": sum(r["repeated"][1] for r in rows),
        "hinted": len(hinted),
        "hinted_first_run_reproduced": sum(bool(r.get("hint_first_run_same")) for r in hinted),
        "hinted_solved": sum(r["hinted_solved"] for r in hinted),
        "hinted_solved_unhinted_not": sum(r["hinted_solved"] and not r["continued_solved"] for r in hinted),
        "hinted_confirmed": sum(r["hint_confirmed"] for r in hinted),
        "hinted_endings": dict(Counter(r["hinted"] for r in hinted).most_common()),
        "hinted_false_paths": sum(r["hinted_false_path"] for r in hinted),
        "hinted_mean_cost_usd": _mean([r["hinted_extra_cost_usd"] for r in hinted]),
        "hinted_total_cost_usd": round(sum(r["hinted_extra_cost_usd"] for r in hinted), 4),
        "hinted_repeated": [sum(r["hinted_repeated"][i] for r in hinted) for i in (0, 1)],
        "bigger_searches": Budgets().searches + args.more_searches,
        "bigger_solved": sum(r["bigger_solved"] for r in rows),
        "bigger_false_paths": sum(r["bigger_false_path"] for r in rows),
        "bigger_mean_cost_usd": _mean([r["bigger_cost_usd"] for r in rows]),
        "false_paths": sum(
            r["continued_false_path"] + r.get("hinted_false_path", 0) + r["bigger_false_path"] for r in rows
        ),
        "wall_s": round(wall, 1),
        "machine": machine_state(),
    }


def table(f: dict[str, Any]) -> list[str]:
    more = f["more_searches"]
    n, s, h = f["budget_ended"], f["budget_ended_solvable"], f["hinted"]
    return [
        "| runs a budget ended | what was tried | solved | false paths | extra cost: mean · total |",
        "|---|---|---|---|---|",
        f"| {n} ({s} solvable) | one continuation, +{more} searches | {f['continued_solved']} / {n} "
        f"({f['continued_solved']} / {s} solvable) | {f['continued_false_paths']} | "
        f"${f['continued_mean_cost_usd']:.4f} · ${f['continued_total_cost_usd']:.4f} |",
        f"| {h} (solvable, not one photo apart) | one continuation, +{more} searches and a correct "
        f"`via` | {f['hinted_solved']} / {h} | {f['hinted_false_paths']} | "
        f"${f['hinted_mean_cost_usd']:.4f} · ${f['hinted_total_cost_usd']:.4f} |",
        f"| {n} (the first row's) | for comparison: a fresh run with {f['bigger_searches']} searches | "
        f"{f['bigger_solved']} / {n} | {f['bigger_false_paths']} | "
        f"${f['bigger_mean_cost_usd']:.4f} a run (the whole run) |",
    ]


def said(outcome: str, solved: bool) -> str:
    return "**solved**" if solved else outcome


def markdown(f: dict[str, Any], rows: list[dict[str, Any]], command: str) -> str:
    lines = [
        f"# Continuing budget-ended runs on {f['world']} ({f['sample']} pairs, sample seed "
        f"{f['sample_seed']})",
        "",
        f"Generated by `{command}` (issue 13). The pairs, photo web and options are those of "
        f"`visual-degrees bench --world …/{f['world']} --sample {f['sample']} --seed {f['sample_seed']}` "
        "(strategy `default`, default budgets, a fresh run memory per pair). Each run that ended "
        f"`no_path` because a budget ran out is continued once with {f['more_searches']} more searches "
        "(its other budgets again), as `visual-degrees run --continue RUN_ID --budget-searches "
        f"{f['more_searches']}` does; then the same first run, made again, is continued the same way with "
        "a correct hint (`via`: someone on a true shortest chain, nearest its middle, read from the "
        "simulator's ground truth, which no strategy sees). Every reported path is checked edge by edge "
        "against the ground truth; every paid call is counted.",
        "",
        f"First runs' endings: {json.dumps(f['first_run_endings'])}. Budget-ended: {f['budget_ended']} "
        f"(by {json.dumps(f['budget_ended_by'])}), {f['budget_ended_solvable']} of them solvable; "
        f"their first runs cost ${f['first_mean_cost_usd']:.4f} on average.",
        "",
        *table(f),
        "",
        f"- Continuations' endings: {json.dumps(f['continued_endings'])}; mean spend "
        f"{f['continued_mean_searches']:g} searches, {f['continued_mean_recognitions']:g} recognitions, "
        f"{f['continued_mean_llm_calls']:g} LLM calls; ${f['continued_mean_cost_usd_solved']:.4f} "
        "on average for the ones that solved.",
        f"- With a correct hint: endings {json.dumps(f['hinted_endings'])}; "
        f"{f['hinted_confirmed']} hints confirmed by photos; {f['hinted_solved_unhinted_not']} solved "
        "that the continuation without the hint did not. The first run made again was the same "
        f"(same ending, same spend) for {f['hinted_first_run_reproduced']} of {f['hinted']}.",
        f"- Searches or recognitions made twice in a run, across its segments: "
        f"{f['repeated_searches']} searches, {f['repeated_recognitions']} recognitions (without hints); "
        f"{f['hinted_repeated'][0]} and {f['hinted_repeated'][1]} (with).",
        f"- False paths, every run above: {f['false_paths']}.",
        "",
        f"Machine: {json.dumps(f['machine'])}; {f['wall_s']} s wall.",
        "",
        "## Each budget-ended run",
        "",
        "| A | B | shortest | budget | continued | +$ | hint | with the hint | +$ "
        f"| {f['bigger_searches']} searches at once |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        hinted = r.get("hint") is not None
        lines.append(
            f"| {r['a']} | {r['b']} | {r['shortest'] if r['shortest'] is not None else '> 6'} | "
            f"{r['exhausted']} | {said(r['continued'], r['continued_solved'])} | "
            f"{r['extra_cost_usd']:.4f} | {r.get('hint') or '—'} | "
            + (
                f"{said(r['hinted'], r['hinted_solved'])}{' (confirmed)' if r['hint_confirmed'] else ''} | "
                f"{r['hinted_extra_cost_usd']:.4f} | "
                if hinted
                else "— | — | "
            )
            + f"{said(r['bigger'], r['bigger_solved'])} |"
        )
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--world", type=Path, default=WORLDS / "cast.G.txt")
    parser.add_argument("--sample", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11, help="sample seed (the bench's --seed)")
    parser.add_argument("--web-seed", type=int, default=0)
    parser.add_argument("--more-searches", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="only the figures, as one JSON object")
    parser.add_argument("--report", type=Path, help="write the Markdown report here")
    parser.add_argument("--out", type=Path, help="directory for figures.json and runs.jsonl")
    args = parser.parse_args()

    started = time.perf_counter()
    env = sandbox_environment(args.world, seed=args.web_seed)
    truth = Truth(env.web)
    pairs = sample_pairs(env.web, args.sample, args.seed)
    options = RunOptions(strategy="default")
    definition = load_definition()
    rows: list[dict[str, Any]] = []
    endings: Counter[str] = Counter()
    for n, pair in enumerate(pairs, 1):
        end, row = measure(env, truth, pair, options, args.more_searches, definition)
        endings[end] += 1
        if row is not None:
            rows.append(row)
        print(f"\r{n}/{len(pairs)} pairs, {len(rows)} ended on a budget", end="", file=sys.stderr)
    print(file=sys.stderr)
    figures = summarise(rows, endings, args, time.perf_counter() - started)

    command = (
        f"python scripts/continue_figures.py --world ../shared/data/worlds/{args.world.name} "
        f"--sample {args.sample} --seed {args.seed}"
        + (f" --web-seed {args.web_seed}" if args.web_seed else "")
        + (f" --more-searches {args.more_searches}" if args.more_searches != 20 else "")
        + (f" --report {args.report}" if args.report else "")
    )
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(markdown(figures, rows, command), encoding="utf-8")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "figures.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
        with (args.out / "runs.jsonl").open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(json.dumps(figures) if args.json else json.dumps(figures, indent=2))
    if not args.json:
        print("\n".join(["", *table(figures)]))
    bad = figures["false_paths"] or figures["repeated_searches"] or figures["hinted_repeated"][0]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
