"""Where the path excess comes from, and what a shortening phase that knew the answer could reach.

    python scripts/shortening_gap.py --world ../shared/data/worlds/cast.G.txt --web realistic \\
        --seed 11 --tier famous --pairs 20 --recall 1.0

Runs a tier's sample exactly as `bench_webs.py run` does (default budgets, `--share` the shortening
allowance), and for every solved pair answered with more hops than the shortest provable chain asks
the simulator's ground truth (a measurement only: no run ever sees it):

- *on pages read*: could photos on the pages the run already read (each recognised at >= 80 on both
  people, as the truth says) plus its proven links make a shorter chain? Then no search was needed,
  only recognitions.
- *one pair search*: a shorter chain with at most one link from elsewhere on the web (the provable
  graph: some search finds the photo) and the rest from pages read.
- *oracle*: the fewest hops a phase that knew every photo could prove within the run's own
  allowance (`shortenShare` x what the run spent before shortening): a link proven costs nothing, a
  photo on a page read one recognition, any other provable link one search and one recognition (the
  right photo first; no page's recognition quota applies). Its mean excess is the floor for that
  allowance: a bound for this policy only.

And what could point a phase at those photos (docs/benchmarks/fewest-degrees.md, round 4):

- *skip pairs*: two people of the chain apart (not its ends) whom a provable photo shows together:
  one pair search each.
- *recurring copies*: one photo read under several URLs (the same bytes) whose titles together name
  two people no one of them names; how much shorter those photos would make the chain.
- *off-query titles* and *photos on several pages*: photos whose title names one person the page's
  query does not, or that came on two queries' pages; how many, how many truly show two people, and
  whether the shortcut's photos on pages read are among them.

Prints one line per pair with excess, then the totals; `--json FILE` keeps them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import Any

from visual_degrees.domain.captions import people_in_title
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.domain.titles import mentions, portrait
from visual_degrees.lifecycle.run_memory import RunControl, RunLeads
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench import Truth, sample_pairs
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.local.runner import LocalRunner
from visual_degrees_tools.sandbox import PhotoWeb, load_world, photo_web
from visual_degrees_tools.sandbox.graph import Graph
from visual_degrees_tools.sandbox.ground_truth import recognised_in
from visual_degrees_tools.sandbox.world import World
from visual_degrees_tools.sandbox_options import add_sample_options, web_name

THRESHOLD = 80.0
Edges = dict[int, set[int]]


def recognised(web: PhotoWeb, url: str) -> list[int]:
    """Who the recogniser names as themselves at >= THRESHOLD in the photo at `url`."""
    return recognised_in(web, web.photo_from_url(url), THRESHOLD)


def add_clique(edges: Edges, people: Iterable[int]) -> None:
    people = list(people)
    for i, x in enumerate(people):
        for y in people[i + 1 :]:
            edges.setdefault(x, set()).add(y)
            edges.setdefault(y, set()).add(x)


def fewest(
    a: int, b: int, limit: int, free: Edges, paid: Graph | None = None, most_paid: int = 0
) -> int | None:
    """Fewest hops a..b (at most `limit`) over `free` edges and at most `most_paid` of `paid`'s."""
    seen = {(a, 0)}
    frontier = [(a, 0)]
    for depth in range(1, limit + 1):
        nxt = []
        for node, used in frontier:
            steps = [(n, used) for n in free.get(node, ())]
            if paid is not None and used < most_paid:
                steps += [(n, used + 1) for n in paid.neighbors(node) if n not in free.get(node, ())]
            for state in steps:
                if state[0] == b:
                    return depth
                if state not in seen:
                    seen.add(state)
                    nxt.append(state)
        frontier = nxt
    return None


def route(a: int, b: int, edges: Edges) -> list[int]:
    """A fewest-hops route a..b over `edges` (breadth first), or []."""
    parent = {a: a}
    frontier = [a]
    while frontier and b not in parent:
        frontier = [n for node in frontier for n in edges.get(node, ()) if parent.setdefault(n, node) == node]
    if b not in parent:
        return []
    path = [b]
    while path[-1] != a:
        path.append(parent[path[-1]])
    return path[::-1]


