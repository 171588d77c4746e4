"""Cost floors on a photo web: what a run that knows the web must at least pay to prove its pairs.

    python scripts/bench_floor.py --world ../shared/data/worlds/cast.G.txt --tiers famous=60,known=100

Pairs are drawn as `visual-degrees bench --tier T --sample N --seed S` draws them, on the realistic
web unless `--web clean`. Per tier, one JSON line:
- solvable: pairs the bench counts solvable (at most --max-hops apart in the provable graph), and
  those with an end no page names (no search about that person returns their photo);
- floor: per solvable pair, the cheapest spend of searches and recognitions that proves a chain, for
  an oracle that knows which query's first result page holds a photo of each link's two people
  (bench/floor.py): `shortest`, among the chains of fewest hops; `any`, among all within --max-hops
  (cheaper may be longer). A pair no such chain connects has no floor (counted as above every limit).
`floor_shortest_titles`: what the titles of the shortest floors' photos say of each link's two
people (both, one, none; "with guests": "X and guests …") and where on their page the photos come
(0 = the top result): how far what a run reads could point it at the oracle's photos.
`--variant NAME`: a realistic web with some figures moved (bench/web_variants.py).
Benchmark-only: it reads the photo web's ground truth, which no strategy may see.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from bench_oracle import has_unsearchable_end
from bench_webs import tiers

from visual_degrees_tools.bench import Truth, machine_state, percentile, sample_pairs
from visual_degrees_tools.bench.floor import Floor, Floors, WebPages, link_titles
from visual_degrees_tools.bench.web_variants import add_variant_option, chosen_web
from visual_degrees_tools.sandbox import load_world
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, WEB_NAMES

LIMITS = (0.02, 0.04)  # issue 19: famous pairs at <= $0.02 a run, known pairs at <= $0.04


def summary(floors: list[Floor | None], truth_hops: list[int]) -> dict[str, Any]:
    costs = [math.inf if f is None else f.cost for f in floors]
    found = [f for f in floors if f is not None]

    def usd(x: float) -> float | None:
        return None if math.isinf(x) else round(x, 4)

    return {
        "proven": len(found),
        "mean_usd": round(sum(f.cost for f in found) / len(found), 4) if found else None,
        "p50_usd": usd(percentile(costs, 50)),
        "p90_usd": usd(percentile(costs, 90)),
        **{
            f"share_le_{limit:g}": round(sum(c <= limit + 1e-9 for c in costs) / len(costs), 4)
            for limit in LIMITS
        },
        "mean_searches": round(sum(f.searches for f in found) / len(found), 2) if found else None,
        "mean_recognitions": round(sum(f.recognitions for f in found) / len(found), 2) if found else None,
        "mean_hops": round(sum(f.hops for f in found) / len(found), 2) if found else None,
        "hops_below_truth": sum(
            f is not None and f.hops < d for f, d in zip(floors, truth_hops, strict=True)
        ),
        "hops_above_truth": sum(
            f is not None and f.hops > d for f, d in zip(floors, truth_hops, strict=True)
        ),
    }


def titles(pages: WebPages, floors: list[Floor | None]) -> dict[str, Any]:
    """What the titles of the floor's photos say of each link's two people, and where on the page
    the photos come: how far a run reading titles could be pointed at them."""
    links = [t for f in floors if f is not None for t in link_titles(pages, f)]
    ranks = [float(rank) for _, _, rank in links]
    return {
        "links": len(links),
        **{f"titled_{kind}": sum(named == kind for named, _, _ in links) for kind in ("both", "one", "none")},
        "titled_with_guests": sum(guests for _, guests, _ in links),
        "rank_p50": percentile(ranks, 50) if ranks else None,
        "rank_p90": percentile(ranks, 90) if ranks else None,
        "in_first_5": sum(0 <= rank < 5 for rank in ranks),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--world", type=Path, required=True)
    parser.add_argument("--web", choices=WEB_NAMES, default=DEFAULT_WEB)
    parser.add_argument(
        "--tiers", default="famous=60,known=100", help="tier=pairs,… (default famous=60,known=100)"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--max-hops", type=int, default=6)
    add_variant_option(parser)
    args = parser.parse_args()
    started = time.perf_counter()
    web, label = chosen_web(load_world(args.world), args.web, args.variant)
    truth = Truth(web)
    pages = WebPages(web)
    floors = Floors(pages)
    for tier, count in tiers(args.tiers):
        pairs = sample_pairs(web, count, args.seed, tier)
        solvable = [(p, d) for p in pairs if (d := truth.shortest(p, args.max_hops)) is not None]
        hops = [d for _, d in solvable]
        found = {
            kind: [
                floors.cheapest(p.a.indices, p.b.indices, args.max_hops, shortest=shortest)
                for p, _ in solvable
            ]
            for kind, shortest in (("shortest", True), ("any", False))
        }
        unsearchable = sum(has_unsearchable_end(web, p) for p, _ in solvable)
        figures = {
            "world": args.world.name,
            "web": label,
            "tier": tier,
            "seed": args.seed,
            "pairs": len(pairs),
            "solvable": len(solvable),
            "unsearchable_end": unsearchable,
            "unsearchable_share": round(unsearchable / len(solvable), 4) if solvable else 0.0,
            "floor_shortest": summary(found["shortest"], hops),
            "floor_any": summary(found["any"], hops),
            "floor_shortest_titles": titles(pages, found["shortest"]),
            "wall_s": round(time.perf_counter() - started, 1),
            "machine": machine_state(),
        }
        print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
