"""How far the benchmarks' shortest provable chain can be off: links a pair query reaches that the
ground truth's provable graph leaves out.

    python scripts/provable_gaps.py --world ../shared/data/worlds/cast.G.txt --tiers famous=60,known=100
    python scripts/provable_gaps.py --world … --templates all --page 200 --runs DIR/runs-default.jsonl

The provable graph (sandbox/ground_truth.py), from which `bench` takes `solvable` and `shortest`,
counts a photo of two people as reachable when a discovery query for one of them returns it within
its first 5 results (`images_per_search`), or one page names both (their pair query ranks it
first). But a pair query also fills its page with pages naming only one of the two, and a run's
chain query ("A B C") with pages naming any two of three, so a run can prove a link the graph lacks
and answer *below* its `shortest` (one pair of cast.G's known 100, seed 11, on either web).

This script adds, for every two people recognised at >= 80 in one photo and not adjacent in the
graph, the photos their own pair query returns within `--page` results ("A B" and "B A", as the
strategies search a pair; `--templates all`: every PAIR_TEMPLATE, as a planner may ask; `--page
200`: as far as a run reads titles), and prints how many links that adds and, per tier sample (as
`bench --sample N --tier T --seed S` draws it), the pairs whose shortest chain falls and the
solvable pairs gained. With `--runs` (the runs-*.jsonl of `bench --out DIR` on the same world, web
and sample) it re-scores those runs' mean excess against the fuller graph. Chain queries are not
counted, so even `--templates all --page 200` is a lower bound on the gap. Ground truth only; no
run sees it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from visual_degrees.domain.queries import PAIR_TEMPLATES
from visual_degrees_tools.bench.metrics import path_excess
from visual_degrees_tools.bench.pairs import BenchPair, pair_of, sample_pairs
from visual_degrees_tools.bench.truth import fewest_hops
from visual_degrees_tools.sandbox import load_world, photo_web
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.ground_truth import ground_truth, recognised_in
from visual_degrees_tools.sandbox.photoweb import DEFAULT_PAGE, PhotoWeb
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox_options import WEB_NAMES

THRESHOLD, MAX_HOPS = 80.0, 6


def fuller_graph(
    web: PhotoWeb, graph: Graph, templates: tuple[str, ...], page: int
) -> tuple[Graph, int, int]:
    """`graph` plus the links the pairs' own queries reach; (graph, links added, pairs tried)."""
    world, ranker = web.world, ranker_for(web)
    adjacency = [set(graph.neighbors(p)) for p in range(world.size)]
    missed: dict[tuple[int, int], set[int]] = {}
    start = web.photo_start
    for photo in range(web.photo_count):
        if start[photo + 1] - start[photo] < 2:
            continue
        seen = recognised_in(web, photo, THRESHOLD)
        for i, a in enumerate(seen):
            for b in seen[i + 1 :]:
                if b not in adjacency[a]:
                    missed.setdefault((min(a, b), max(a, b)), set()).add(photo)
    added = 0
    for (a, b), photos in missed.items():
        names = (world.name(a), world.name(b))
        for query in (t.format(a=x, b=y) for t in templates for x, y in (names, names[::-1])):
            if any(web.page_photo(found) in photos for found in ranker.rank(query, page)):
                adjacency[a].add(b)
                adjacency[b].add(a)
                added += 1
                break
    return Graph(adjacency), added, len(missed)


def shortest(graph: Graph, pair: BenchPair) -> int | None:
    return fewest_hops(graph, pair, MAX_HOPS)


def compare(old: Graph, new: Graph, pairs: list[BenchPair]) -> dict[str, Any]:
    falls: Counter[str] = Counter()
    solvable = [0, 0]
    for pair in pairs:
        before, after = shortest(old, pair), shortest(new, pair)
        solvable[0] += before is not None
        solvable[1] += after is not None
        if before != after:
            falls["newly solvable" if before is None else f"{before} -> {after}"] += 1
    return {"pairs": len(pairs), "solvable": solvable, "shortest_falls": dict(falls)}


def rescore(web: PhotoWeb, old: Graph, new: Graph, path: Path) -> dict[str, Any]:
    """Mean excess of a bench's solved solvable runs against each graph, as the bench counts it
    (metrics.path_excess), and how many answers are below each graph's shortest."""
    excess: list[list[int]] = [[], []]
    below = [0, 0]
    for line in path.read_text(encoding="utf-8").splitlines():
        run = json.loads(line)
        if not (run["outcome"] == "path" and run["true_path"] and run["meant"] and run["hops"]):
            continue
        pair = pair_of(web, run["a"], run["b"])
        for n, graph in enumerate((old, new)):
            best = shortest(graph, pair)
            if best is not None:
                excess[n].append(path_excess(run["hops"], best))
                below[n] += run["hops"] < best
    mean = [round(sum(e) / len(e), 3) if e else None for e in excess]
    return {"runs": str(path), "mean_excess": mean, "answers_below_shortest": below}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", required=True)
    parser.add_argument("--web", choices=WEB_NAMES, default="realistic")
    parser.add_argument("--seed", type=int, default=11, help="sample seed (bench --seed)")
    parser.add_argument("--tiers", default="famous=60,known=100")
    parser.add_argument("--templates", choices=("first", "all"), default="first")
    parser.add_argument("--page", type=int, default=DEFAULT_PAGE, help="results a query is read to")
    parser.add_argument("--runs", nargs="*", default=[], type=Path)
    args = parser.parse_args(argv)
    web = photo_web(load_world(args.world), 0, args.web)
    old = ground_truth(web).provable_graph(THRESHOLD)
    started = time.process_time()
    templates = PAIR_TEMPLATES[:1] if args.templates == "first" else PAIR_TEMPLATES
    new, added, tried = fuller_graph(web, old, templates, args.page)
    report: dict[str, Any] = {
        "world": Path(args.world).name,
        "web": args.web,
        "templates": args.templates,
        "page": args.page,
        "links": old.edge_count,
        "pairs_in_a_photo_not_linked": tried,
        "links_added": added,
        "cpu_s": round(time.process_time() - started, 1),
    }
    for spec in filter(None, args.tiers.split(",")):
        tier, count = spec.split("=")
        report[tier] = compare(old, new, sample_pairs(web, int(count), args.seed, tier))
    report["rescored"] = [rescore(web, old, new, path) for path in args.runs]
    json.dump(report, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
