"""Per-run records and the benchmark's figures (the keys of `summarize` are a contract: keep them).

Arithmetic, stated once:
- means are over every pair run (`pairs`), except `mean_path_excess` (over solved pairs that are
  solvable, found hops minus shortest hops: `path_excess`) and `mean_cost_usd_solved` (over solved
  pairs);
- `path_excess_distribution` splits those same pairs by their excess: {"0": {"pairs", "share"}, …};
- `success_rate` = solved solvable pairs / solvable pairs (0 when nothing is solvable); a pair the
  ground truth calls unsolvable but a run solved anyway is counted in `solved` and reported as
  `solved_unsolvable`, never in the rate;
- percentiles are nearest-rank: the smallest value with at least p % of the values at or below it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

CONTRACT_KEYS = (
    "pairs",
    "solvable",
    "solved",
    "success_rate",
    "false_paths",
    "mean_cost_usd",
    "mean_search_calls",
    "mean_recognition_calls",
    "mean_llm_calls",
    "mean_state_transitions",
    "mean_path_excess",
    "p50_sim_latency_s",
    "p95_sim_latency_s",
    "cpu_ms_p50",
    "strategy",
)


@dataclass
class RunRecord:
    a: str
    b: str
    shortest: int | None  # provable distance within max hops, None if farther or never
    solvable: bool
    outcome: str  # path | no_path | cancelled | error
    reason: str | None  # the no_path reason or the error code
    hops: int | None = None
    true_path: bool | None = None  # None when no path was reported
    meant: bool | None = None
    problems: list[str] = field(default_factory=list)
    cost_usd: float = 0.0
    searches: int = 0
    recognitions: int = 0
    llm_calls: int = 0
    state_transitions: int = 0
    sim_latency_s: float = 0.0
    cpu_ms: float = 0.0
    edges_seen: int = 0  # verified pairs in the run's graph, on the path or not
    false_edges_seen: int = 0  # of those, pairs the photo does not truly show (a lookalike at >= 80)

    @property
    def solved(self) -> bool:
        return self.outcome == "path" and bool(self.true_path) and bool(self.meant)

    @property
    def false_path(self) -> bool:
        return self.outcome == "path" and self.true_path is False

    def dump(self) -> dict[str, Any]:
        return asdict(self)


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (0 < p <= 100) of `values`; 0.0 for no values."""
    if not values:
        return 0.0
    if not 0 < p <= 100:
        raise ValueError(f"percentile {p} is outside (0, 100]")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def path_excess(hops: int, shortest: int) -> int:
    """Found hops minus the shortest provable hops. A true chain is itself provable, so the shortest
    is at most its hops: the ground truth's graph can miss a link a run proved (a pair or chain
    query reaches photos its reading of the web does not, scripts/provable_gaps.py), and an answer
    below it counts as at the shortest, never below."""
    return hops - min(shortest, hops)


def summarize(records: Sequence[RunRecord], strategy: str) -> dict[str, Any]:
    """The contract figures for one strategy's runs, then a few more that help reading them."""
    solvable = [r for r in records if r.solvable]
    solved = [r for r in records if r.solved]
    solved_solvable = [r for r in solved if r.solvable]
    excess = [
        path_excess(r.hops, r.shortest)
        for r in solved_solvable
        if r.hops is not None and r.shortest is not None
    ]
    figures: dict[str, Any] = {
        "pairs": len(records),
        "solvable": len(solvable),
        "solved": len(solved),
        "success_rate": round(len(solved_solvable) / len(solvable), 4) if solvable else 0.0,
        "false_paths": sum(r.false_path for r in records),
        "mean_cost_usd": round(_mean([r.cost_usd for r in records]), 6),
        "mean_search_calls": round(_mean([r.searches for r in records]), 3),
        "mean_recognition_calls": round(_mean([r.recognitions for r in records]), 3),
        "mean_llm_calls": round(_mean([r.llm_calls for r in records]), 3),
        "mean_state_transitions": round(_mean([r.state_transitions for r in records]), 3),
        "mean_path_excess": round(_mean(excess), 3),
        "p50_sim_latency_s": round(percentile([r.sim_latency_s for r in records], 50), 3),
        "p95_sim_latency_s": round(percentile([r.sim_latency_s for r in records], 95), 3),
        "cpu_ms_p50": round(percentile([r.cpu_ms for r in records], 50), 2),
        "strategy": strategy,
    }
    by_distance: dict[str, list[int]] = {}
    for r in solvable:
        counts = by_distance.setdefault(str(r.shortest), [0, 0])
        counts[0] += 1
        counts[1] += r.solved
    figures.update(
        {
            "solved_unsolvable": len(solved) - len(solved_solvable),
            "namesake_paths": sum(bool(r.outcome == "path" and r.true_path and not r.meant) for r in records),
            "errors": sum(r.outcome == "error" for r in records),
            "outcomes": dict(Counter(r.outcome for r in records)),
            "stop_reasons": dict(Counter(r.reason or "path" for r in records)),
            "mean_cost_usd_solved": round(_mean([r.cost_usd for r in solved]), 6),
            "mean_hops_solved": round(_mean([float(r.hops or 0) for r in solved]), 3),
            "p50_sim_latency_s_solved": round(percentile([r.sim_latency_s for r in solved], 50), 3),
            "cpu_ms_p95": round(percentile([r.cpu_ms for r in records], 95), 2),
            "edges_verified": sum(r.edges_seen for r in records),
            "edges_false": sum(r.false_edges_seen for r in records),
            "solvable_by_distance": {
                d: {"pairs": n, "solved": s} for d, (n, s) in sorted(by_distance.items())
            },
            "path_excess_distribution": excess_distribution(excess),
        }
    )
    return figures


def excess_distribution(excess: Sequence[int]) -> dict[str, dict[str, float]]:
    """Solved solvable pairs by path excess (found hops − shortest hops): "0" at the shortest,
    "1" one hop longer, …; each with how many pairs and their share of the solved solvable pairs."""
    counts = Counter(excess)
    return {str(k): {"pairs": n, "share": round(n / len(excess), 4)} for k, n in sorted(counts.items())}


def cost_success_curve(records: Sequence[RunRecord]) -> list[tuple[float, float]]:
    """Steps (dollars, share of solvable pairs solved spending at most that), for the report's plot:
    what success a per-run spending cap would have kept, read off the runs as they went."""
    solvable = sum(r.solvable for r in records)
    if not solvable:
        return []
    costs = sorted(r.cost_usd for r in records if r.solved and r.solvable)
    top = max(r.cost_usd for r in records)
    curve = [(0.0, 0.0)]
    for n, cost in enumerate(costs, 1):
        curve.append((cost, n / solvable))
    curve.append((top, len(costs) / solvable))
    return curve
