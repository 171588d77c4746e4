"""bench/web_variants.py: realistic webs with some figures moved, and scripts/bench_webs.py --variant."""

from __future__ import annotations

import json
import sys

import pytest

from tests.support.scripts import load_script
from visual_degrees_tools.bench.web_variants import VARIANTS, variant_web
from visual_degrees_tools.sandbox import load_world, photo_web
from visual_degrees_tools.sandbox.synthetic import default_world_path


@pytest.fixture(scope="module")
def world():
    return load_world(default_world_path())


def _named_faces(web) -> float:
    """Of the faces in photos of two or more, the share some agency caption names."""
    faces = named = 0
    for photo in range(web.photo_count):
        people = web.photo_people[web.photo_start[photo] : web.photo_start[photo + 1]]
        if len(people) > 1:
            faces += len(people)
            named += len(web.pages.agency_named[photo])
    return named / faces


def test_a_variant_is_another_web_whose_evidence_is_never_shared(world):
    realistic = photo_web(world, 0, "realistic")
    identities = {realistic.identity} | {variant_web(world, name).identity for name in VARIANTS}
    assert len(identities) == len(VARIANTS) + 1
    assert all(variant_web(world, name).mode == "realistic" for name in VARIANTS)


def test_fewer_names_names_fewer_faces_and_more_names_more(world):
    realistic = _named_faces(photo_web(world, 0, "realistic"))
    assert _named_faces(variant_web(world, "fewer-names")) < realistic - 0.05
    assert _named_faces(variant_web(world, "more-names")) > realistic + 0.05


def test_noisier_faces_prove_fewer_links_of_the_same_photos(world):
    from visual_degrees_tools.sandbox.ground_truth import ground_truth

    plain = ground_truth(photo_web(world, 0, "realistic")).provable_graph(80.0).edge_count
    noisy = ground_truth(variant_web(world, "noisier-faces")).provable_graph(80.0).edge_count
    assert noisy < plain


def test_an_unknown_variant_is_refused_by_name(world):
    with pytest.raises(SystemExit, match=r"unknown web variant 'kinder'.*fewer-names"):
        variant_web(world, "kinder")


def test_bench_webs_benchmarks_a_variant_and_tables_it_beside_the_realistic_web(tmp_path):
    bench_webs = load_script("bench_webs")
    common = ["run", "--world", str(default_world_path()), "--web", "realistic", "--seeds", "3"]
    common += ["--recalls", "1.0", "--tiers", "famous=2", "--out", str(tmp_path)]
    assert bench_webs.main(["bench_webs", *common]) == 0
    assert bench_webs.main(["bench_webs", *common, "--variant", "fewer-names"]) == 0
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert names == [
        "default_world.realistic-fewer-names.famous.s3.r1.json",
        "default_world.realistic.famous.s3.r1.json",
    ]
    figures = json.loads((tmp_path / names[0]).read_text(encoding="utf-8"))
    assert figures["web"] == "realistic-fewer-names" and figures["pairs"] == 2
    rows = [line for line in bench_webs.table(tmp_path).splitlines() if line.startswith("| default_world")]
    assert [row.split(" | ")[4] for row in rows] == ["realistic", "realistic-fewer-names"]
    with pytest.raises(SystemExit):
        bench_webs.main(["bench_webs", *common[:4], "clean", *common[5:], "--variant", "harsh"])


def test_stream_floor_runs_its_streams_on_a_variant(monkeypatch, capsys):
    stream_floor = load_script("stream_floor")
    common = ["stream_floor", "--world", str(default_world_path()), "--seeds", "1", "--stream", "6"]

    def row(*extra: str) -> str:
        monkeypatch.setattr(sys, "argv", [*common, *extra])
        stream_floor.main()
        return capsys.readouterr().out.splitlines()[-1]

    realistic, noisier = row(), row("--variant", "noisier-faces")
    assert realistic.startswith("| default_world 1 |") and noisier.startswith("| default_world 1 |")

    def first_30(line: str) -> float:
        return float(line.split(" | ")[1].lstrip("$"))

    # the same questions on a web whose faces score lower cost the runs more
    assert first_30(noisier) > first_30(realistic)
    with pytest.raises(SystemExit):
        row("--web", "clean", "--variant", "harsh")


def test_a_script_gets_the_web_it_was_asked_for_and_its_label(world):
    from visual_degrees_tools.bench.web_variants import chosen_web

    web, label = chosen_web(world, "clean", None)
    assert (web.mode, label) == ("clean", "clean")
    web, label = chosen_web(world, "realistic", "harsh")
    assert label == "realistic-harsh" and web.identity == variant_web(world, "harsh").identity
    with pytest.raises(SystemExit, match="variants are of the realistic web"):
        chosen_web(world, "clean", "harsh")
