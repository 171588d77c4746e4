"""Run benchmark pairs through the real state machine on the local engine, and judge every answer.

The photo web is built once and shared by every run (each run still gets its own virtual clock);
each pair gets a fresh in-memory run memory, unless cross-run reuse is what is being measured
(`shared_memory`), which is then reported as such. CPU time is the process's, per run, world
loading excluded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from visual_degrees.domain import strategy as strategies
from visual_degrees.domain.costs import DEFAULT_COSTS
from visual_degrees.domain.models import RunOptions, Strategy
from visual_degrees.ports import Clock
from visual_degrees.services.budget import Budget
from visual_degrees.services.context import CacheTally
from visual_degrees.services.event_log import run_pk
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench.metrics import RunRecord, summarize
from visual_degrees_tools.bench.pairs import BenchPair
from visual_degrees_tools.bench.truth import Truth
from visual_degrees_tools.local.asl.definition import load_definition
from visual_degrees_tools.local.environments import SandboxEnvironment
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment

Progress = Callable[[int, int, RunRecord], None]


@dataclass
class BenchConfig:
    strategy: Strategy = "default"
    options: RunOptions = field(default_factory=RunOptions)
    knobs: dict[str, bool] = field(default_factory=dict)  # switched knobs (an ablation)
    shared_memory: bool = False  # one memory for every run: measures reuse across runs
    # With shared_memory: ask every pair this many times and report the last pass (a repeated question)
    passes: int = 1


@dataclass
class BenchResult:
    figures: dict[str, Any]
    records: list[RunRecord]


class Bench:
    def __init__(self, environment: SandboxEnvironment, truth: Truth | None = None) -> None:
        self.environment = environment
        self.truth = truth or Truth(environment.web)
        self._definition = load_definition()

    def run(
        self, pairs: Sequence[BenchPair], config: BenchConfig, progress: Progress | None = None
    ) -> BenchResult:
        knobs = strategies.with_changes(config.strategy, config.knobs)  # InvalidInput names a bad one
        options = config.options.model_copy(update={"strategy": config.strategy, "knobs": dict(config.knobs)})
        shared = SqliteMemory(":memory:") if config.shared_memory else None
        records: list[RunRecord] = []
        saved = CacheTally()  # what the reported (last) pass's caches saved, summed over its runs
        passes = max(1, config.passes) if shared is not None else 1
        try:
            for done in range(passes):
                records, saved = [], CacheTally()
                for n, pair in enumerate(pairs, 1):
                    record = self.run_pair(pair, options, shared, saved)
                    records.append(record)
                    if progress is not None:
                        progress(n + done * len(pairs), passes * len(pairs), record)
        finally:
            if shared is not None:
                shared.close()
        figures = summarize(records, config.strategy)
        figures.update(
            {
                "knobs": {name: getattr(knobs, name) for name in strategies.knob_names()},
                "shared_memory": config.shared_memory,
                "passes": passes,
                "max_hops": options.max_hops,
                "budgets": options.budgets.dump(),
                "cache_saved": {
                    "searches_in_run": saved.searches_in_run,
                    "searches_across_runs": saved.searches_shared,
                    "recognitions_in_run": saved.recognitions_in_run,
                    "recognitions_across_runs": saved.recognitions_shared,
                },
            }
        )
        return BenchResult(figures=figures, records=records)

    def run_pair(
        self,
        pair: BenchPair,
        options: RunOptions,
        shared: SqliteMemory | None = None,
        saved: CacheTally | None = None,
    ) -> RunRecord:
        memory = shared or SqliteMemory(":memory:")
        clocks: list[tuple[Clock, float]] = []

        def environment(run_id: str) -> RunEnvironment:
            env = self.environment(run_id)
            clocks.append((env.clock, env.clock.now()))
            return env

        shortest = self.truth.shortest(pair, options.max_hops)
        try:
            runner = LocalRunner(memory, environment, costs=DEFAULT_COSTS, definition=self._definition)
            started = time.process_time()
            result = runner.run(pair.a.name, pair.b.name, options)
            cpu_ms = (time.process_time() - started) * 1000
            if saved is not None:
                saved.add(result.cache_tally)
            usage = Budget(
                memory, result.run_id, options.budgets, DEFAULT_COSTS, options.ttl_seconds
            ).summary()
            clock, start = clocks[0]
            final = result.final.data if result.final is not None else {}
            record = RunRecord(
                a=pair.a.given,
                b=pair.b.given,
                shortest=shortest,
                solvable=shortest is not None,
                outcome=result.outcome,
                reason=final.get("reason") or final.get("code"),
                cost_usd=float(usage["costUsd"]),
                searches=int(usage["searches"]),
                recognitions=int(usage["recognitions"]),
                llm_calls=int(usage["llmCalls"]),
                state_transitions=len(result.execution.visited),
                sim_latency_s=round(clock.now() - start, 3),
                cpu_ms=round(cpu_ms, 2),
            )
            record.edges_seen, record.false_edges_seen = self._graph_truth(memory, result.run_id)
            if result.outcome == "path":
                verdict = self.truth.check(final, pair)
                record.hops, record.true_path, record.meant = verdict.hops, verdict.true, verdict.meant
                record.problems = verdict.problems
            return record
        finally:
            if shared is None:
                memory.close()

    def _graph_truth(self, memory: SqliteMemory, run_id: str) -> tuple[int, int]:
        """(verified pairs in the run's graph, how many of them their photo does not truly show)."""
        false = 0
        items = memory.query(run_pk(run_id), "edge#")
        for item in items:
            ev = item.data.get("evidence", {})
            if not {ev.get("idA"), ev.get("idB")} <= self.truth.shown(str(ev.get("imageUrl", ""))):
                false += 1
        return len(items), false
