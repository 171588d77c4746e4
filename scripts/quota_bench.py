#!/usr/bin/env python
"""Many runs at once on shared provider quotas, on loopback only: the live adapters (Brave search,
the SSRF-safe fetcher, Rekognition) against a photo web that enforces per-second quotas (429 /
ThrottlingException above them, tools/visual_degrees_tools/wire/quota_web.py), every paid call paced
by the shared limiter, the planner the sandbox's simulated one. Pairs are famous: drawn among the
most credited people of the world.

    python scripts/quota_bench.py runs       # (a) 40 runs at once, and the same pairs alone
    python scripts/quota_bench.py together --pace-at 0.9   # only the 40 at once, paced under the quotas
    python scripts/quota_bench.py serve      # (b) the same through `serve`, 40 WebSocket clients
    python scripts/quota_bench.py fairness   # (c) one client's 20 max-budget runs beside 20 clients
    python scripts/quota_bench.py all --json docs/benchmarks/quotas.json

Printed per phase: runs solved (a path) and how the others ended, runs failed or ended by
throttling, throttled calls (the provider's 429s, and what the runs counted), billed against
served, wall time and the p50 / p90 of the runs' wall times. Bounded: every run has its runtime
budget, every phase a timeout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_WORLD = REPO_ROOT.parent / "shared" / "data" / "worlds" / "cast.G.txt"  # as from /work/main
PHASE_TIMEOUT = 900.0  # seconds any phase may take before the bench gives up on it
HEAD_START = 5.0  # seconds the heavy client's runs have to fill the queues before the others come
LOAD_STOP_SECONDS = 120.0  # how long cancelled background runs get to stop before billing is read
MAX_BUDGETS = {"searches": 100, "recognitions": 600, "llmCalls": 60, "runtimeSeconds": 600}


@dataclass
class Ended:
    """How one run ended, as its terminal event says."""

    client: str
    outcome: str  # final, no_path, error, cancelled, or "unfinished"
    seconds: float
    usage: dict[str, Any] = field(default_factory=dict)
    reason: str = ""  # no_path: which limit ended it; error: its code


@dataclass
class Phase:
    name: str
    runs: list[Ended]
    seconds: float
    provider: dict[str, int]
    background: list[Ended] = field(default_factory=list)  # runs only there to load the providers

    def summary(self) -> dict[str, Any]:
        billed = [*self.runs, *self.background]
        usage = lambda key: sum(int(r.usage.get(key, 0)) for r in billed)  # noqa: E731
        times = sorted(r.seconds for r in self.runs)
        endings = Counter(f"{r.outcome} ({r.reason})" if r.reason else r.outcome for r in self.runs)
        throttled_end = sum(
            1
            for r in self.runs
            if r.outcome == "error" or (r.outcome == "no_path" and r.reason.endswith("runtime"))
        )
        return {
            "phase": self.name,
            "runs": len(self.runs),
            "solved": sum(1 for r in self.runs if r.outcome == "final"),
            "endings": dict(sorted(endings.items())),
            "failedOrEndedByThrottling": throttled_end,
            "throttledByProvider": {
                "searches": self.provider["searchesThrottled"],
                "recognitions": self.provider["recognitionsThrottled"],
            },
            "throttledCountedByRuns": {
                "searches": usage("throttledSearches"),
                "recognitions": usage("throttledRecognitions"),
            },
            "billed": {"searches": usage("searches"), "recognitions": usage("recognitions")},
            "served": {
                "searches": self.provider["searchesServed"],
                "recognitions": self.provider["recognitionsServed"],
            },
            "backgroundRuns": len(self.background),
            "backgroundStillGoing": sum(1 for r in self.background if r.outcome == "going"),
            "wallSeconds": round(self.seconds, 1),
            "runSecondsP50": round(statistics.median(times), 2) if times else None,
            "runSecondsP90": round(times[int(0.9 * (len(times) - 1))], 2) if times else None,
        }


def show(summary: dict[str, Any]) -> None:
    s = summary
    billed, served = s["billed"], s["served"]
    print(f"\n{s['phase']}: {s['runs']} runs, wall {s['wallSeconds']} s")
    print(f"  solved {s['solved']}/{s['runs']}; endings {s['endings']}")
    ended = s["failedOrEndedByThrottling"]
    print(f"  runs failed or ended by throttling (error, or no_path on the runtime budget): {ended}")
    print(
        f"  throttled by the provider: {s['throttledByProvider']['searches']} searches, "
        f"{s['throttledByProvider']['recognitions']} recognitions; counted by the runs: "
        f"{s['throttledCountedByRuns']['searches']} / {s['throttledCountedByRuns']['recognitions']}"
    )
    same = billed == served
    print(
        f"  billed {billed['searches']} searches, {billed['recognitions']} recognitions; served "
        f"{served['searches']}, {served['recognitions']} ({'equal' if same else 'DIFFERENT'})"
    )
    print(f"  run wall time p50 {s['runSecondsP50']} s, p90 {s['runSecondsP90']} s")
    if s["backgroundRuns"]:
        going = s["backgroundStillGoing"]
        print(
            f"  billed includes the {s['backgroundRuns']} background runs' usage"
            + (f" ({going} were still going when it was read)" if going else "")
        )


# ---- the world, its famous pairs, the quota web ---------------------------------------------------


@dataclass
class Bench:
    web: Any
    quota: Any  # QuotaWeb
    limiter: Any
    state: Path

    def counts(self) -> dict[str, int]:
        return dict(self.quota.counts())

    def runner(self, name: str) -> Any:
        from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
        from visual_degrees_tools.local.runner import LocalRunner

        memory = SqliteMemory(self.state / f"{name}.sqlite3")
        return LocalRunner(memory, self.quota.environment(self.web, self.limiter))


def since(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {key: after[key] - before[key] for key in after}


def ended_of(result: Any, client: str, seconds: float) -> Ended:
    final = result.final
    data = final.data if final is not None else {}
    reason = str(data.get("code") or "")
    if final is not None and final.type == "no_path":
        reason = f"{data.get('reason', '')}" + (f": {data['exhausted']}" if data.get("exhausted") else "")
    return Ended(
        client, final.type if final else "unfinished", seconds, dict(data.get("usage") or {}), reason
    )


# ---- (a) runs in one process ------------------------------------------------------------------------


def run_alone(bench: Bench, pairs: list[tuple[str, str]], label: str) -> Phase:
    """Each pair alone, one after another, each on a fresh memory (nothing shared between them)."""
    before, started = bench.counts(), time.time()
    ended = []
    for index, (a, b) in enumerate(pairs):
        began = time.time()
        result = bench.runner(f"{label}-{index}").run(a, b)
        ended.append(ended_of(result, f"client-{index}", time.time() - began))
    return Phase(label, ended, time.time() - started, since(before, bench.counts()))


@dataclass(frozen=True)
class Start:
    client: str
    a: str
    b: str
    options: dict[str, Any] | None = None
    after: float = 0.0  # seconds after the phase begins


def run_together(bench: Bench, starts: list[Start], label: str, *, load: Sequence[Start] = ()) -> Phase:
    """Runs on one memory (as one deployment), each started by its client when due. `load`: runs
    started too, only to load the providers; once the others have ended they are cancelled (and
    given up to LOAD_STOP_SECONDS to stop), and their usage joins what was billed."""
    from visual_degrees.domain.costs import DEFAULT_COSTS
    from visual_degrees.domain.models import DEFAULT_TTL_SECONDS, RunOptions
    from visual_degrees.services.budget import Budget
    from visual_degrees.services.run_access import RunAccess
    from visual_degrees.services.run_memory import RunControl

    runner = bench.runner(label)
    everything = [*starts, *load]
    ended: dict[int, Ended] = {}
    lock = threading.Lock()
    run_ids = [f"{label}-{index:03d}" for index in range(len(everything))]
    begin = time.time()

    def one(index: int, start: Start) -> None:
        time.sleep(max(0.0, begin + start.after - time.time()))
        RunAccess(runner.memory).register(run_ids[index], start.client, DEFAULT_TTL_SECONDS)
        began = time.time()
        try:
            result = runner.run(start.a, start.b, start.options, run_id=run_ids[index])
            outcome = ended_of(result, start.client, time.time() - began)
        except Exception as exc:  # the engine broke: count it, never hide it
            outcome = Ended(start.client, "crashed", time.time() - began, reason=type(exc).__name__)
        with lock:
            ended[index] = outcome

    before = bench.counts()
    threads = [
        threading.Thread(target=one, args=(i, start), daemon=True, name=f"run-{i}")
        for i, start in enumerate(everything)
    ]
    for thread in threads:
        thread.start()
    for thread in threads[: len(starts)]:
        thread.join(timeout=max(1.0, PHASE_TIMEOUT - (time.time() - begin)))
    seconds = time.time() - begin
    runs = [ended.get(i, Ended(starts[i].client, "unfinished", seconds)) for i in range(len(starts))]
    background: list[Ended] = []
    if load:
        for run_id in run_ids[len(starts) :]:
            RunControl(runner.memory, run_id, DEFAULT_TTL_SECONDS).request_cancel(time.time())
        for thread in threads[len(starts) :]:
            thread.join(timeout=max(0.1, begin + seconds + LOAD_STOP_SECONDS - time.time()))
        for index, run_id in enumerate(run_ids[len(starts) :], start=len(starts)):
            usage = Budget(runner.memory, run_id, RunOptions().budgets, DEFAULT_COSTS, DEFAULT_TTL_SECONDS)
            outcome = ended.get(index)
            background.append(
                Ended(everything[index].client, outcome.outcome if outcome else "going", 0.0, usage.summary())
            )
    return Phase(label, runs, seconds, since(before, bench.counts()), background)


# ---- (b) the same through `serve` ---------------------------------------------------------------------


def run_served(bench: Bench, pairs: list[tuple[str, str]], label: str) -> Phase:
    """`visual-degrees serve`'s server, in this process on a free loopback port, running the live
    adapters; one WebSocket client per pair starts its run and follows it to its end."""
    from websockets.asyncio.client import connect

    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.server.app import LocalServer, ServeSettings
    from visual_degrees_tools.local.server.runs import RunLimits

    memory = SqliteMemory(bench.state / f"{label}.sqlite3")
    limits = RunLimits(max_concurrent=len(pairs), max_waiting=len(pairs), per_client=1)
    settings = ServeSettings(port=0, speed=0, limits=limits, max_connections=len(pairs) + 8)
    server = LocalServer(memory, bench.quota.environment(bench.web, bench.limiter), settings)
    address: asyncio.Future[str] | None = None

    async def client(url: str, index: int, a: str, b: str) -> Ended:
        began = time.time()
        async with connect(url, max_size=None, open_timeout=60) as ws:
            await ws.send(json.dumps({"action": "startRun", "personA": a, "personB": b}))
            async for frame in ws:
                message = json.loads(frame)
                if message.get("type") == "error" and "seq" not in message:
                    return Ended(
                        f"ws-{index}", "refused", time.time() - began, reason=message.get("code", "")
                    )
                if message.get("type") in ("final", "no_path", "error", "cancelled") and "seq" in message:
                    data = message.get("data", {})
                    reason = str(data.get("code") or "")
                    if message["type"] == "no_path":
                        exhausted = data.get("exhausted")
                        reason = f"{data.get('reason', '')}" + (f": {exhausted}" if exhausted else "")
                    return Ended(
                        f"ws-{index}", message["type"], time.time() - began, data.get("usage", {}), reason
                    )
        return Ended(f"ws-{index}", "unfinished", time.time() - began)

    async def main() -> list[Ended]:
        nonlocal address
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        address = loop.create_future()
        serving = asyncio.ensure_future(server.serve(stop, lambda a: address.set_result(a.ws_url)))  # type: ignore[union-attr]
        url = await address
        try:
            return await asyncio.wait_for(
                asyncio.gather(*(client(url, i, a, b) for i, (a, b) in enumerate(pairs))), PHASE_TIMEOUT
            )
        finally:
            stop.set()
            await serving

    before, started = bench.counts(), time.time()
    runs = asyncio.run(main())
    seconds = time.time() - started
    memory.close()
    return Phase(label, runs, seconds, since(before, bench.counts()))


# ---- main --------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("runs", "together", "serve", "fairness", "all"))
    parser.add_argument("--world", type=Path, default=DEFAULT_WORLD, help="a world file (default: cast.G)")
    parser.add_argument("--pairs", type=int, default=40, help="famous pairs run at once (default 40)")
    parser.add_argument("--searches-per-second", type=float, default=3.0, help="the provider's search quota")
    parser.add_argument("--recognitions-per-second", type=float, default=10.0, help="its recognition quota")
    parser.add_argument(
        "--client-share", type=float, default=None, help="VD_CLIENT_RATE_SHARE (default: the runtime's)"
    )
    parser.add_argument(
        "--latency-scale",
        type=float,
        default=0.2,
        help="the providers' answer times as a share of the sandbox's",
    )
    parser.add_argument(
        "--arrival", type=float, default=1.0, help="fairness: seconds between the single-run clients"
    )
    parser.add_argument(
        "--pace-at", type=float, default=1.0, help="pace at this share of the quotas (default 1: at them)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not args.world.is_file():
        sys.exit(f"no world file at {args.world} (give --world)")

    from visual_degrees.adapters.live.defaults import CLIENT_RATE_SHARE, LLM_RPS
    from visual_degrees.adapters.rate_limiter import Rates, in_process_limiter
    from visual_degrees_tools.bench.pairs import famous_pairs
    from visual_degrees_tools.sandbox import PhotoWeb, load_world
    from visual_degrees_tools.wire.quota_web import quota_web

    logging.disable(logging.WARNING)  # 429s are expected here: the figures tell them
    share = args.client_share if args.client_share is not None else CLIENT_RATE_SHARE
    web = PhotoWeb(load_world(args.world), args.seed)
    pairs = famous_pairs(web, args.pairs, args.seed)
    paced = {"search": args.searches_per_second, "recognition": args.recognitions_per_second}
    rates = Rates({**{k: v * args.pace_at for k, v in paced.items()}, "llm": LLM_RPS}, client_share=share)
    print(
        f"world {args.world.name}, {len(pairs)} famous pairs, quotas {args.searches_per_second:g} searches/s "
        f"and {args.recognitions_per_second:g} recognitions/s, paced at {args.pace_at:.0%} of them, "
        f"client share {share:g}, "
        f"provider latency x{args.latency_scale:g}"
    )
    figures: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory() as state,
        quota_web(
            web,
            searches_per_second=args.searches_per_second,
            recognitions_per_second=args.recognitions_per_second,
            latency_scale=args.latency_scale,
        ) as quota,
    ):

        def bench() -> Bench:  # a fresh limiter per phase: no phase inherits another's queue
            return Bench(web, quota, in_process_limiter(rates), Path(state))

        def record(phase: Phase) -> Phase:
            summary = phase.summary()
            show(summary)
            figures.append(summary)
            return phase

        alone: Phase | None = None
        if args.mode in ("runs", "all", "fairness"):
            first = pairs if args.mode != "fairness" else pairs[:20]
            alone = record(run_alone(bench(), first, "each pair alone"))
        if args.mode in ("runs", "together", "all"):
            starts = [Start(f"client-{i}", a, b) for i, (a, b) in enumerate(pairs)]
            record(run_together(bench(), starts, f"{len(pairs)} runs at once, one client each"))
        if args.mode in ("serve", "all"):
            record(
                run_served(
                    bench(), pairs, f"{len(pairs)} runs at once through serve, one WebSocket client each"
                )
            )
        if args.mode in ("fairness", "all"):
            fairness(bench, record, web, pairs, alone, args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


def fairness(
    bench: Any, record: Any, web: Any, pairs: list[tuple[str, str]], alone: Phase | None, args: Any
) -> None:
    """(c) 20 single-run clients arriving one every `--arrival` seconds, first on their own, then
    beside one client that started 20 max-budget runs (pairs far apart, so they spend rather than
    finish) a few seconds before; their p50 wall time each way, and against each pair alone."""
    light = [
        Start(f"light-{i}", a, b, after=HEAD_START + i * args.arrival) for i, (a, b) in enumerate(pairs[:20])
    ]
    own = record(run_together(bench(), light, "20 single-run clients"))
    rng = random.Random(args.seed + 1)
    group = sorted(web.world.largest_component())
    heavy: list[Start] = []
    while len(heavy) < 20:
        x, y = rng.sample(group, 2)
        if web.world.keys[x] != web.world.keys[y]:
            options = {"budgets": dict(MAX_BUDGETS)}
            heavy.append(Start("heavy", web.world.name(x), web.world.name(y), options))
    label = "the same 20 beside one client's 20 max-budget runs"
    beside = record(run_together(bench(), light, label, load=heavy))
    p50 = lambda phase: statistics.median(r.seconds for r in phase.runs)  # noqa: E731
    line = f"\nfairness: single-run clients' p50 {p50(beside):.2f} s beside the heavy client, "
    line += f"{p50(own):.2f} s without it ({p50(beside) / p50(own):.2f}x)"
    if alone is not None:
        each = statistics.median(r.seconds for r in alone.runs[:20])
        line += f"; {each:.2f} s with each pair alone ({p50(beside) / each:.2f}x)"
    print(line)


if __name__ == "__main__":
    main()
