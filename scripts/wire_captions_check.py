"""Does a run read the same people from a caption however a wire service writes it?

    python scripts/wire_captions_check.py ../shared/data/worlds/cast.G.txt

For every agency caption of the realistic web, compares the people the title reader
(domain/captions.py) reads from it with those it reads from the same caption on the
`wire-captions` variant (dateline first, "X, left, and Y", credit last; bench/web_variants.py).
Prints how many captions were compared and how many read differently, with the first few.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from visual_degrees.domain.captions import keys_in_title
from visual_degrees_tools.bench.web_variants import variant_web
from visual_degrees_tools.sandbox import load_world, photo_web
from visual_degrees_tools.sandbox.pages import Site

SHOWN = 5


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("world", type=Path)
    args = parser.parse_args()
    world = load_world(args.world)
    plain, wire = photo_web(world, 0, "realistic"), variant_web(world, "wire-captions")
    assert wire.pages is not None
    agency = [page for page in range(wire.page_count) if wire.pages.site[page] == Site.AGENCY]
    differ = [
        page
        for page in agency
        if keys_in_title(wire.page_title(page)) != keys_in_title(plain.page_title(page))
    ]
    for page in differ[:SHOWN]:
        title = wire.page_title(page)
        print(f"{title!r}: {keys_in_title(title)}, plain {keys_in_title(plain.page_title(page))}")
    print(f"{len(agency):,} agency captions, {len(differ):,} read differently in wire style")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
