"""A stream of questions: people drawn with weight 1/rank among the most credited, and the cost
curve by tens."""

from __future__ import annotations

from collections import Counter

import pytest

from visual_degrees.domain.errors import InvalidInput
from visual_degrees_tools.bench.metrics import RunRecord
from visual_degrees_tools.bench.stream import stream_figures, stream_pairs
from visual_degrees_tools.sandbox import PhotoWeb


def test_the_most_credited_are_asked_about_most_and_never_with_a_namesake(web: PhotoWeb) -> None:
    # Given a stream of 300 questions over the hand-made world (Meg Ryan and Tom Cruise: 2 events)
    pairs = stream_pairs(web, 300, seed=3)
    asked = Counter(p.a.name for p in pairs) + Counter(p.b.name for p in pairs)
    # Then the same seed draws the same stream, two distinct names a question, and the first
    # ranked is asked about more than the last (weights 1/rank)
    assert [p.label for p in stream_pairs(web, 300, seed=3)] == [p.label for p in pairs]
    assert all(p.a.name != p.b.name for p in pairs)
    ranked = sorted(asked, key=lambda name: -asked[name])
    assert asked[ranked[0]] > 2 * asked[ranked[-1]]
    with pytest.raises(InvalidInput, match="at least 1"):
        stream_pairs(web, 0, seed=3)


def record(cost: float) -> RunRecord:
    return RunRecord(a="a", b="b", shortest=1, solvable=True, outcome="path", reason=None, cost_usd=cost)


def test_the_cost_curve_is_by_tens_and_compares_the_first_and_last_thirty() -> None:
    # Given 90 questions costing 0.03 each for the first 30, then 0.01, then 0.006
    records = [record(0.03)] * 30 + [record(0.01)] * 30 + [record(0.006)] * 30
    figures = stream_figures(records)
    # Then each ten has its mean, and the last 30 cost a fifth of the first 30
    assert figures["stream_cost_by_tens"] == [0.03] * 3 + [0.01] * 3 + [0.006] * 3
    assert figures["stream_last_to_first"] == 0.2 and figures["stream_compared"] == 30
    assert figures["stream_free_answers"] == 0
