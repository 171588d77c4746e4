"""Issue 9.2 and 9.3 on the sandbox: every link a run shows (path_update, final) is a photo an
`evidence` event of that run showed naming both people; a partial path reads from A's side (and
from B's when B's side grew)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from tests.support.fakes import ListSink
from visual_degrees.domain.models import Budgets, RunOptions
from visual_degrees.domain.names import name_key
from visual_degrees_tools.adapters.sqlite_memory import SqliteMemory
from visual_degrees_tools.bench.pairs import sample_pairs
from visual_degrees_tools.local.environments import sandbox_environment
from visual_degrees_tools.local.runner import LocalRunner

ENVIRONMENT = sandbox_environment(None)
PAIRS = [(p.a.name, p.b.name) for p in sample_pairs(ENVIRONMENT.web, 24, 5)]
STRATEGIES = [
    RunOptions(),
    RunOptions(knobs={"caption_leads": False, "planner_matching": False}),
    RunOptions(strategy="seed"),
]


def shown_photos(events) -> dict[frozenset[str], set[str]]:
    shown: dict[frozenset[str], set[str]] = {}
    for e in events:
        if e.type != "evidence":
            continue
        links = e.data.get("links") or [{"fromKey": e.data["fromKey"], "toKey": e.data["toKey"]}]
        for link in links:
            shown.setdefault(frozenset((link["fromKey"], link["toKey"])), set()).add(e.data["imageUrl"])
    return shown


@pytest.mark.parametrize("options", STRATEGIES, ids=["default", "issue6", "seed"])
def test_every_link_shown_was_shown_with_its_photo_first(options):
    for a, b in PAIRS:
        sink = ListSink()
        LocalRunner(SqliteMemory(":memory:"), ENVIRONMENT).run(a, b, options, sink=sink)
        shown: dict[frozenset[str], set[str]] = {}
        for event in sink.events:
            shown = shown_photos(sink.events[: event.seq])
            if event.type == "path_update":
                for edge in event.data.get("edges", []):
                    assert edge["imageUrl"] in shown[frozenset((edge["fromKey"], edge["toKey"]))]
                if options.strategy == "default" and not options.knobs:
                    assert len(event.data["edges"]) == len(event.data["path"]) - 1
            if event.type == "final":
                for edge in event.data["edges"]:
                    pair = frozenset((name_key(edge["from"]), name_key(edge["to"])))
                    assert edge["evidence"]["imageUrl"] in shown[pair], (
                        f"{a} → {b}: {edge['from']} — {edge['to']}"
                    )


def test_a_partial_path_reads_from_a_and_the_other_side_from_b():
    stopped = 0
    for a, b in PAIRS:
        sink = ListSink()
        options = RunOptions(budgets=Budgets(searches=2))
        result = LocalRunner(SqliteMemory(":memory:"), ENVIRONMENT).run(a, b, options, sink=sink)
        if result.outcome != "no_path":
            continue
        stopped += 1
        data = result.final.data
        assert data["partialPath"][0] == a
        if "partialPathFromB" in data:
            assert data["partialPathFromB"][0] == b and len(data["partialPathFromB"]) > 1
        for path in (data["partialPath"], data.get("partialPathFromB", [])):
            shown = shown_photos(sink.events)
            for x, y in pairwise(path):
                assert shown.get(frozenset((name_key(x), name_key(y)))), f"{x} — {y} shown without a photo"
    assert stopped >= 3
