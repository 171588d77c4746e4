#!/usr/bin/env python
"""How many questions an hour a deployment sustains, from measured per-run figures.

Per-run figures come from `scripts/aws_figures.py --runs` (famous pairs of a world run through the
Lambda handlers on moto, as Step Functions invokes them): paid calls (searches, recognitions, LLM
calls), state transitions, Lambda invocations and seconds, DynamoDB read and write units. To these
the model adds the shared limiter's writes (two conditional writes a paid call: the client's queue,
then the provider's; adapters/aws/dynamodb_slots.py).

For given provider quotas, Lambda concurrency and share of repeat questions (a repeat is answered
from the deployment's memory at no provider call; its AWS side is counted as a first run's, an upper
bound), it prints the questions an hour each resource allows, which binds first and how to raise
it; what a run costs on Step Functions Standard and Express; and DynamoDB on-demand units a run.

    python scripts/capacity_model.py --world ../shared/data/worlds/cast.G.txt
    python scripts/capacity_model.py --world ../shared/data/worlds/cast.G.txt --sampled --seed 11
    python scripts/capacity_model.py --figures runs.json --search-rps 50 --recognition-rps 50
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from visual_degrees_tools.bench.capacity import (
    EXPRESS_MAX_SECONDS,
    HOW_TO_RAISE,
    Quotas,
    binding,
    capacity,
    costs,
    per_run,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_WORLD = REPO_ROOT.parent / "shared" / "data" / "worlds" / "cast.G.txt"  # as from /work/main


def measured(world: Path, pairs: int, seed: int, *, sampled: bool) -> list[dict[str, Any]]:
    from visual_degrees_tools.bench.pairs import famous_pairs, sample_pairs
    from visual_degrees_tools.sandbox import PhotoWeb, load_world

    web = PhotoWeb(load_world(world), seed)
    if sampled:
        chosen = [(pair.a.name, pair.b.name) for pair in sample_pairs(web, pairs, seed)]
    else:
        chosen = famous_pairs(web, pairs, seed)
    command = [sys.executable, str(REPO_ROOT / "scripts" / "aws_figures.py"), "--runs", "--json"]
    command += ["--world", str(world)]
    for a, b in chosen:
        command += ["--pair", f"{a}|{b}"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    runs: list[dict[str, Any]] = json.loads(done.stdout)["runs"]
    return runs


def report(run: dict[str, float], quotas: Quotas, args: argparse.Namespace) -> dict[str, Any]:
    kind = "pairs drawn uniformly" if args.sampled else "famous pairs"
    print(f"Measured per run ({int(run['runs measured'])} {kind}, {int(run['solved'])} solved):")
    for key, value in run.items():
        if key not in ("runs measured", "solved"):
            print(f"  {key:28} {value:10.2f}")
    print(
        f"\nQuotas: {quotas.search_rps:g} searches/s, {quotas.recognition_rps:g} recognitions/s, "
        f"{quotas.llm_rps:g} LLM calls/s, {quotas.lambda_concurrency} concurrent Lambdas, "
        f"Step Functions and DynamoDB defaults ({quotas.region_class} regions)"
    )
    out: dict[str, Any] = {"perRun": run, "scenarios": []}
    for repeat in args.repeat:
        limits = capacity(run, quotas, repeat)
        first = binding(limits)
        price = costs(run, repeat)
        aws = price["lambda"] + price["dynamodb"] + price["websocket"]
        standard = price["providers"] + price["step functions standard"] + aws
        express = standard - price["step functions standard"] + price["step functions express"]
        print(f"\nRepeat questions {repeat:.0%}: questions an hour each resource allows")
        for name, value in sorted(limits.items(), key=lambda kv: kv[1]):
            shown = "unbounded" if value == float("inf") else f"{value:,.0f}"
            print(f"  {name:28} {shown:>14}")
        print(f"  binds first: {first} ({limits[first]:,.0f} questions an hour); raise it with")
        print(f"    {HOW_TO_RAISE[first]}")
        print(
            f"  cost a question: providers ${price['providers']:.4f}, Lambda ${price['lambda']:.5f}, "
            f"DynamoDB ${price['dynamodb']:.5f}; Step Functions Standard "
            f"${price['step functions standard']:.5f} or Express ${price['step functions express']:.6f}; "
            f"total ${standard:.4f} (Standard) / ${express:.4f} (Express)"
        )
        out["scenarios"].append(
            {"repeatShare": repeat, "questionsPerHour": limits, "binding": first, "costUsd": price}
        )
    took = run["run seconds"]
    print(
        f"\nExpress runs for at most {EXPRESS_MAX_SECONDS} s; a run takes ~{took:.0f} s here, its "
        f"runtime budget 120 s by default and up to 600 s at the default ceiling: under Express the "
        f"ceiling must stay below {EXPRESS_MAX_SECONDS} s less the last step, and longer questions "
        f"go on as continuations (run --continue / continueRun)."
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--world", type=Path, default=DEFAULT_WORLD)
    parser.add_argument("--pairs", type=int, default=8, help="famous pairs to measure (default 8)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--sampled",
        action="store_true",
        help="pairs drawn uniformly from the world (harder) instead of famous",
    )
    parser.add_argument("--figures", type=Path, help="aws_figures.py --runs --json output to use instead")
    parser.add_argument("--save-figures", type=Path, help="keep the measured runs here (for --figures)")
    parser.add_argument("--search-rps", type=float, default=50.0, help="default: Brave's Search plan")
    parser.add_argument(
        "--recognition-rps", type=float, default=5.0, help="default: RecognizeCelebrities outside 3 regions"
    )
    parser.add_argument("--llm-rps", type=float, default=16.0, help="default: Gemini Tier 1, Flash")
    parser.add_argument("--lambda-concurrency", type=int, default=1000, help="the account's default")
    parser.add_argument("--region-class", choices=("major", "other"), default="major")
    parser.add_argument(
        "--repeat", type=float, action="append", help="share of repeat questions (repeatable)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    args.repeat = args.repeat or [0.0, 0.5, 0.8]
    if args.figures:
        runs = json.loads(args.figures.read_text(encoding="utf-8"))["runs"]
    else:
        if not args.world.is_file():
            sys.exit(f"no world file at {args.world} (give --world)")
        runs = measured(args.world, args.pairs, args.seed, sampled=args.sampled)
        if args.save_figures:
            args.save_figures.write_text(json.dumps({"runs": runs}, indent=2) + "\n", encoding="utf-8")
    quotas = Quotas(
        search_rps=args.search_rps,
        recognition_rps=args.recognition_rps,
        llm_rps=args.llm_rps,
        lambda_concurrency=args.lambda_concurrency,
        region_class=args.region_class,
    )
    out = report(per_run(runs), quotas, args)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
