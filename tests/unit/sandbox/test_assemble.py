from __future__ import annotations

import pytest

from visual_degrees.domain.errors import ProviderError
from visual_degrees.domain.queries import DISCOVERY_TEMPLATES
from visual_degrees.ports import CelebrityRecognizer, Clock, ImageFetcher, ImageSearch, Planner
from visual_degrees_tools.sandbox import EPOCH, EXAMPLE_PAIR, FaultConfig, build_sandbox
from visual_degrees_tools.sandbox.ground_truth import ground_truth


def test_providers_share_one_web_one_clock_and_one_fault_plan(default_world, default_web):
    # Given a sandbox built on an existing web
    sandbox = build_sandbox(default_web, seed=3, faults=FaultConfig(dead_link=1.0))
    # Then it reuses the web, and every provider implements its port over the same clock and faults
    assert sandbox.web is default_web and sandbox.world is default_world
    ports = (
        (sandbox.search, ImageSearch),
        (sandbox.fetcher, ImageFetcher),
        (sandbox.recognizer, CelebrityRecognizer),
        (sandbox.planner, Planner),
        (sandbox.clock, Clock),
    )
    for provider, port in ports:
        assert all(
            callable(getattr(provider, name, None)) for name in port.__dict__ if not name.startswith("_")
        )
    assert {id(p.clock) for p in (sandbox.search, sandbox.fetcher, sandbox.recognizer, sandbox.planner)} == {
        id(sandbox.clock)
    }
    hit = sandbox.search.search(EXAMPLE_PAIR[0], 1)[0]
    with pytest.raises(ProviderError, match="404"):
        sandbox.fetcher.fetch(hit.image_url)
    assert sandbox.faults.injected["dead_link"] == 1
    assert sandbox.calls() == {"search": 1, "fetch": 1, "recognize": 0, "planner": 0}
    assert sandbox.clock.now() == pytest.approx(EPOCH + 0.5 + 0.3)


def test_built_from_a_world_it_makes_its_own_web(default_world):
    sandbox = build_sandbox(default_world, seed=0)
    assert sandbox.web.seed == 0 and sandbox.web.photo_count > 0


def test_what_the_ports_prove_is_true_and_provable(default_world, default_web):
    # Given discovery searches around the example person, seen only through the ports
    sandbox = build_sandbox(default_web)
    graph = ground_truth(default_web).provable_graph()
    name = EXAMPLE_PAIR[0]
    me = default_world.celebrity_id(default_world.find(name)[0])
    proven = set()
    for template in DISCOVERY_TEMPLATES:
        for hit in sandbox.search.search(template.format(a=name), 5):
            faces = sandbox.recognizer.recognize(sandbox.fetcher.fetch(hit.image_url))
            ids = {f.celebrity_id for f in faces if f.confidence >= 80}
            if me in ids:
                truth = ground_truth(sandbox.web).truth(hit.image_url)
                for other in ids - {me}:
                    proven.add(other)
                    # Then a pair seen at >= 80 in one photo is an edge of the provable graph,
                    # unless the recogniser mistook a stranger for someone (a lookalike)
                    person = default_world.by_celebrity_id(other)
                    assert other not in truth or graph.has_edge(default_world.find(name)[0], person)
    assert len(proven) >= 3
