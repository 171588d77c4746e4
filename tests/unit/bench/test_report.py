"""The benchmark's report says what its figures and its plot's points are."""

from __future__ import annotations

from pathlib import Path

import pytest

from visual_degrees_tools.bench.metrics import RunRecord, summarize
from visual_degrees_tools.bench.report import Section, markdown, write_plot


def _section() -> Section:
    records = [
        RunRecord("A", "B", 2, True, "path", None, hops=2, true_path=True, meant=True, cost_usd=0.02),
        RunRecord("C", "D", 3, True, "no_path", "budget", cost_usd=0.1),
    ]
    return Section("default", summarize(records, "default"), records)


def test_the_report_explains_namesake_paths_false_edges_and_the_plot() -> None:
    text = markdown("bench", [_section()], {}, plotted=True)
    assert "- `namesake_paths`: reported paths whose every photo is real but which start or end" in text
    assert "- `edges_false`: of those, links whose photo does not truly show both people: a lookalike" in text
    assert "each dot is one configuration's mean cost per run over all pairs, solved or not" in text


def test_the_plot_labels_its_mean_cost_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.pyplot as plt

    kept = []
    monkeypatch.setattr(plt, "close", kept.append)  # keep the figure to read it
    assert write_plot(tmp_path / "plot.png", "bench", [_section()])
    left = kept[0].axes[0]
    labels = [text.get_text() for text in left.get_legend().get_texts()]
    assert "default: mean cost per run (all pairs), success rate" in labels
    assert "mean $0.060/run" in [text.get_text() for text in left.texts]
    plt.close(kept[0])
