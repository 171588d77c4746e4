"""One call to get every sandbox provider wired to one photo web, one clock and one fault plan."""

from __future__ import annotations

from dataclasses import dataclass

from visual_degrees.ports import Providers
from visual_degrees_tools.sandbox.clock import LATENCIES, Latencies, VirtualClock
from visual_degrees_tools.sandbox.faults import NO_FAULTS, FaultConfig, FaultInjector
from visual_degrees_tools.sandbox.fetcher import SandboxImageFetcher
from visual_degrees_tools.sandbox.photoweb import PhotoWeb
from visual_degrees_tools.sandbox.planner import SimulatedPlanner, with_recall
from visual_degrees_tools.sandbox.recognizer import SandboxRecognizer
from visual_degrees_tools.sandbox.search import SandboxImageSearch
from visual_degrees_tools.sandbox.world import World


@dataclass
class Sandbox:
    web: PhotoWeb
    search: SandboxImageSearch
    fetcher: SandboxImageFetcher
    recognizer: SandboxRecognizer
    planner: SimulatedPlanner
    clock: VirtualClock
    faults: FaultInjector
    seed: int

    @property
    def providers(self) -> Providers:
        """The sandbox as the one bundle of providers a run gets, scoped to its photo web."""
        return Providers(
            search=self.search,
            fetcher=self.fetcher,
            recognizer=self.recognizer,
            planner=self.planner,
            web=self.web.identity,
        )

    @property
    def world(self) -> World:
        return self.web.world

    def calls(self) -> dict[str, int]:
        """Calls made to each provider so far (failed ones included)."""
        return {
            "search": self.search.calls,
            "fetch": self.fetcher.calls,
            "recognize": self.recognizer.calls,
            "planner": self.planner.calls,
        }


def build_sandbox(
    world: World | PhotoWeb,
    *,
    seed: int = 0,
    faults: FaultConfig | None = None,
    clock: VirtualClock | None = None,
    latencies: Latencies = LATENCIES,
    planner_recall: float = 1.0,
) -> Sandbox:
    """Providers over `world`'s photo web for `seed`. Pass an already built PhotoWeb to share it
    between runs (building one for movies.txt takes about a second); its own seed then fixes the
    photos, and `seed` only the faults and the planner. `planner_recall` scales what the simulated
    planner remembers (1.0 as documented in docs/sandbox.md; the benchmark also reports 0.3)."""
    web = world if isinstance(world, PhotoWeb) else PhotoWeb(world, seed)
    clock = clock or VirtualClock()
    injector = FaultInjector(faults or NO_FAULTS, seed)
    return Sandbox(
        web=web,
        search=SandboxImageSearch(web, clock=clock, faults=injector, latencies=latencies),
        fetcher=SandboxImageFetcher(web, clock=clock, faults=injector, latencies=latencies),
        recognizer=SandboxRecognizer(web, clock=clock, faults=injector, latencies=latencies),
        planner=SimulatedPlanner(
            web.world,
            seed=seed,
            clock=clock,
            faults=injector,
            latencies=latencies,
            behaviour=with_recall(planner_recall),
        ),
        clock=clock,
        faults=injector,
        seed=seed,
    )
