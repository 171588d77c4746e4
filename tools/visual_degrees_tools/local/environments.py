"""What a local run runs against: the simulated photo web (default) or the live providers.

Each run gets its own clock (a virtual one in the sandbox, so simulated time and latency are per
run); the photo web itself is built once and shared by every run of the process. A sandbox run's
clock starts at the run's real start (`dated`), so its events are dated today plus simulated time;
the benchmarks start every run at the fixed EPOCH instead, so their records never depend on the day.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from visual_degrees.adapters.wall_clock import WallClock
from visual_degrees.domain.errors import UnknownPerson
from visual_degrees_tools.local.runner import RunEnvironment

PAIR_FIELDS = ("personA", "personB", "via")  # the names a run may be asked for, in order

if TYPE_CHECKING:
    from collections.abc import Callable

    from visual_degrees.config import Settings
    from visual_degrees_tools.sandbox import FaultConfig, PhotoWeb


class SandboxEnvironment:
    """Callable run_id -> RunEnvironment over one shared photo web."""

    def __init__(
        self,
        web: PhotoWeb,
        *,
        seed: int = 0,
        faults: FaultConfig | None = None,
        planner_recall: float = 1.0,
        dated: bool = True,
    ) -> None:
        from visual_degrees_tools.local.world_info import world_label

        self.web = web
        self.seed = seed
        self.faults = faults
        self.planner_recall = planner_recall
        self.dated = dated
        self.label = world_label(web) + (f" seed {seed}" if seed else "")  # how `trace` names the world
        bundled = world_label(web) == "bundled"
        self.recorded = {
            "worldPath": None if bundled else str(Path(web.world.source).resolve()),
            "seed": seed,
            "faults": faults.describe() if faults else "",
        }

    def __call__(self, run_id: str) -> RunEnvironment:
        from visual_degrees_tools.sandbox import EPOCH, LATENCIES, VirtualClock, build_sandbox
        from visual_degrees_tools.sandbox.clock import dated_start

        clock = VirtualClock(dated_start(time.time()) if self.dated else EPOCH)
        sandbox = build_sandbox(
            self.web, seed=self.seed, faults=self.faults, clock=clock, planner_recall=self.planner_recall
        )
        return RunEnvironment(
            providers=sandbox.providers,
            clock=clock,
            sleep=clock.advance,  # retry back-off passes in simulated time
            on_transition=lambda _state: clock.advance(LATENCIES.state_transition),
            web=self.label,
            simulated=True,
            recorded=self.recorded,
        )


def sandbox_environment(
    world_path: Path | None,
    *,
    seed: int = 0,
    faults: str | FaultConfig | None = None,
    planner_recall: float = 1.0,
    dated: bool = True,
) -> SandboxEnvironment:
    """Load a world (the bundled synthetic one by default) and build its photo web; `dated`: see
    the module's docstring."""
    from visual_degrees_tools.sandbox import FaultConfig, PhotoWeb, default_world_path, load_world

    plan = FaultConfig.parse(faults) if isinstance(faults, str) else faults
    world = load_world(world_path or default_world_path())
    return SandboxEnvironment(
        PhotoWeb(world, seed), seed=seed, faults=plan, planner_recall=planner_recall, dated=dated
    )


def require_known(environment: SandboxEnvironment, *names: str) -> None:
    """In the sandbox we can tell a user that a name is nobody in the world, and whom they may have
    meant (live, we cannot). Names are personA, personB, then (if any) the hint, via."""
    unknown = unknown_names(environment, *names)
    if unknown:
        world = environment.web.world
        raise unknown_person(unknown, {field: world.suggest(name) for field, name in unknown.items()})


def unknown_names(environment: SandboxEnvironment, *names: str) -> dict[str, str]:
    """The names nobody in the world has, by field (personA, personB, via, as for require_known)."""
    return {
        field: name
        for field, name in zip(PAIR_FIELDS, names, strict=False)
        if not environment.web.knows(name)
    }


def unknown_person(unknown: dict[str, str], suggestions: dict[str, list[str]]) -> UnknownPerson:
    """One message for every unknown name, each with its closest names, and the suggestions as data."""
    parts = []
    for field, name in unknown.items():
        close = suggestions.get(field) or []
        hint = f"did you mean {either(close)}?" if close else "no name in it is close"
        parts.append(f"{name!r} is not anyone in this world ({hint})")
    return UnknownPerson("; ".join(parts), {f: s for f, s in suggestions.items() if s})


def either(names: list[str], word: str = "or") -> str:
    """`A`, `A or B`, `A, B or C` (with `word` between the last two)."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"


def live_environment(settings: Settings | None = None) -> Callable[[str], RunEnvironment]:
    """The live providers from settings (VD_* variables, a config file, or the deployment secret),
    every run's calls paced by one in-process limiter at the settings' rates (VD_SEARCH_RPS…).
    ConfigurationError, naming the extra to install, on an install without it."""
    from visual_degrees_tools.extras import require_extra

    require_extra("live", "--providers live")
    from visual_degrees.adapters.live.providers import build_live_providers, pacing_rates
    from visual_degrees.adapters.rate_limiter import in_process_limiter
    from visual_degrees.config import load_settings

    settings = settings or load_settings()
    providers = build_live_providers(settings, paced=True)
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    limiter = in_process_limiter(pacing_rates(settings, region))

    def environment(run_id: str) -> RunEnvironment:
        return RunEnvironment(providers=providers, clock=WallClock(), limiter=limiter)

    return environment
