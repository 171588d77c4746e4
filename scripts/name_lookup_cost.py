"""What it costs `visual-degrees run` to say which world files beside a world have a name it lacks
(local/world_files.py): the first lookup, which indexes each file beside it, and the later ones,
which read those indexes.

    python scripts/name_lookup_cost.py ../shared/data/worlds/cast.G.txt "Meryl Streep"

Indexes go to a fresh temporary cache directory, so the first lookup is a cold one.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from visual_degrees_tools.local import world_files


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("world", type=Path)
    parser.add_argument("name")
    parser.add_argument("--repeat", type=int, default=20, help="later lookups timed (default 20)")
    args = parser.parse_args()
    others = world_files.beside(args.world)
    print(
        f"beside {args.world.name}: "
        + ", ".join(f"{p.name} ({p.stat().st_size / 1e6:.1f} MB)" for p in others)
    )
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        found = world_files.holders([args.name], args.world, Path(cache))
        cold = time.perf_counter() - started
        later = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            world_files.holders([args.name], args.world, Path(cache))
            later.append(time.perf_counter() - started)
        size = sum(p.stat().st_size for p in (Path(cache) / world_files.INDEX_DIR).iterdir())
    print(f"{args.name!r} is in: {', '.join(p.name for p in found[args.name]) or 'none of them'}")
    print(f"first lookup (indexes made): {cold:.2f} s; indexes on disk: {size / 1e6:.1f} MB")
    print(f"later lookups: median {statistics.median(later) * 1000:.0f} ms, max {max(later) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
