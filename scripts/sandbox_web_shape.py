"""What a photo web looks like from a search box: pages per photo, caption styles, who is named, and
how many of the results for a person's name show them alone; for the clean and the realistic web.

    python scripts/sandbox_web_shape.py ../shared/data/worlds/cast.G.txt
    python scripts/sandbox_web_shape.py --web realistic --json WORLD

The figures docs/sandbox.md quotes for the realistic web. People are sampled (seed 1); "results"
are the first 200 for the person's name, as the default strategy reads them. `titles_kept_per_page`:
the entries (a person, a photo) the pages of the 400 most credited people (those a `bench --stream`
asks about; their name, and their first discovery page, "X cast") give the titles kept for later
runs (caption_leads/earlier_titles.note_page, before its bound).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from typing import Any

from visual_degrees_tools.sandbox import load_world, photo_web
from visual_degrees_tools.sandbox.captions import Kind
from visual_degrees_tools.sandbox.ground_truth import ground_truth
from visual_degrees_tools.sandbox.pages import Site, Style
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.ranking import ranker_for
from visual_degrees_tools.sandbox_options import WEB_NAMES

BANDS = ((1, 1), (2, 4), (5, 9), (10, 19), (20, 10**9))
PEOPLE = 3000
SEARCHED = 60  # people searched per band


def shape(path: str, web_kind: str) -> dict[str, Any]:
    world = load_world(path)
    started = time.process_time()
    web = photo_web(world, 0, web_kind)  # type: ignore[arg-type]
    built = time.process_time() - started
    ranker = ranker_for(web)
    ranked = time.process_time() - started - built
    figures: dict[str, Any] = {
        "world": path,
        "web": web_kind,
        **web.stats,
        "build_cpu_s": round(built, 2),
        "search_index_cpu_s": round(ranked, 2),
    }
    figures.update(_pages(web))
    figures["named_faces"] = _named_faces(web)
    figures["alone_in_results_by_events"] = _alone(web, ranker)
    figures["titles_kept_per_page"] = _title_entries(web, ranker)
    started = time.process_time()
    ground_truth(web).provable_graph()
    figures["truth_cpu_s"] = round(time.process_time() - started, 2)
    return figures


def _pages(web: PhotoWeb) -> dict[str, Any]:
    if web.pages is None:
        return {"pages": web.photo_count}
    table = web.pages
    sites = Counter(Site(s).name.lower() for s in table.site)
    copies = Counter(table.copy_start[p + 1] - table.copy_start[p] for p in range(web.photo_count))
    groups = [p for p in range(web.photo_count) if web.photo_kind[p] == Kind.GROUP]
    styles = Counter(Style(table.style[p]).name.lower() for p in groups)
    return {
        "pages_by_site": dict(sites),
        "photos_by_copies": {str(k): v for k, v in sorted(copies.items())},
        "group_caption_styles": {k: round(v / len(groups), 3) for k, v in styles.items()},
    }


def _named_faces(web: PhotoWeb) -> dict[str, float]:
    """Of the faces in photos of two or more: the share some page of their photo names."""
    from visual_degrees_tools.sandbox.pages import page_names

    named = total = 0
    for photo in range(web.photo_count):
        people = web.people_in(photo)
        if len(people) < 2:
            continue
        if web.pages is None:
            on_pages = set(people[:3])
        else:
            pages = (photo, *range(web.pages.copy_start[photo], web.pages.copy_start[photo + 1]))
            on_pages = {p for page in pages for p in page_names(web, page)}
        total += len(people)
        named += sum(p in on_pages for p in people)
    return {"share": round(named / total, 3), "faces": total}


def _alone(web: PhotoWeb, ranker: Any) -> dict[str, dict[str, float]]:
    world = web.world
    people = list(range(world.size))
    random.Random(1).shuffle(people)
    found: dict[str, list[float]] = {}
    for person in people[:PEOPLE]:
        low, high = next(b for b in BANDS if b[0] <= world.fame[person] <= b[1])
        label = f"{low}" if low == high else (f"{low}-{high}" if high < 10**9 else f"{low}+")
        shares = found.setdefault(label, [])
        if len(shares) >= SEARCHED:
            continue
        hits = ranker.rank(world.name(person), 200)
        if hits:
            shares.append(sum(web.people_in(web.page_photo(h)) == (person,) for h in hits) / len(hits))
    return {label: {"people": len(s), "alone": round(sum(s) / len(s), 3)} for label, s in found.items() if s}


def _title_entries(web: PhotoWeb, ranker: Any) -> dict[str, dict[str, float]]:
    from visual_degrees.domain.captions import keys_in_title
    from visual_degrees.domain.queries import GROUP_FIRST, discovery_query
    from visual_degrees.search.strategies.caption_leads.earlier_titles import MOST_NAMED
    from visual_degrees_tools.bench.stream import STREAM_TOP

    world = web.world
    top = sorted(range(world.size), key=lambda p: (-world.fame[p], world.raws[p]))[:STREAM_TOP]
    figures = {}
    for label, round_no in (("name", GROUP_FIRST.index(0)), ("first discovery page", 0)):
        counts = []
        for person in top:
            query = discovery_query(world.name(person), round_no, GROUP_FIRST)
            named = (len(keys_in_title(web.page_title(h))) for h in ranker.rank(query or "", 200))
            counts.append(sum(n for n in named if 2 <= n <= MOST_NAMED))
        counts.sort()
        figures[label] = {
            "pages": len(counts),
            "mean": round(sum(counts) / len(counts), 1),
            "p90": counts[int(0.9 * (len(counts) - 1))],
            "max": counts[-1],
        }
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("worlds", nargs="+")
    parser.add_argument("--web", choices=WEB_NAMES, action="append", help="default: both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv[1:])
    for path in args.worlds:
        for web_kind in args.web or WEB_NAMES:
            figures = shape(path, web_kind)
            if args.json:
                print(json.dumps(figures))
                continue
            print(f"# {path} ({web_kind} web)")
            for key, value in figures.items():
                print(f"{key:28} {json.dumps(value) if isinstance(value, dict) else value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