def cheapest(
    a: int, b: int, hops: int, priced: dict[int, dict[int, float]], graph: Graph, new_usd: float
) -> float:
    """The least a chain a..b of at most `hops` hops costs to prove: `priced` pairs at their price
    (proven, or a photo in hand), any other provable pair (the truth's graph) at `new_usd`."""
    to_b = {b: 0}
    frontier = [b]
    for depth in range(1, hops + 1):
        frontier = [
            n
            for node in frontier
            for n in (*graph.neighbors(node), *priced.get(node, {}))
            if n not in to_b and not to_b.setdefault(n, depth) < depth
        ]
    layer = {a: 0.0}
    found = float("inf")
    for depth in range(1, hops + 1):
        nxt: dict[int, float] = {}
        for node, spent in layer.items():
            options = dict.fromkeys(graph.neighbors(node), new_usd) | priced.get(node, {})
            for n, usd in options.items():
                total = spent + usd
                if n == b:
                    found = min(found, total)
                elif total < found and depth + to_b.get(n, hops + 1) <= hops and total < nxt.get(n, found):
                    nxt[n] = total
        layer = nxt
    return found


# ---- signals a phase could use to pick photos in hand (round 4): how many photos each flags, how
# many of those truly show two people, and whether the shortcut's photos are among them ----------


def recurring_pairs(web: PhotoWeb, titles: dict[str, tuple[str, str]], world: World) -> dict[str, Any]:
    """Photos read under several URLs (the same bytes: a fetch, no money, tells) whose titles, taken
    together, name two people no one title names together: how many, and the pairs (x, y) such a
    photo shows recognised at >= THRESHOLD, as the truth says."""
    copies: dict[int, set[str]] = {}
    for url in titles:
        copies.setdefault(web.photo_from_url(url), set()).add(url)
    candidates = 0
    true: set[tuple[int, int]] = set()
    for urls in copies.values():
        if len(urls) < 2:
            continue
        named = [
            {p for key, _ in people_in_title(titles[u][0]) if (p := world_person(world, key)) is not None}
            for u in urls
        ]
        union = set().union(*named)
        pairs = {(x, y) for x in union for y in union if x < y and not any({x, y} <= one for one in named)}
        if not pairs:
            continue
        candidates += 1
        shown = set(recognised(web, next(iter(urls))))
        true |= {(x, y) for x, y in pairs if {x, y} <= shown}
    return {"candidates": candidates, "true": sorted(true)}


def off_query(web: PhotoWeb, pages: list[dict[str, Any]], world: World) -> dict[str, Any]:
    """Photos whose title names one person who is not in the query of the page they came on (the
    engine matched the page by other names of the query, so its text names them): how many, how
    many truly show that person with someone of the query, and their URLs."""
    total, true, urls = 0, 0, set()
    for page in pages:
        query = str(page["query"])
        for url, _, title in page["hits"]:
            named = people_in_title(str(title))
            if len(named) != 1 or portrait(str(title)) or mentions(query, named[0][1]):
                continue
            person = world_person(world, named[0][0])
            if person is None:
                continue
            total += 1
            urls.add(str(url))
            shown = set(recognised(web, str(url)))
            true += person in shown and any(mentions(query, world.name(p)) for p in shown - {person})
    return {"total": total, "true": true, "urls": urls}


def on_several_pages(web: PhotoWeb, pages: list[dict[str, Any]], world: World) -> dict[str, Any]:
    """Photos (one URL) that came on the pages of two queries or more, their title naming someone
    one query does not: the engine matched their page by a name of that query too. How many, how
    many truly show two people or more, and their URLs."""
    queries: dict[str, list[str]] = {}
    title_of: dict[str, str] = {}
    for page in pages:
        for url, _, title in page["hits"]:
            queries.setdefault(str(url), []).append(str(page["query"]))
            title_of[str(url)] = str(title)
    total, true, urls = 0, 0, set()
    for url, qs in queries.items():
        named = people_in_title(title_of[url])
        if len(qs) < 2 or portrait(title_of[url]) or len(named) > 1:
            continue
        if named and all(mentions(q, named[0][1]) for q in qs):
            continue
        total += 1
        urls.add(url)
        true += len(recognised(web, url)) >= 2
    return {"total": total, "true": true, "urls": urls}


