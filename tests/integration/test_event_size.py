"""Every message fits one WebSocket frame (issue 9.4): a run with the largest graph the default budgets
allow (100 photos of 12 long-named people: 1,100 people, 6,600 proven pairs) ends with a terminal
event that API Gateway accepts, says what its graph summary left out, and serves the whole graph in
pages. Before: that run's `no_path` was 136,392 bytes, over the 131,072 API Gateway takes, and its
client never learned the run had ended."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.crowded_web import FACES_PER_PHOTO, CrowdedWeb
from tests.support.fakes import ListSink, ManualClock
from visual_degrees.adapters.aws.event_sink import encode
from visual_degrees.constants import MAX_EVENT_BYTES, MAX_MESSAGE_BYTES
from visual_degrees.domain.models import RunEvent, RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees.domain.paths import edge_id
from visual_degrees.ports import Providers
from visual_degrees.services.run_access import RunAccess
from visual_degrees.services.runs_api import RunsApi, StoredSubscriptions
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.local.runner import LocalRunner, RunEnvironment, RunResult

API_GATEWAY_LIMIT = 128 * 1024  # bytes API Gateway accepts in one WebSocket message


class _Nowhere:
    """Executions, subscriptions and replies of a RunsApi that only reads (getRun, getGraph)."""

    def execution_arn(self, run_id: str) -> str:
        return run_id

    def status(self, execution_arn: str) -> str | None:
        return "SUCCEEDED"

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None: ...

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        return True


@pytest.fixture(scope="module")
def crowded_run() -> tuple[RunResult, ListSink, SqliteMemory, CrowdedWeb]:
    web = CrowdedWeb()
    memory = SqliteMemory(":memory:")

    def environment(run_id: str) -> RunEnvironment:
        clock = ManualClock()
        return RunEnvironment(providers=Providers.of(web), clock=clock, sleep=clock.advance)

    sink = ListSink()
    # Discovery rounds recognise every image they are shown (captions read as leads would pick a few):
    # that is the way to the largest graph the recognition budget allows.
    blind = RunOptions(knobs={"caption_leads": False, "planner_matching": False})
    result = LocalRunner(memory, environment).run(web.person_a, web.person_b, blind, sink=sink)
    return result, sink, memory, web


def wire(event: RunEvent) -> int:
    return len(json.dumps(event.dump(), ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def test_the_largest_graph_of_the_default_budgets_is_what_the_run_built(crowded_run) -> None:
    result, _, memory, web = crowded_run
    # Given a run that spent its search budget on photos of 12 strangers each
    assert result.outcome == "no_path"
    assert result.final.data["reason"] == "budget"
    assert result.final.data["usage"]["recognitions"] == len(web.photos) == 100
    # Then its verified graph holds every pair of every photo: 66 a photo
    pairs = FACES_PER_PHOTO * (FACES_PER_PHOTO - 1) // 2
    stored = memory.query(f"run#{result.run_id}", "edge#")
    assert len(stored) == pairs * len(web.photos) == 6_600


def test_every_event_fits_one_api_gateway_message_as_stored_and_as_pushed(crowded_run) -> None:
    _, sink, _, _ = crowded_run
    assert MAX_EVENT_BYTES < MAX_MESSAGE_BYTES == API_GATEWAY_LIMIT
    for event in sink.events:
        # As stored (what getRun and a replay read) and as the push sends it, with room to spare
        assert wire(event) <= MAX_EVENT_BYTES, (event.seq, event.type, wire(event))
        assert len(encode(event.dump())) <= MAX_EVENT_BYTES
        assert encode(event.dump()) == json.dumps(
            event.dump(), ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8")  # nothing had to be shortened on the way out


def test_the_ending_carries_a_bounded_graph_summary_and_counts_what_it_left_out(crowded_run) -> None:
    result, _, memory, web = crowded_run
    graph = result.final.data["graph"]
    keys = {n["id"] for n in graph["nodes"]}
    # The summary keeps A, B and the partial chain, and links that touch them come first
    a, b = name_key(web.person_a), name_key(web.person_b)
    assert {a, b} <= keys
    assert all(e["source"] in keys and e["target"] in keys for e in graph["edges"])
    reached = [*result.final.data["partialPath"], *result.final.data.get("partialPathFromB", [])]
    focus = {a, b, *(name_key(name) for name in reached)}
    touching = [(e["source"] in focus) + (e["target"] in focus) for e in graph["edges"]]
    assert touching == sorted(touching, reverse=True)  # links between focus people, then touching one
    assert sum(1 for e in graph["edges"] if a in (e["source"], e["target"])) >= FACES_PER_PHOTO - 1
    # And it says how much of the graph it left out: together, every person and every link
    people = len(memory.query(f"run#{result.run_id}", "person#"))
    assert len(graph["nodes"]) + graph["truncated"]["nodes"] == people
    assert len(graph["edges"]) + graph["truncated"]["edges"] == 6_600
    assert graph["truncated"]["edges"] > 0


def test_get_run_and_get_graph_pages_serve_the_rest_each_within_one_message(crowded_run) -> None:
    result, _, memory, _ = crowded_run
    # Given a client holding the run (its access record, as startRun writes it)
    RunAccess(memory).register(result.run_id, "client", 1800)
    nowhere = _Nowhere()
    api = RunsApi(memory, nowhere, StoredSubscriptions(memory, nowhere, nowhere), nowhere)  # type: ignore[arg-type]
    record = {"clientId": "client", "ttlSeconds": 1800}

    # When it reads the run, then its graph page by page
    run = api.describe(result.run_id, record)
    pages, cursor = [], None
    while True:
        page = api.graph_page(result.run_id, 1800, cursor)
        pages.append(page)
        cursor = page["cursor"]
        if cursor is None:
            break

    # Then every reply fits one message, and the pages hold every link exactly once, with its photo
    assert run["final"]["type"] == "no_path"
    for reply in (run, *pages):
        assert len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode()) <= MAX_EVENT_BYTES
    links = [(e["source"], e["target"]) for p in pages for e in p["edges"]]
    assert len(links) == len(set(links)) == 6_600
    assert all(e["imageUrl"].startswith("https://images.example.org/") for p in pages for e in p["edges"])
    stored = {i.sk.removeprefix("edge#") for i in memory.query(f"run#{result.run_id}", "edge#")}
    assert {edge_id(s, t) for s, t in links} == stored
    # And each page names the people its links join
    for page in pages:
        named = {n["id"] for n in page["nodes"]}
        assert all(e["source"] in named and e["target"] in named for e in page["edges"])
