"""Issue 9.1: evidence, caches and the evidence graph belong to the photo web that produced them.

One state directory, two worlds with the same people: the second world must never be answered with
the first world's photos (that was a false path at $0)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli_runs import run_json
from visual_degrees.domain.names import name_key
from visual_degrees_tools.sandbox import EXAMPLE_PAIR, PhotoWeb, default_world_path, load_world
from visual_degrees_tools.sandbox.ground_truth import ground_truth

A, B = EXAMPLE_PAIR


def without_meetings(world_path: Path, x: str, y: str, out: Path) -> Path:
    """The same world as JSON lines, minus every event where x and y appear together."""
    world = load_world(world_path)
    lines = []
    for event in world.events:
        keys = {world.keys[p] for p in event.people}
        if not {name_key(x), name_key(y)} <= keys:
            lines.append(json.dumps({"title": event.title, "people": [world.raws[p] for p in event.people]}))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_a_chain_proven_in_one_world_is_never_reused_in_another(state_dir, capsys, tmp_path):
    # Given a chain proven in the bundled world, remembered in the state directory
    code, events = run_json(capsys, A, B)
    assert code == 0
    first = events[-1]["data"]
    assert first["hops"] >= 2
    bridge_link = first["path"][-2], first["path"][-1]
    # And another world with the same people where the chain's last two never met
    other = without_meetings(default_world_path(), *bridge_link, tmp_path / "other.jsonl")
    # When the same question is asked against the other world, on the same state directory
    code, events = run_json(capsys, A, B, "--world", str(other))
    final = events[-1]
    # Then it paid to search its own web, and any path it shows is made of that web's photos
    assert final["data"]["usage"]["searches"] > 0
    if final["type"] == "final":
        web = PhotoWeb(load_world(other), 0)
        for edge in final["data"]["edges"]:
            truth = ground_truth(web).truth(edge["evidence"]["imageUrl"])
            assert {web.celebrity_id(edge["from"]), web.celebrity_id(edge["to"])} <= truth
        assert final["data"]["path"] != first["path"]


def test_the_same_world_asked_again_reuses_its_own_evidence(state_dir, capsys):
    # Given a chain proven in the bundled world
    code, _ = run_json(capsys, A, B)
    assert code == 0
    # When the question is asked again on the same web
    code, events = run_json(capsys, A, B)
    # Then it is answered from memory, for free, each link still shown with its photo
    assert code == 0
    final = events[-1]["data"]
    assert final["usage"]["searches"] == 0
    shown = {e["data"]["imageUrl"] for e in events if e["type"] == "evidence"}
    assert {edge["evidence"]["imageUrl"] for edge in final["edges"]} <= shown


def test_another_seed_is_another_photo_web(state_dir, capsys):
    code, _ = run_json(capsys, A, B)
    assert code == 0
    code, events = run_json(capsys, A, B, "--seed", "1")
    assert events[-1]["data"]["usage"]["searches"] > 0
