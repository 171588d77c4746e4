"""How many modules a run's state passes through in one S2 (candidate discovery): one sandbox run on
the local engine, every function call inside each S2 step traced (sys.setprofile, threads too), the
runtime package's modules it entered counted.

    python scripts/s2_modules.py                                   # the bundled world, README's pair
    python scripts/s2_modules.py --world ../../shared/data/worlds/cast.G.txt \
        --a "Kevin Bacon" --b "Julie Andrews" [--strategy seed] [--knobs caption_leads=off] [--web clean]

Per S2 step: the distinct modules of visual_degrees it called into (the step's own included), how
many calls that was, and how many of those calls were re-entries into a module already visited in
that step. The first S2 that read a page is the headline figure; every S2 of the run is listed.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from visual_degrees.constants import STATE_TASKS
from visual_degrees.domain.models import RunOptions
from visual_degrees.domain.strategy import parse_knob_changes
from visual_degrees.steps import step_function
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local import runner as local_runner
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner

STEP = "candidate_discovery"
RUNTIME = "visual_degrees."


class Tracer:
    def __init__(self) -> None:
        self.active = False
        self.calls: Counter[str] = Counter()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or not self.active or frame.f_code.co_name == "<module>":
            return  # a module's body runs when it is imported: not the run's state passing
        module = frame.f_globals.get("__name__", "")
        if isinstance(module, str) and module.startswith(RUNTIME):
            self.calls[module] += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, default=None)
    parser.add_argument("--a", default="Vesna Hawthorne")
    parser.add_argument("--b", default="Niall Halloran")
    parser.add_argument("--strategy", default="default")
    parser.add_argument("--knobs", default="")
    parser.add_argument("--modules", action="store_true", help="list the modules of the first S2")
    parser.add_argument(
        "--web", default=None, help="realistic or clean (default: the checkout's; a tree without webs: clean)"
    )
    args = parser.parse_args(argv)

    environment = sandbox_environment(args.world, **({"web": args.web} if args.web else {}))
    for task in STATE_TASKS:  # every step imported first: only calls are counted, never imports
        step_function(task.step)
    tracer = Tracer()
    steps: list[Counter[str]] = []
    execute = local_runner.execute

    def traced(step: str, payload: dict[str, Any], ctx: Any) -> dict[str, Any]:
        if step != STEP:
            return execute(step, payload, ctx)
        tracer.calls = Counter()
        tracer.active = True
        sys.setprofile(tracer)
        threading.setprofile(tracer)
        try:
            return execute(step, payload, ctx)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]
            tracer.active = False
            steps.append(tracer.calls)

    local_runner.execute = traced  # type: ignore[assignment]
    options = RunOptions(strategy=args.strategy, knobs=parse_knob_changes(args.knobs))
    memory = SqliteMemory(":memory:")
    try:
        result = LocalRunner(memory, environment).run(args.a, args.b, options)
    finally:
        memory.close()
        local_runner.execute = execute  # type: ignore[assignment]
    print(f"{args.a} → {args.b} ({args.strategy}{', ' + args.knobs if args.knobs else ''}): {result.outcome}")
    if not steps:
        print("no S2 step ran")
        return 1
    for n, calls in enumerate(steps, 1):
        total = sum(calls.values())
        print(f"S2 #{n}: {len(calls)} modules, {total} calls into them ({total - len(calls)} re-entries)")
    if args.modules:
        for module, count in sorted(steps[0].items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {count:6d}  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
