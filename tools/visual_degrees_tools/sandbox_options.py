"""The sandbox's named choices, apart from the sandbox so that the command line can offer them
without loading it: its photo webs (sandbox/webs.py builds them) and the benchmark's pair tiers
(bench/pairs.py draws them).

Webs: `realistic` (the default: results look like real image search) and `clean` (every photo on
one page, captioned by who is in it). Tiers: `uniform` (anyone in the world's largest connected
group), `famous` and `known` (people ranked by the photos showing them with someone else).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal, get_args

from visual_degrees.domain.errors import InvalidInput

WebName = Literal["realistic", "clean"]
WEB_NAMES: tuple[WebName, ...] = get_args(WebName)
DEFAULT_WEB: WebName = "realistic"

Tier = Literal["uniform", "famous", "known"]
TIERS: tuple[Tier, ...] = get_args(Tier)
# A tier's people as ranks, first..last inclusive (1 = the most photographed with others).
TIER_RANKS: dict[Tier, tuple[int, int]] = {"famous": (1, 100), "known": (300, 3000)}


def web_name(text: str) -> WebName:
    """A web's name as given by a user; InvalidInput names the choices."""
    for name in WEB_NAMES:
        if text == name:
            return name
    raise InvalidInput(f"unknown photo web {str(text)[:40]!r}: choose {' or '.join(WEB_NAMES)}")


def add_sample_options(parser: argparse.ArgumentParser, *, tier: Tier, pairs: int) -> None:
    """The options of a script that runs one tier's sample of pairs, drawn as `visual-degrees bench
    --tier T --sample N --seed S` draws it: --world, --web, --seed, --tier, --pairs, --recall."""
    parser.add_argument("--world", type=Path, required=True)
    parser.add_argument("--web", choices=WEB_NAMES, default=DEFAULT_WEB)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--tier", choices=TIERS, default=tier)
    parser.add_argument("--pairs", type=int, default=pairs)
    parser.add_argument("--recall", type=float, default=1.0, help="the planner's recall")