def world_person(world: World, key: str) -> int | None:
    found = world.find(key)
    return found[0] if found else None


def analyse(
    web: PhotoWeb, truth: Truth, memory: SqliteMemory, run_id: str, final: dict[str, Any], shortest: int
) -> dict[str, Any]:
    world = web.world
    edges = final.get("edges") or []
    ids = [str(edges[0]["evidence"]["idA"])] + [str(e["evidence"]["idB"]) for e in edges]
    chain = [p for p in map(world.by_celebrity_id, ids) if p is not None]
    assert len(chain) == len(ids), "a chain's person is not in the world"
    a, b = chain[0], chain[-1]
    found = len(edges)
    leads = RunLeads(memory, run_id, 86_400)
    looked = leads.looked()
    titles = {
        str(hit[0]): (str(hit[2]), str(page["query"])) for page in leads.pages() for hit in page["hits"]
    }
    read = set(titles)
    rank = {str(hit[0]): n for page in leads.pages() for n, hit in enumerate(page["hits"])}
    priced: dict[int, dict[int, float]] = {}
    in_hand: Edges = {}
    for url in read:
        people = recognised(web, url)
        usd = 0.0 if url in looked else DEFAULT_COSTS.recognition_usd
        add_clique(in_hand, people)
        for i, x in enumerate(people):
            for y in people[i + 1 :]:
                for p, q in ((x, y), (y, x)):
                    priced.setdefault(p, {})[q] = min(priced.get(p, {}).get(q, usd), usd)
    proven: Edges = {}
    for x, y in pairwise(chain):
        add_clique(proven, (x, y))
        priced.setdefault(x, {})[y] = priced.setdefault(y, {})[x] = 0.0
    for x, ys in proven.items():
        in_hand.setdefault(x, set()).update(ys)
    meta = RunControl(memory, run_id, 86_400).meta()
    record = meta.shortening if meta is not None else None
    allowance = record.allowance_usd if record is not None else 0.0
    new_usd = DEFAULT_COSTS.search_usd + DEFAULT_COSTS.recognition_usd
    oracle = found
    for hops in range(found - 1, shortest - 1, -1):
        if cheapest(a, b, hops, priced, truth.graph, new_usd) <= allowance + 1e-9:
            oracle = hops
        else:
            break
    on_pages = fewest(a, b, found - 1, in_hand)
    shortcut = route(a, b, in_hand) if on_pages is not None else []
    evidence = [
        [
            {"title": titles[u][0], "page": titles[u][1], "rank": rank[u], "looked": u in looked, "url": u}
            for u in sorted(read)
            if {x, y} <= set(recognised(web, u))
        ][:3]
        for x, y in pairwise(shortcut)
        if not (x in proven and y in proven.get(x, ()))
    ]
    one_search = fewest(a, b, found - 1, in_hand, truth.graph, 1)
    recurring = recurring_pairs(web, titles, world)
    off = off_query(web, leads.pages(), world)
    multi = on_several_pages(web, leads.pages(), world)
    hinted: Edges = {x: set(ys) for x, ys in proven.items()}  # proven links and recurring copies
    for x, y in recurring["true"]:
        add_clique(hinted, (x, y))
    skips = [
        [world.name(chain[i]), world.name(chain[j])]
        for i in range(len(chain))
        for j in range(i + 2, len(chain))
        if (i, j) != (0, len(chain) - 1) and chain[j] in truth.graph.neighbors(chain[i])
    ]
    return {
        "found": found,
        "shortest": shortest,
        "on_pages_read": on_pages,
        "one_pair_search": one_search,
        "by_recurring_copies": fewest(a, b, found - 1, hinted),
        "recurring_candidates": recurring["candidates"],
        "recurring_true": len(recurring["true"]),
        "off_query": {k: v for k, v in off.items() if k != "urls"},
        "shortcut_off_query": [sum(p["url"] in off["urls"] for p in photos) for photos in evidence],
        "several_pages": {k: v for k, v in multi.items() if k != "urls"},
        "shortcut_several_pages": [sum(p["url"] in multi["urls"] for p in photos) for photos in evidence],
        "chain": [world.name(p) for p in chain],
        "skip_pairs": skips,
        "oracle": oracle,
        "shortcut": [world.name(p) for p in shortcut],
        "shortcut_photos": evidence,
        "allowance_usd": allowance,
        "shortening": record.model_dump() if record is not None else None,
    }


