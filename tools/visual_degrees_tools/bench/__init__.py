"""Benchmarks: run many pairs through the real state machine against the simulated photo web, check
every answer against the simulator's ground truth, and report the figures (issue 6).

    env = sandbox_environment(Path("cast.G.txt"))
    pairs = sample_pairs(env.web, 200, seed=11)
    result = Bench(env).run(pairs, BenchConfig(strategy="default"))
    result.figures["success_rate"], result.records[0].solved
"""

from visual_degrees_tools.bench.harness import Bench, BenchConfig, BenchResult
from visual_degrees_tools.bench.metrics import CONTRACT_KEYS, RunRecord, percentile, summarize
from visual_degrees_tools.bench.pairs import BenchPair, load_pairs, pair_of, sample_pairs
from visual_degrees_tools.bench.report import Section, machine_state, write_report
from visual_degrees_tools.bench.truth import Truth, Verdict

__all__ = [
    "CONTRACT_KEYS",
    "Bench",
    "BenchConfig",
    "BenchPair",
    "BenchResult",
    "RunRecord",
    "Section",
    "Truth",
    "Verdict",
    "load_pairs",
    "machine_state",
    "pair_of",
    "percentile",
    "sample_pairs",
    "summarize",
    "write_report",
]
