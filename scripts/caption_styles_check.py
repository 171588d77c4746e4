"""Does a run read the same people from a caption however a site writes it?

    python scripts/caption_styles_check.py ../shared/data/worlds/cast.G.txt [--variant headline-captions]

For every agency caption of the realistic web, compares the people the title reader
(domain/captions.py) reads from it with those it reads from the same caption on a variant that
writes captions in another style (bench/web_variants.py): `wire-captions` (dateline first, "X,
left, and Y", credit last; the default) or `headline-captions` (every word capitalised). Prints how
many captions were compared and how many read differently, with the first few.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from visual_degrees.domain.captions import keys_in_title
from visual_degrees_tools.bench.web_variants import variant_web
from visual_degrees_tools.sandbox import load_world, photo_web
from visual_degrees_tools.sandbox.pages import Site

SHOWN = 5
STYLES = ("wire-captions", "headline-captions")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("world", type=Path)
    parser.add_argument("--variant", choices=STYLES, default=STYLES[0])
    args = parser.parse_args()
    world = load_world(args.world)
    plain, styled = photo_web(world, 0, "realistic"), variant_web(world, args.variant)
    assert styled.pages is not None
    agency = [page for page in range(styled.page_count) if styled.pages.site[page] == Site.AGENCY]
    differ = [
        page
        for page in agency
        if keys_in_title(styled.page_title(page)) != keys_in_title(plain.page_title(page))
    ]
    for page in differ[:SHOWN]:
        title = styled.page_title(page)
        print(f"{title!r}: {keys_in_title(title)}, plain {keys_in_title(plain.page_title(page))}")
    print(f"{len(agency):,} agency captions, {len(differ):,} read differently as {args.variant} writes them")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