def _totals(rows: list[dict[str, Any]], signal: str) -> dict[str, int]:
    return {k: sum(r[signal][k] for r in rows) for k in ("total", "true")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_sample_options(parser, tier="famous", pairs=20)
    parser.add_argument("--share", type=float, default=Budgets().shorten_share)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    web = photo_web(load_world(args.world), 0, web_name(args.web))
    truth = Truth(web)
    options = RunOptions(budgets=Budgets(shorten_share=args.share))
    definition = load_definition()
    rows: list[dict[str, Any]] = []
    solved = 0
    for n, pair in enumerate(sample_pairs(web, args.pairs, args.seed, args.tier), 1):
        shortest = truth.shortest(pair, options.max_hops)
        memory = SqliteMemory(":memory:")
        try:
            environment = SandboxEnvironment(web, planner_recall=args.recall)
            runner = LocalRunner(memory, environment, costs=DEFAULT_COSTS, definition=definition)
            result = runner.run(pair.a.name, pair.b.name, options)
            final = result.final.data if result.final is not None else {}
            if result.outcome != "path" or shortest is None or not truth.check(final, pair).solved:
                continue
            solved += 1
            row = analyse(web, truth, memory, result.run_id, final, shortest)
            row["pair"] = [pair.a.given, pair.b.given]
            rows.append(row)
            if row["found"] > shortest:
                print(
                    f"{n:3} {pair.a.given} — {pair.b.given}: {row['found']} hops, shortest {shortest}; "
                    f"pages read {row['on_pages_read']}, +1 search {row['one_pair_search']}, "
                    f"oracle {row['oracle']} (allowance ${row['allowance_usd']:.4f}); "
                    f"skip pairs {len(row['skip_pairs'])}, recurring copies {row['by_recurring_copies']}; "
                    f"tried {len((row['shortening'] or {}).get('tried', []))}, "
                    f"stopped {(row['shortening'] or {}).get('stopped')}",
                    flush=True,
                )
        finally:
            memory.close()
    excess = [r for r in rows if r["found"] > r["shortest"]]
    summary = {
        "solved": solved,
        "mean_excess": round(sum(r["found"] - r["shortest"] for r in rows) / max(1, solved), 3),
        "oracle_mean_excess": round(sum(r["oracle"] - r["shortest"] for r in rows) / max(1, solved), 3),
        "with_excess": len(excess),
        "shorter_on_pages_read": sum(r["on_pages_read"] is not None for r in excess),
        "shorter_with_one_pair_search": sum(
            r["on_pages_read"] is None and r["one_pair_search"] is not None for r in excess
        ),
        "shortest_on_pages_read": sum(r["on_pages_read"] == r["shortest"] for r in excess),
        # round 4's signals, over the pairs answered above their shortest chain
        "with_a_provable_skip_pair": sum(bool(r["skip_pairs"]) for r in excess),
        "shorter_by_recurring_copies": sum(r["by_recurring_copies"] is not None for r in excess),
        "shortcut_links_on_pages_read": sum(len(r["shortcut_photos"]) for r in excess),
        "of_them_off_query": sum(bool(n) for r in excess for n in r["shortcut_off_query"]),
        "of_them_on_several_pages": sum(bool(n) for r in excess for n in r["shortcut_several_pages"]),
        "off_query_photos": _totals(excess, "off_query"),
        "several_pages_photos": _totals(excess, "several_pages"),
    }
    print(json.dumps(summary))
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "args": vars(args) | {"world": str(args.world), "json": str(args.json)},
                    "summary": summary,
                    "rows": rows,
                },
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
