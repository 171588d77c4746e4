"""What the planner's hunches come to, by what the planner said of them.

    python scripts/hunch_yield.py --world ../shared/data/worlds/cast.G.txt --tier known --pairs 100 --seed 11

Runs a tier's sample as `bench_webs.py run` does (default budgets, the realistic web unless
`--web`), and after each run reads its memory: every hunch the planner gave (with the film where it
said the two met, or none; its stated confidence), whether the run searched the pair (its own query,
or a chain query naming the two side by side: `leads.pair_searched`), and whether
the run's graph ended with a link of the two. The simulator's ground truth (a measurement only: no
run sees it) says whether any photo on the web shows the two, both recognised at >= 80: where none
does, no search could have linked them, and only the titles its page brought were worth the search.

Prints one line per kind of hunch (film named or not; stated confidence) and the totals as JSON;
`--json FILE` keeps them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import RunOptions
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import sample_pairs
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.local.hunch_record import planner_hunches
from visual_degrees_tools.local.runner import LocalRunner
from visual_degrees_tools.sandbox import PhotoWeb, load_world, photo_web
from visual_degrees_tools.sandbox.ground_truth import recognised_in
from visual_degrees_tools.sandbox_options import add_sample_options, web_name

THRESHOLD = 80.0


def photographed_together(web: PhotoWeb, x: str, y: str) -> bool | None:
    """Does any photo show both, each recognised at >= THRESHOLD? None: a name the world lacks."""
    world = web.world
    found_x, found_y = world.find(x), world.find(y)
    if not found_x or not found_y:
        return None
    p, q = found_x[0], found_y[0]
    return any(
        q in web.people_in(photo) and {p, q} <= set(recognised_in(web, photo, THRESHOLD))
        for event in world.person_events[p]
        for photo in web.photos_of_event(event)
        if p in web.people_in(photo)
    )


def kind(hunch: dict[str, Any]) -> str:
    film = "film named" if hunch.get("film") else "no film"
    confidence = float(hunch.get("confidence", 0.5))
    band = "< 0.55" if confidence < 0.55 else "0.55-0.75" if confidence < 0.75 else ">= 0.75"
    return f"{film}, confidence {band}"


def hunches_of_run(web: PhotoWeb, memory: SqliteMemory, run_id: str) -> list[dict[str, Any]]:
    """The run's planner hunches (local/hunch_record.py), each with its kind and whether any photo
    on the web shows the two."""
    return [
        row | {"kind": kind(row), "photo_of_both": photographed_together(web, row["a"], row["b"])}
        for row in planner_hunches(memory, run_id)
    ]


def summarise(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    by_kind: dict[str, dict[str, int]] = {}
    for row in rows:
        for name in (row["kind"], "all"):
            figures = by_kind.setdefault(
                name, {"hunches": 0, "searched": 0, "linked": 0, "searched_and_linked": 0, "no_photo": 0}
            )
            figures["hunches"] += 1
            figures["searched"] += row["searched"]
            figures["linked"] += row["linked"]
            figures["searched_and_linked"] += row["searched"] and row["linked"]
            figures["no_photo"] += row["photo_of_both"] is False
    return dict(sorted(by_kind.items()))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_sample_options(parser, tier="known", pairs=100)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    web = photo_web(load_world(args.world), 0, web_name(args.web))
    definition = load_definition()
    rows: list[dict[str, Any]] = []
    for pair in sample_pairs(web, args.pairs, args.seed, args.tier):
        memory = SqliteMemory(":memory:")
        try:
            environment = SandboxEnvironment(web, planner_recall=args.recall)
            runner = LocalRunner(memory, environment, costs=DEFAULT_COSTS, definition=definition)
            result = runner.run(pair.a.name, pair.b.name, RunOptions())
            rows += [
                row | {"pair": [pair.a.given, pair.b.given]}
                for row in hunches_of_run(web, memory, result.run_id)
            ]
        finally:
            memory.close()
    summary = summarise(rows)
    for name, figures in summary.items():
        print(
            f"{name:32} {figures['hunches']:5} hunches, {figures['searched']:4} searched, "
            f"{figures['searched_and_linked']:4} of them linked, "
            f"{figures['no_photo']:4} with no photo of the two"
        )
    print(json.dumps(summary))
    if args.json is not None:
        given = vars(args) | {"world": str(args.world), "json": str(args.json)}
        args.json.write_text(json.dumps({"args": given, "summary": summary, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
