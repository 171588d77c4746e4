"""Measure the sandbox on world files: load time (world + photo web + search index), peak memory,
photo counts, the provable graph against the raw co-appearance graph, and search latency.

    python scripts/sandbox_measure.py ../shared/data/worlds/cast.G.txt ../shared/data/worlds/movies.txt
    python scripts/sandbox_measure.py --json WORLD...

Each world is measured in a fresh process, so peak RSS is that world's alone.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import time

from visual_degrees_tools.sandbox.ground_truth import ground_truth


def measure(path: str, seed: int, pairs: int) -> dict[str, object]:
    from visual_degrees.domain.queries import DISCOVERY_TEMPLATES, PAIR_TEMPLATES
    from visual_degrees_tools.sandbox.photoweb import PhotoWeb
    from visual_degrees_tools.sandbox.search import SandboxImageSearch
    from visual_degrees_tools.sandbox.world import load_world

    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    cpu_started = time.process_time()
    world = load_world(path)
    loaded = time.perf_counter()
    web = PhotoWeb(world, seed)
    built = time.perf_counter()
    search = SandboxImageSearch(web)
    indexed = time.perf_counter()
    cpu_loaded = time.process_time() - cpu_started
    rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    raw_core = world.largest_component()
    graph_started = time.perf_counter()
    graph = ground_truth(web).provable_graph(80.0)
    graph_seconds = time.perf_counter() - graph_started
    provable_core = graph.largest_component()

    rng = random.Random(seed)
    sample = [tuple(rng.sample(raw_core, 2)) for _ in range(pairs)]
    provable = [graph.distance(a, b) for a, b in sample]
    raw = [world.coappearance_distance(a, b, limit=12) for a, b in sample]
    within6 = sum(d is not None and d <= 6 for d in provable)
    found = [d for d in provable if d is not None]

    queries = []
    for a, b in sample[:300]:
        name_a, name_b = world.name(a), world.name(b)
        queries.append(PAIR_TEMPLATES[rng.randrange(len(PAIR_TEMPLATES))].format(a=name_a, b=name_b))
        queries.append(DISCOVERY_TEMPLATES[rng.randrange(len(DISCOVERY_TEMPLATES))].format(a=name_a))
    hubs = sorted(range(world.size), key=lambda p: -world.fame[p])[:20]
    hub_queries = [f"{world.name(p)} premiere" for p in hubs]
    # CPU time per query: wall time on a shared machine mostly measures the other tenants.
    timings = []
    for query in queries:
        t = time.process_time()
        search.rank(query, 5)
        timings.append((time.process_time() - t) * 1000)
    hub_timings = []
    for query in hub_queries:
        t = time.process_time()
        search.rank(query, 5)
        hub_timings.append((time.process_time() - t) * 1000)
    timings.sort()

    return {
        "world": path,
        "people": world.size,
        "events": len(world.titles),
        "load_world_s": round(loaded - started, 3),
        "build_photo_web_s": round(built - loaded, 3),
        "build_search_s": round(indexed - built, 3),
        "load_total_s": round(indexed - started, 3),
        "load_total_cpu_s": round(cpu_loaded, 3),
        "peak_rss_mb_after_load": round(rss_loaded / 1024, 1),
        "rss_mb_before_load": round(rss_before / 1024, 1),
        **web.stats,
        "provable_graph_s": round(graph_seconds, 2),
        "provable_edges": graph.edge_count,
        "raw_largest_component": len(raw_core),
        "provable_largest_component": len(provable_core),
        "provable_share_of_raw_core": round(len(provable_core) / len(raw_core), 3),
        "sampled_pairs": pairs,
        "pairs_provable_within_6": within6,
        "mean_provable_distance": round(statistics.mean(found), 2) if found else None,
        "mean_raw_distance": round(statistics.mean(d for d in raw if d is not None), 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "search_ms_p50": round(timings[len(timings) // 2], 4),
        "search_ms_p99": round(timings[int(len(timings) * 0.99)], 4),
        "search_ms_max": round(timings[-1], 4),
        "search_ms_hub_mean": round(statistics.mean(hub_timings), 4),
        "search_ms_hub_max": round(max(hub_timings), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("worlds", nargs="+")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.worlds[0], args.seed, args.pairs)))
        return
    results = []
    for world in args.worlds:
        command = [
            sys.executable,
            __file__,
            "--one",
            "--seed",
            str(args.seed),
            "--pairs",
            str(args.pairs),
            world,
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results.append(json.loads(done.stdout))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for result in results:
        print(f"== {result['world']}")
        for key, value in result.items():
            if key != "world":
                print(f"  {key:32} {value}")


if __name__ == "__main__":
    main()
