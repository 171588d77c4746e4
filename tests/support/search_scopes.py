"""Hand-built runs for testing the search's decisions where they live: a run's scope over an
in-memory run memory and a scripted photo web, with helpers that put links, pages of titles and
hunches into it directly (no search, no step), so a test states exactly what the run knows."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from tests.support.fakes import FakeWeb, ListSink, ManualClock, face
from visual_degrees.domain.models import Edge, Evidence, ImageHit, Person, RunOptions, RunState
from visual_degrees.domain.names import name_key
from visual_degrees.lifecycle.context import StepContext
from visual_degrees.ports import Planner, Providers
from visual_degrees.search.evidence import accept_edge
from visual_degrees.search.port import SearchStrategy
from visual_degrees.search.scope import SearchScope
from visual_degrees.search.strategies import begin
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

A, B = "Kevin Bacon", "Julie Andrews"


@dataclass
class Run:
    """A run between A and B on `web`, as of one step: its strategy and its scope."""

    web: FakeWeb
    sink: ListSink
    clock: ManualClock
    memory: SqliteMemory
    strategy: SearchStrategy
    scope: SearchScope

    @property
    def state(self) -> RunState:
        return self.scope.state

    def next_step(self, **changes: Any) -> SearchScope:
        """The scope of the run's next step (a new step number: its own journal), with `changes` to
        the payload (frontier, selected, side, …) as the step before left them."""
        state = self.scope.state.advanced(**changes)
        self.strategy, self.scope = begin(self.scope.ctx, state)
        return self.scope

    def statuses(self) -> list[str]:
        return [str(data["message"]) for data in self.sink.of("status")]


def run_of(
    web: FakeWeb | None = None,
    *,
    strategy: str = "default",
    knobs: dict[str, bool] | None = None,
    planner: Planner | None = None,
    a: str = A,
    b: str = B,
    **options: Any,
) -> Run:
    web = web or FakeWeb()
    clock, sink, memory = ManualClock(), ListSink(), SqliteMemory(":memory:")
    ctx = StepContext(providers=Providers.of(web, planner), memory=memory, clock=clock, sink=sink)
    state = RunState(
        run_id="20261201T100000-abc123",
        person_a=Person.of(a),
        person_b=Person.of(b),
        options=RunOptions(strategy=strategy, knobs=knobs or {}, **options),
        started_at=clock.now(),
        frontier=name_key(a),
        path=[name_key(a)],
    )
    chosen, scope = begin(ctx, state)
    return Run(web, sink, clock, memory, chosen, scope)


def key(name: str) -> str:
    return name_key(name)


def link(scope: SearchScope, x: str, y: str, confidence: float = 99.0, *, title: str = "") -> Edge:
    """A verified link x–y in the run's graph, as a recognised photo of both would leave it (both
    identities pinned, the photo's card shown)."""
    fx, fy = face(x, confidence), face(y, confidence)
    for f in (fx, fy):
        scope.pinned(f.key, f)
    url = f"https://photos.test/{key(x)}-{key(y)}.jpg".replace(" ", "-")
    evidence = Evidence(
        image_url=url,
        title=title,
        sha256=url,
        confidence_a=confidence,
        confidence_b=confidence,
        id_a=fx.celebrity_id,
        id_b=fy.celebrity_id,
    )
    edge = accept_edge(scope, key(x), key(y), evidence)
    scope.graph.flush()
    return edge


def page(scope: SearchScope, query: str, *titles: str, subjects: list[str] | None = None) -> list[str]:
    """A page of results read for `query`: one photo per title (its URL returned), kept as leads."""
    urls = [f"https://photos.test/{_digest(f'{query}|{n}|{t}')}.jpg" for n, t in enumerate(titles)]
    hits = [ImageHit(image_url=u, page_url=u + ".html", title=t) for u, t in zip(urls, titles, strict=True)]
    scope.leads.save_page(query, [key(s) for s in subjects or []], hits, scope.ctx.clock.now())
    return urls


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:12]


def hunch(scope: SearchScope, x: str, y: str, film: str = "", *, user: bool = False) -> None:
    data = {"nameA": x, "nameB": y, "film": film}
    if user:
        scope.leads.add_user_hunch(key(x), key(y), data)
    else:
        scope.leads.add_hunch(key(x), key(y), {**data, "source": "planner"})
