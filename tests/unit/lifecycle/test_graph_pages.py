"""getGraph's pages (lifecycle/runs_api.py): each holds up to a page's worth of the links a client
may be shown, however many reused links not re-checked yet lie among them, and the pages together
hold each shown link once."""

from __future__ import annotations

from typing import Any

from visual_degrees.domain.models import Edge, Evidence
from visual_degrees.lifecycle.run_memory import RunEvidence
from visual_degrees.lifecycle.runs_api import GRAPH_PAGE_EDGES, RunsApi, StoredSubscriptions
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory

RUN = "20261201T100000-abc123"
TTL = 1800


class _Nowhere:
    """Executions, subscriptions and replies of a RunsApi that only reads."""

    def subscribe(self, connection_id: str, run_id: str, ttl_seconds: int) -> None: ...

    def send(self, connection_id: str, message: dict[str, Any]) -> bool:
        return True


def links(memory: SqliteMemory, prefix: str, count: int, *, shown: bool) -> set[str]:
    """`count` links of the run (ids starting with `prefix`): proven by it when `shown`, else
    reused from an earlier run and not re-checked yet. The photos of those shown."""
    evidence = RunEvidence(memory, RUN, TTL)
    urls = set()
    for n in range(count):
        a, b = f"{prefix}{n:03d}a", f"{prefix}{n:03d}b"
        url = f"https://photos.test/{a}-{b}.jpg"
        ev = Evidence(image_url=url, confidence_a=99.0, confidence_b=99.0, earlier_run=not shown)
        evidence.put_edge(Edge(a=a, b=b, name_a=a.upper(), name_b=b.upper(), evidence=ev))
        urls |= {url} if shown else set()
    return urls


def pages(memory: SqliteMemory) -> list[dict[str, Any]]:
    nowhere = _Nowhere()
    api = RunsApi(memory, nowhere, StoredSubscriptions(memory, nowhere, nowhere), nowhere)  # type: ignore[arg-type]
    read, cursor = [], None
    while True:
        read.append(api.graph_page(RUN, TTL, cursor))
        cursor = read[-1]["cursor"]
        if cursor is None:
            return read


def test_a_page_fills_up_past_reused_links_not_re_checked_yet() -> None:
    # Given a run whose first links in id order are reused ones not re-checked, then more links it
    # proved than a page holds, then reused ones again
    memory = SqliteMemory(":memory:")
    links(memory, "a", GRAPH_PAGE_EDGES // 2, shown=False)
    shown = links(memory, "b", GRAPH_PAGE_EDGES + 50, shown=True)
    links(memory, "c", 30, shown=False)
    # When a client reads the graph page by page
    read = pages(memory)
    # Then the first page is full, the second holds the rest, and each shown link is in one page
    assert [len(p["edges"]) for p in read] == [GRAPH_PAGE_EDGES, 50]
    urls = [e["imageUrl"] for p in read for e in p["edges"]]
    assert len(urls) == len(set(urls)) and set(urls) == shown


def test_a_graph_of_reused_links_not_re_checked_is_one_empty_last_page() -> None:
    memory = SqliteMemory(":memory:")
    links(memory, "a", GRAPH_PAGE_EDGES + 10, shown=False)
    assert [(p["edges"], p["cursor"]) for p in pages(memory)] == [([], None)]
