"""Photo webs the strategy was never tuned on: the realistic web with one of its documented figures
moved, to measure how the default strategy holds up where the web is harsher or kinder than the
sandbox's guess (the project is also judged on webs that are not this one).

Each variant changes the realistic web's parameters (sandbox/pages.py, photos.py, noise.py; their
defaults and sources are in docs/sandbox.md) and nothing else: the same world and seed give the same
events and people. A variant is a benchmark input only; no run can ask for one.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace

from visual_degrees_tools.sandbox import PhotoWeb, photo_web
from visual_degrees_tools.sandbox.noise import DEFAULT_NOISE, NoiseModel
from visual_degrees_tools.sandbox.pages import DEFAULT_PAGES, PageParameters
from visual_degrees_tools.sandbox.photos import PhotoParameters
from visual_degrees_tools.sandbox.webs import REALISTIC_PHOTOS
from visual_degrees_tools.sandbox.world import World
from visual_degrees_tools.sandbox_options import DEFAULT_WEB, web_name


@dataclass(frozen=True)
class Variant:
    what: str  # one line for reports
    pages: PageParameters = DEFAULT_PAGES
    photos: PhotoParameters = REALISTIC_PHOTOS
    noise: NoiseModel = DEFAULT_NOISE


# Agencies that can name fewer of the people they photograph and name them less often.
_FEWER_NAMES = replace(
    DEFAULT_PAGES,
    identified_base=0.35,
    identified_per_star=0.10,
    group_styles=(0.25, 0.25, 0.25, 0.25),
    crowd_styles=(0.20, 0.0, 0.30, 0.50),
)
# Faces scored lower and mistaken more often (smaller, older, turned photos).
_NOISIER = replace(
    DEFAULT_NOISE,
    high_share=(0.75, 0.70, 0.50),
    mid_share=(0.12, 0.14, 0.25),
    lookalike=(0.01, 0.03, 0.06),
)
_MORE_PORTRAITS = replace(REALISTIC_PHOTOS, portrait_per_star=5.0)

VARIANTS: dict[str, Variant] = {
    "fewer-names": Variant(
        "captions name fewer people: agencies identify 35 % + 10 % per log2(events) (55 % + 15 %), "
        "a quarter of group captions in each style, half of crowds unnamed",
        pages=_FEWER_NAMES,
    ),
    "more-names": Variant(
        "captions name more people: agencies identify 75 % + 15 % per log2(events), 8 % of group "
        "captions unnamed (15 %)",
        pages=replace(DEFAULT_PAGES, identified_base=0.75, group_styles=(0.45, 0.35, 0.12, 0.08)),
    ),
    "more-portraits": Variant("5 solo portraits per log2(events) per event (3)", photos=_MORE_PORTRAITS),
    "more-copies": Variant(
        "photos republished more: 0.2 + 0.6 copies per log2(events) (0.35)",
        pages=replace(DEFAULT_PAGES, copies_per_star=0.6),
    ),
    "fewer-copies": Variant(
        "photos republished less: 0.1 + 0.15 copies per log2(events) (0.2 + 0.35)",
        pages=replace(DEFAULT_PAGES, copies_base=0.1, copies_per_star=0.15),
    ),
    "noisier-faces": Variant(
        "faces scored lower: 75 / 70 / 50 % score 95+ (86 / 84 / 62 %) in portraits / groups / "
        "crowds, lookalikes three times as often",
        noise=_NOISIER,
    ),
    "wire-captions": Variant(
        "captions as wire services write them: a dateline first, the credit last, "
        '"X, left, and Y" for two people named (the same photos, names and pages)',
        pages=replace(DEFAULT_PAGES, wire=True),
    ),
    "headline-captions": Variant(
        "captions in headline case, as news sites title photos: every word capitalised "
        '("Kevin Bacon And A Guest Attend The Premiere Of …"; the same photos, names and pages)',
        pages=replace(DEFAULT_PAGES, headline=True),
    ),
    "harsh": Variant(
        "fewer-names, more-portraits and noisier-faces together",
        pages=_FEWER_NAMES,
        photos=_MORE_PORTRAITS,
        noise=_NOISIER,
    ),
}


def variant_web(world: World, name: str, seed: int = 0) -> PhotoWeb:
    """The realistic web of `world` and `seed` with variant `name`'s parameters. Its identity
    differs from the realistic web's, so no evidence is shared between them."""
    if name not in VARIANTS:
        raise SystemExit(f"unknown web variant {name!r}: choose one of {', '.join(VARIANTS)}")
    v = VARIANTS[name]
    return PhotoWeb(world, seed, photos=v.photos, noise=v.noise, pages=v.pages)


def chosen_web(world: World, web: str, variant: str | None) -> tuple[PhotoWeb, str]:
    """The web a benchmark script was asked for (`--web`, `--variant`) and its label in figures:
    "realistic", "clean" or "realistic-NAME"."""
    if not variant:
        return photo_web(world, 0, web_name(web)), web
    if web != DEFAULT_WEB:
        raise SystemExit(f"--variant: variants are of the {DEFAULT_WEB} web")
    return variant_web(world, variant), f"{DEFAULT_WEB}-{variant}"


def add_variant_option(parser: argparse.ArgumentParser) -> None:
    """`--variant NAME`, as every benchmark script that builds a web takes it (chosen_web)."""
    parser.add_argument(
        "--variant",
        choices=sorted(VARIANTS),
        help='a variant of the realistic web (bench/web_variants.py; figures labelled "realistic-NAME")',
    )
