"""A stream of questions as a deployment sees them: a few famous names make most questions, asked in
order on one memory (and so one evidence graph), and what each tenth of the stream costs.

Each question's two people are drawn with weight 1/rank among the world's `top` most credited
(fame: the events a person appears in, as scripts/famous_pairs.py ranks them), two distinct names;
the same pair may come again, as it would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.bench.metrics import RunRecord
from visual_degrees_tools.bench.pairs import BenchPair, pair_of
from visual_degrees_tools.sandbox.photoweb import PhotoWeb

STREAM_TOP = 400  # the most credited people questions are about
BLOCK = 10  # questions per point of the cost curve
THIRD = 30  # the first and last questions compared


def stream_pairs(web: PhotoWeb, count: int, seed: int, top: int = STREAM_TOP) -> list[BenchPair]:
    if count < 1:
        raise InvalidInput("--stream must be at least 1")
    world = web.world
    ranked = sorted(range(world.size), key=lambda p: (-world.fame[p], world.raws[p]))[:top]
    if len({world.keys[p] for p in ranked}) < 2:
        raise InvalidInput("the world has fewer than two people to ask about")
    weights = [1.0 / rank for rank in range(1, len(ranked) + 1)]
    rng = random.Random(seed)
    pairs: list[BenchPair] = []
    while len(pairs) < count:
        x, y = rng.choices(ranked, weights=weights, k=2)
        if world.keys[x] != world.keys[y]:
            pairs.append(pair_of(web, world.raws[x], world.raws[y]))
    return pairs


def stream_figures(records: Sequence[RunRecord]) -> dict[str, Any]:
    """Mean cost per run by tens, the first and last THIRD questions' means, and their ratio."""
    costs = [r.cost_usd for r in records]
    tens = [round(_mean(costs[i : i + BLOCK]), 5) for i in range(0, len(costs), BLOCK)]
    third = min(THIRD, len(costs) // 2) or 1
    first, last = _mean(costs[:third]), _mean(costs[-third:])
    return {
        "stream_cost_by_tens": tens,
        "stream_first_mean_cost_usd": round(first, 5),
        "stream_last_mean_cost_usd": round(last, 5),
        "stream_last_to_first": round(last / first, 3) if first else None,
        "stream_compared": third,
        "stream_free_answers": sum(1 for r in records if r.outcome == "path" and r.cost_usd == 0),
    }


def plot_stream(path: Path, title: str, figures: dict[str, Any]) -> bool:
    """The cost curve as a PNG (False when matplotlib, the `bench` extra, is missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    tens = figures["stream_cost_by_tens"]
    xs = [BLOCK * (i + 1) for i in range(len(tens))]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(xs, tens, marker="o", label="mean cost per question, each ten")
    ax.axhline(figures["stream_first_mean_cost_usd"], color="grey", linestyle="--", label="first 30: mean")
    ax.axhline(figures["stream_last_mean_cost_usd"], color="green", linestyle=":", label="last 30: mean")
    ax.set_xlabel("questions asked so far")
    ax.set_ylabel("USD per question")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
