"""A seeded sample of pairs among a world's most-credited people (the "famous" pairs users ask about).

    python scripts/famous_pairs.py ../../shared/data/worlds/cast.G.txt --top 120 --pairs 60 --seed 11 \
        > famous.jsonl
    visual-degrees bench --world ../../shared/data/worlds/cast.G.txt --pairs famous.jsonl --json

Fame is the number of events a person appears in (the sandbox's proxy); ties go to the name as the
world writes it. Pairs are drawn without repetition, written in world spelling (one person each), and
never two people of one display name. One JSON line {"a", "b"} per pair.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from visual_degrees_tools.sandbox.world import load_world


def famous_pairs(path: str, top: int, count: int, seed: int) -> list[tuple[str, str]]:
    world = load_world(path)
    ranked = sorted(range(world.size), key=lambda p: (-world.fame[p], world.raws[p]))[:top]
    rng = random.Random(seed)
    seen: set[frozenset[int]] = set()
    pairs: list[tuple[str, str]] = []
    while len(pairs) < count:
        x, y = rng.sample(ranked, 2)
        if frozenset((x, y)) in seen or world.keys[x] == world.keys[y]:
            continue
        seen.add(frozenset((x, y)))
        pairs.append((world.raws[x], world.raws[y]))
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("world")
    parser.add_argument("--top", type=int, default=120, help="how many of the most credited")
    parser.add_argument("--pairs", type=int, default=60, help="how many pairs")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    if args.pairs > args.top * (args.top - 1) // 2:
        parser.error("more pairs asked than the top people make")
    for a, b in famous_pairs(args.world, args.top, args.pairs, args.seed):
        sys.stdout.write(json.dumps({"a": a, "b": b}, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
