#!/usr/bin/env python
"""Load figures for `visual-degrees serve`: many concurrent runs, many connected clients.

The server runs in its own process (as it would in use), over the bundled world; this process drives
the clients. Half the clients start one run each and follow it live; the other half join those runs
late with the run token (replay, then live) and drop their connection once half-way and resume with
`fromSeq = last seen + 1`. The server stamps each event (wall clock) as it is stored; clients stamp
each one as it arrives.

Printed: events stored and delivered per second, p50/p99/max delay from append to receipt (live
deliveries and watchers' deliveries apart), the server's memory, and the counts that prove no event
was lost, duplicated or reordered for any client.

    python scripts/serve_load.py                     # 50 runs, 100 clients, runs flat out
    python scripts/serve_load.py --speed 4           # runs paced at 4 simulated seconds per second
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing as mp
import os
import random
import resource
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

TERMINAL = {"final", "no_path", "cancelled", "error"}


# ---- the server process -----------------------------------------------------------------------


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def serve_process(conn: Any, speed: float, workers: int, waiting: int, switch: float = 0.0) -> None:
    from visual_degrees.services.event_log import EventLog
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.environments import sandbox_environment
    from visual_degrees_tools.local.server.app import LocalServer, ServeSettings
    from visual_degrees_tools.local.server.runs import RunLimits

    stamps: dict[tuple[str, int], float] = {}
    lock = threading.Lock()

    def on_deliver(event: Any, at: float) -> None:
        with lock:
            stamps[(event.run_id, event.seq)] = at

    if switch:
        sys.setswitchinterval(switch)
    sandbox = sandbox_environment(None, seed=0)
    rss_idle = _rss_kib()
    with tempfile.TemporaryDirectory() as state:
        memory = SqliteMemory(Path(state) / "memory.sqlite3")
        settings = ServeSettings(
            port=0, speed=speed, limits=RunLimits(max_concurrent=workers, max_waiting=waiting, per_client=2)
        )
        server = LocalServer.sandboxed(memory, sandbox, settings, on_deliver=on_deliver)
        peak = {"rss": rss_idle}

        async def main() -> None:
            loop = asyncio.get_running_loop()
            stop = asyncio.Event()

            def wait_for_stop() -> None:
                conn.recv()
                loop.call_soon_threadsafe(stop.set)

            def sample() -> None:
                while not stop.is_set():
                    peak["rss"] = max(peak["rss"], _rss_kib())
                    time.sleep(0.1)

            threading.Thread(target=wait_for_stop, daemon=True).start()
            threading.Thread(target=sample, daemon=True).start()
            await server.serve(stop, lambda address: conn.send(address.ws_url))

        asyncio.run(main())
        runs = {run_id for run_id, _ in stamps}
        last = {run_id: EventLog(memory).last_seq(run_id) for run_id in runs}
        memory.close()
    conn.send(
        {
            "stamps": [[r, s, t] for (r, s), t in stamps.items()],
            "lastSeq": last,
            "rssIdleKiB": rss_idle,
            "rssPeakKiB": peak["rss"],
            "maxRssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        }
    )


# ---- the clients ------------------------------------------------------------------------------------


@dataclass
class Follow:
    """What one client received of one run: (seq, receipt time, when its subscription was asked
    for) in arrival order."""

    client: str
    role: str
    run_id: str = ""
    received: list[tuple[int, float, float]] = field(default_factory=list)
    reconnects: int = 0
    outcome: str = ""


async def starter(
    url: str, name: str, pair: tuple[str, str], go: asyncio.Event, handoff: asyncio.Future
) -> Follow:
    follow = Follow(name, "starter")
    async with connect(url, max_size=None) as ws:
        await go.wait()
        asked = time.time()
        await ws.send(json.dumps({"action": "startRun", "personA": pair[0], "personB": pair[1]}))
        async for frame in ws:
            at = time.time()
            message = json.loads(frame)
            if "seq" not in message:
                if message.get("type") == "runAccepted":
                    follow.run_id = message["runId"]
                    handoff.set_result((message["runId"], message["runToken"]))
                elif message.get("type") == "error":
                    follow.outcome = f"refused: {message['code']}"
                    handoff.set_exception(RuntimeError(message["message"]))
                    return follow
                continue
            follow.received.append((message["seq"], at, asked))
            if message["type"] in TERMINAL:
                follow.outcome = message["type"]
                return follow
    return follow


async def watcher(url: str, name: str, handoff: asyncio.Future, rng: random.Random) -> Follow:
    """Joins late with the token, drops once part-way, resumes from the last seq it saw + 1."""
    follow = Follow(name, "watcher")
    async with connect(url, max_size=None) as idle:  # connected from the start, like a real page
        try:
            run_id, token = await handoff
        except RuntimeError:
            return follow
        follow.run_id = run_id
        await asyncio.sleep(rng.uniform(0.0, 0.5))
        drop_after = rng.randint(3, 15)
        done = await _watch(idle, follow, token, 1, drop_after)
    while not done:
        follow.reconnects += 1
        resume = follow.received[-1][0] + 1 if follow.received else 1
        async with connect(url, max_size=None) as ws:
            done = await _watch(ws, follow, token, resume, None)
    return follow


async def _watch(ws: Any, follow: Follow, token: str, from_seq: int, drop_after: int | None) -> bool:
    asked = time.time()
    await ws.send(
        json.dumps({"action": "subscribe", "runId": follow.run_id, "fromSeq": from_seq, "runToken": token})
    )
    count = 0
    async for frame in ws:
        at = time.time()
        message = json.loads(frame)
        if "seq" not in message:
            if message.get("type") == "error":
                raise RuntimeError(f"{follow.client}: {message}")
            continue
        follow.received.append((message["seq"], at, asked))
        count += 1
        if message["type"] in TERMINAL:
            follow.outcome = message["type"]
            return True
        if drop_after is not None and count >= drop_after:
            # Lose the connection abruptly, as a network does (a polite close would wait for the
            # server's close frame behind the events still streaming in).
            ws.transport.abort()
            return False
    return False


async def drive(url: str, pairs: list[tuple[str, str]], seed: int) -> tuple[list[Follow], float, float]:
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    go = asyncio.Event()
    handoffs = [loop.create_future() for _ in pairs]
    tasks = [
        asyncio.create_task(starter(url, f"s{n}", pair, go, handoffs[n])) for n, pair in enumerate(pairs)
    ] + [
        asyncio.create_task(watcher(url, f"w{n}", handoffs[n], random.Random(rng.random())))
        for n in range(len(pairs))
    ]
    await asyncio.sleep(1.0)  # every client connected before the first run starts
    began = time.time()
    go.set()
    follows = await asyncio.gather(*tasks)
    return list(follows), began, time.time()


# ---- the figures ----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def report(
    follows: list[Follow], server: dict[str, Any], began: float, ended: float, args: argparse.Namespace
) -> bool:
    stamps = {(r, s): t for r, s, t in server["stamps"]}
    last = server["lastSeq"]
    missing = duplicated = disordered = 0
    live: list[float] = []  # append -> receipt, for events stored after the client asked for them
    replay: list[float] = []  # subscribe -> receipt, for events already stored when it asked
    outcomes: Counter[str] = Counter()
    for f in follows:
        if f.role == "starter":
            outcomes[f.outcome] += 1
        if not f.run_id:
            continue
        seqs = [s for s, _, _ in f.received]
        counts = Counter(seqs)
        expected = set(range(1, last.get(f.run_id, 0) + 1))
        missing += len(expected - set(seqs))
        duplicated += sum(c - 1 for c in counts.values() if c > 1)
        disordered += sum(1 for x, y in itertools.pairwise(seqs) if y <= x)
        for seq, at, asked in f.received:
            stored_at = stamps.get((f.run_id, seq))
            if stored_at is None:
                continue
            if stored_at >= asked:
                live.append((at - stored_at) * 1000)
            else:
                replay.append((at - asked) * 1000)
    delivered = sum(len(f.received) for f in follows)
    stored = sum(last.values())
    expected_deliveries = sum(last.get(f.run_id, 0) for f in follows if f.run_id)
    seconds = ended - began
    print(
        f"serve_load: {len(follows) // 2} concurrent runs, {len(follows)} connected clients, "
        f"speed {args.speed}, {args.workers} run threads, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"  outcomes            {dict(outcomes)}")
    print(f"  wall time           {seconds:.2f} s (first start to last terminal event received)")
    print(f"  events stored       {stored}  ({stored / seconds:.0f}/s)")
    print(f"  events delivered    {delivered}  ({delivered / seconds:.0f}/s to clients)")
    for label, values in (("append -> receipt (live)", live), ("subscribe -> receipt (replay)", replay)):
        print(
            f"  {label:<30} p50 {percentile(values, 0.5):7.1f} ms   p99 {percentile(values, 0.99):7.1f} ms   "
            f"max {max(values, default=float('nan')):7.1f} ms   (n={len(values)})"
        )
    print(f"  watcher reconnects  {sum(f.reconnects for f in follows)}")
    print(
        f"  expected deliveries {expected_deliveries}; received {delivered}; missing {missing}; "
        f"duplicated {duplicated}; out of order {disordered}"
    )
    print(
        f"  server RSS          idle {server['rssIdleKiB'] / 1024:.0f} MiB (world loaded), "
        f"peak {server['rssPeakKiB'] / 1024:.0f} MiB (ru_maxrss {server['maxRssKiB'] / 1024:.0f} MiB)"
    )
    return missing == 0 and duplicated == 0 and disordered == 0 and expected_deliveries == delivered


def pick_pairs(count: int, seed: int) -> list[tuple[str, str]]:
    from visual_degrees_tools.sandbox import EXAMPLE_PAIR, FAR_PAIR, default_world_path, load_world

    world = load_world(default_world_path())
    rng = random.Random(seed)
    famous = sorted(range(world.size), key=lambda p: -world.fame[p])[:120]
    pairs = [EXAMPLE_PAIR, FAR_PAIR]
    while len(pairs) < count:
        a, b = rng.sample(famous, 2)
        if world.keys[a] != world.keys[b]:
            pairs.append((world.name(a), world.name(b)))
    return pairs[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=50, help="concurrent runs (clients = 2 x runs)")
    parser.add_argument("--speed", type=float, default=0.0, help="simulated seconds per second (0: flat out)")
    parser.add_argument("--workers", type=int, default=0, help="run threads (default: one per run)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--switch", type=float, default=0.0, help="server's sys.setswitchinterval (0: default)"
    )
    args = parser.parse_args()
    args.workers = args.workers or args.runs
    pairs = pick_pairs(args.runs, args.seed)
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    process = ctx.Process(
        target=serve_process, args=(child, args.speed, args.workers, args.runs, args.switch), daemon=True
    )
    process.start()
    url = parent.recv()
    try:
        follows, began, ended = asyncio.run(drive(url, pairs, args.seed))
    finally:
        parent.send("stop")
    server = parent.recv()
    process.join(30)
    ok = report(follows, server, began, ended, args)
    print(
        "  verdict             "
        + ("every event delivered exactly once, in order" if ok else "EVENTS LOST OR DUPLICATED")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
