"""`visual-degrees serve`: the WebSocket API and the web page on one port, runs on the local engine."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from visual_degrees_tools.commands.common import add_world_options, count, memory_file, number, seconds

if TYPE_CHECKING:
    from visual_degrees.domain.ceilings import RunCeilings
    from visual_degrees_tools.local.server.runs import Stopped

NAME = "serve"
HELP = "serve the web page and the WebSocket API on this machine"
WAITING_PER_WORKER = 8  # accepted runs may queue this deep per run thread before the server says busy


def _port(text: str) -> int:
    value = count(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number")
    return value


def _speed(text: str) -> float:
    value = number(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (0.0.0.0: every interface; consider --token)",
    )
    parser.add_argument(
        "--port", type=_port, default=8765, help="port for the page and its WebSocket /ws (0: any free port)"
    )
    add_world_options(parser)
    parser.add_argument(
        "--max-concurrent-runs",
        type=count,
        default=8,
        metavar="N",
        help="runs executing at once (8x as many more may wait in line)",
    )
    parser.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        metavar="X",
        help="simulated seconds per real second, so runs unfold watchably (0: as fast as possible)",
    )
    parser.add_argument(
        "--token", default=None, help="require this token (?token=) on every connection (default: none)"
    )
    parser.add_argument(
        "--max-connections",
        type=count,
        default=256,
        help="WebSocket connections at once; more are refused with 503 (default 256)",
    )
    parser.add_argument(
        "--max-unsent-bytes",
        type=count,
        default=None,
        metavar="N",
        help="bytes queued for one connection that does not read before it is dropped (close 1013, "
        "it may reconnect and catch up; default 4194304: 4 MiB)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides its own (behind a proxy, a LAN name); repeatable",
    )
    add_ceiling_options(parser)
    parser.add_argument("--verbose", action="store_true", help="log every accepted run")


def add_ceiling_options(parser: argparse.ArgumentParser) -> None:
    """The most one startRun may ask for (domain/ceilings.py); a request above a ceiling is refused
    with `above_ceiling`. Unset: RunCeilings' defaults (five times the default budgets)."""
    group = parser.add_argument_group("ceilings", "the most a client may ask of one run")
    for flag, kind, what in (
        ("--max-budget-searches", count, "image searches (default 100)"),
        ("--max-budget-recognitions", count, "face recognitions (default 600)"),
        ("--max-budget-llm", count, "planner (LLM) calls (default 60)"),
        ("--max-budget-runtime", seconds, "seconds of (simulated) runtime (default 600)"),
        ("--max-hops-ceiling", count, "maxHops (default 10)"),
        ("--max-images-per-search", count, "imagesPerSearch (default 20)"),
    ):
        group.add_argument(flag, type=kind, default=None, help=f"the most a run may ask for: {what}")


def ceilings_of(args: argparse.Namespace) -> RunCeilings:
    from pydantic import ValidationError

    from visual_degrees.domain.ceilings import RunCeilings
    from visual_degrees.domain.errors import InvalidInput
    from visual_degrees.domain.requests import describe_validation_error

    given: dict[str, Any] = {
        "maxHops": args.max_hops_ceiling,
        "imagesPerSearch": args.max_images_per_search,
        "budgets": {
            "searches": args.max_budget_searches,
            "recognitions": args.max_budget_recognitions,
            "llmCalls": args.max_budget_llm,
            "runtimeSeconds": args.max_budget_runtime,
        },
    }
    given["budgets"] = {k: v for k, v in given["budgets"].items() if v is not None}
    try:
        return RunCeilings.model_validate({k: v for k, v in given.items() if v is not None})
    except ValidationError as exc:
        raise InvalidInput(f"bad ceiling: {describe_validation_error(exc)}") from None


def main(args: argparse.Namespace, state_dir: Path) -> int:
    from visual_degrees.constants import MAX_MESSAGE_BYTES
    from visual_degrees.domain.errors import InvalidInput
    from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
    from visual_degrees_tools.local.environments import sandbox_environment
    from visual_degrees_tools.local.server.app import Address, LocalServer, ServeSettings
    from visual_degrees_tools.local.server.runs import RunLimits
    from visual_degrees_tools.local.world_info import example_pair, warm, world_label

    if args.max_concurrent_runs < 1:
        raise InvalidInput("--max-concurrent-runs must be at least 1")
    if args.max_connections < 1:
        raise InvalidInput("--max-connections must be at least 1")
    if args.max_unsent_bytes is not None and args.max_unsent_bytes < MAX_MESSAGE_BYTES:
        raise InvalidInput(f"--max-unsent-bytes must be at least {MAX_MESSAGE_BYTES} (one frame)")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    sandbox = sandbox_environment(args.world, seed=args.seed, faults=args.faults or None, web=args.web)
    example = example_pair(sandbox.web)
    # The page asks for name suggestions as soon as someone types: build the index meanwhile.
    threading.Thread(target=warm, args=(sandbox.web,), name="vd-names", daemon=True).start()
    workers = args.max_concurrent_runs
    settings = ServeSettings(
        host=args.host,
        port=args.port,
        limits=RunLimits(max_concurrent=workers, max_waiting=WAITING_PER_WORKER * workers),
        speed=args.speed,
        token=args.token,
        ceilings=ceilings_of(args),
        max_connections=args.max_connections,
        allowed_hosts=tuple(args.allowed_host),
        **({"outbox_bytes": args.max_unsent_bytes} if args.max_unsent_bytes is not None else {}),
    )
    memory = SqliteMemory(memory_file(state_dir))

    def ready(address: Address) -> None:
        print(f"Visual Degrees: open {address.http_url}  (WebSocket {address.ws_url})", flush=True)
        label = world_label(sandbox.web)
        made_up = " (made-up people)" if label == "bundled" else ""
        world = (
            f"{label}{made_up}, {sandbox.web.world.size:,} people, seed {args.seed}, {sandbox.web.mode} web"
        )
        tried = f"; try {example[0]} → {example[1]}" if example else ""
        print(f"Sandbox world: {world}{tried}", flush=True)
        if args.host not in ("127.0.0.1", "localhost", "::1") and not args.token:
            print(
                "note: reachable from other machines, and anyone who can reach it may start runs; "
                "consider --token",
                flush=True,
            )
        print("Ctrl-C stops the server; unfinished runs are cancelled.", flush=True)

    async def serve() -> Stopped:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):  # not on Windows' loop
                loop.add_signal_handler(sig, stop.set)
        server = LocalServer.sandboxed(memory, sandbox, settings)
        return await server.serve(stop, ready)

    try:
        stopped = asyncio.run(serve())
    except OSError as exc:  # the port is taken, the address is not ours
        print(f"visual-degrees: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    finally:
        memory.close()
    print(f"stopped ({stopped})")
    return 0
