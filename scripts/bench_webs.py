"""The default strategy on the realistic web against the clean web: pair tiers, two planner recalls.

    python scripts/bench_webs.py run --world ../shared/data/worlds/cast.G.txt --web realistic \\
        --seeds 11 12 --out docs/benchmarks/webs
    python scripts/bench_webs.py table docs/benchmarks/webs > docs/benchmarks/realistic-web.md

`run` builds the world's photo web and its ground truth once, then benchmarks every tier
(uniform 200 pairs, famous 60, known 100; `--tiers` to change) at every sample seed and planner
recall (1.0 and 0.3), each with a fresh run memory per pair, exactly as `visual-degrees bench
--world W --web WEB --sample N --tier T --seed S --planner-recall R --json` does, and writes each
one's figures to <out>/<world>.<web>.<tier>.s<seed>.r<recall>.json (`--shorten 0 0.25` also
benchmarks runs that answer with their first chain: files ending .shorten0.json). `table` turns
every such file under a directory into the Markdown table of docs/benchmarks/realistic-web.md.
Progress on stderr.

`run --no-lr-marker` is a diagnostic, not a web to benchmark against: the realistic web whose
agency captions never write "(L-R)" before a list of names, to measure what a strategy that reads
"(L-R)" as a person loses (files and rows named "realistic-no-lr").

`run --variant NAME` benchmarks a photo web the strategy was never tuned on: the realistic web with
some of its figures moved (`bench/web_variants.py` lists them: fewer-names, noisier-faces, harsh, …;
files and rows named "realistic-NAME").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from itertools import product
from pathlib import Path
from typing import Any

from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees_tools.bench import Bench, BenchConfig, Truth, machine_state, sample_pairs
from visual_degrees_tools.bench.report import progress_printer
from visual_degrees_tools.bench.web_variants import add_variant_option, chosen_web
from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.sandbox import PhotoWeb, load_world
from visual_degrees_tools.sandbox.pages import DEFAULT_PAGES
from visual_degrees_tools.sandbox.webs import WEBS
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, TIERS, WEB_NAMES, Tier

DEFAULT_TIERS = "uniform=200,famous=60,known=100"
# A diagnostic web: the realistic one with captions that never write "(L-R)" before a list of names.
NO_MARKER = "realistic-no-lr"
RECALLS = (1.0, 0.3)
DEFAULT_SHARE = Budgets().shorten_share


def run(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    world = load_world(args.world)
    if args.no_lr_marker:
        if args.web != "realistic":
            raise SystemExit("--no-lr-marker: only the realistic web writes (L-R)")
        label = NO_MARKER
        model = WEBS["realistic"]
        pages = replace(model.pages or DEFAULT_PAGES, left_to_right="")
        web = PhotoWeb(world, 0, photos=model.photos, pages=pages)
    else:
        web, label = chosen_web(world, args.web, args.variant)
    truth = Truth(web)
    took = time.perf_counter() - started
    print(f"{args.world.name} {label}: web and truth in {took:.1f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    for tier, count in tiers(args.tiers):
        for seed in args.seeds:
            pairs = sample_pairs(web, count, seed, tier)
            for recall, share in product(args.recalls, args.shorten):
                shortened = "" if share == DEFAULT_SHARE else f".shorten{share:g}"
                name = f"{args.world.stem}.{label}.{tier}.s{seed}.r{recall:g}{shortened}.json"
                target = args.out / name
                if target.exists() and not args.again:
                    continue
                environment = SandboxEnvironment(web, planner_recall=recall)
                shown = f"{args.world.stem} {label} {tier} s{seed} r{recall:g}{shortened}"
                t = time.perf_counter()
                options = RunOptions(budgets=Budgets(shorten_share=share))
                config = BenchConfig(options=options)
                result = Bench(environment, truth).run(pairs, config, progress_printer(shown))
                figures = result.figures
                figures.update(
                    {
                        "world": args.world.name,
                        "web": label,
                        "tier": tier,
                        "sample": count,
                        "sample_seed": seed,
                        "web_seed": 0,
                        "planner_recall": recall,
                        "shorten_share": share,
                        "bench_wall_s": round(time.perf_counter() - t, 1),
                        "machine": machine_state(),
                    }
                )
                target.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")


def tiers(text: str) -> list[tuple[Tier, int]]:
    found: list[tuple[Tier, int]] = []
    for part in text.split(","):
        name, _, count = part.partition("=")
        tier = next((t for t in TIERS if t == name.strip()), None)
        if tier is None or not count.strip().isdigit():
            raise SystemExit(f"--tiers: expected tier=count with a tier of {', '.join(TIERS)}, not {part!r}")
        found.append((tier, int(count)))
    return found


WORLD_ORDER = ("cast.G", "cast.06", "movies")


def _web_rank(label: str) -> int:
    """Rows of one sample: the realistic web, its diagnostic and variants, then the clean web."""
    if label in (DEFAULT_WEB, NO_MARKER):
        return (DEFAULT_WEB, NO_MARKER).index(label)
    return 2 if label.startswith(f"{DEFAULT_WEB}-") else 3


def table(directory: Path) -> str:
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]
    rows: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for figures in runs:
        world = Path(figures["world"]).stem
        key = (world, figures["tier"], figures["sample_seed"], figures["planner_recall"])
        share = figures.get("shorten_share", DEFAULT_SHARE)
        rows.setdefault(key, {})[figures["web"], share] = figures

    def order(key: tuple[Any, ...]) -> tuple[Any, ...]:
        world, tier, seed, recall = key
        rank = WORLD_ORDER.index(world) if world in WORLD_ORDER else len(WORLD_ORDER)
        return (rank, world, seed, TIERS.index(tier), -recall)

    lines = [
        "| world | pairs | tier | recall | web | shorten | solved / solvable | success | $ per run | "
        "mean excess | at shortest | p50 sim. s, all · solved | false paths |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for key in sorted(rows, key=order):
        world, tier, seed, recall = key
        for web, share in sorted(rows[key], key=lambda ws: (_web_rank(ws[0]), ws[0], ws[1])):
            f = rows[key][web, share]
            at_shortest = (f.get("path_excess_distribution") or {}).get("0", {}).get("share", 0.0)
            solved = f["solved"] - f["solved_unsolvable"]
            lines.append(
                f"| {world} s{seed} | {f['pairs']} | {tier} | {recall:g} | {web} | {share:g} | "
                f"{solved} / {f['solvable']} | {100 * f['success_rate']:.1f} % | "
                f"{f['mean_cost_usd']:.4f} | {f['mean_path_excess']:.2f} | {100 * at_shortest:.0f} % | "
                f"{f['p50_sim_latency_s']:.1f} · {f['p50_sim_latency_s_solved']:.1f} | {f['false_paths']} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("run", help="benchmark one world on one web")
    bench.add_argument("--world", type=Path, required=True)
    bench.add_argument("--web", choices=WEB_NAMES, required=True)
    bench.add_argument("--seeds", type=int, nargs="+", default=[11])
    bench.add_argument("--recalls", type=float, nargs="+", default=list(RECALLS))
    bench.add_argument(
        "--shorten",
        type=float,
        nargs="+",
        default=[DEFAULT_SHARE],
        metavar="SHARE",
        help=f"budgets.shortenShare of the runs, each benchmarked (default {DEFAULT_SHARE:g}; 0: the first "
        "chain proven, as before the search for a shorter one)",
    )
    bench.add_argument("--tiers", default=DEFAULT_TIERS, help=f"tier=pairs,… (default {DEFAULT_TIERS})")
    bench.add_argument("--out", type=Path, required=True)
    bench.add_argument("--again", action="store_true", help="rerun benches whose file exists")
    bench.add_argument(
        "--no-lr-marker",
        action="store_true",
        help='diagnostic: the realistic web without "(L-R)" before its lists of names ("realistic-no-lr")',
    )
    add_variant_option(bench)
    show = commands.add_parser("table", help="the Markdown table of every figures file in a directory")
    show.add_argument("directory", type=Path)
    args = parser.parse_args(argv[1:])
    if args.command == "run":
        run(args)
    else:
        print(table(args.directory), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
