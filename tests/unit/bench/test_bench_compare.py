"""scripts/bench_compare.py: two bench outputs are the same figures, a figure added since aside."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "bench_compare.py"


def compare(tmp_path: Path, before: dict, after: dict) -> tuple[int, str]:
    (tmp_path / "a.json").write_text(json.dumps(before), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(after), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "a.json"), str(tmp_path / "b.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout


def test_the_same_figures_with_a_figure_added_and_other_timings_are_identical(tmp_path):
    before = {"solved": 83, "success_rate": 0.5287, "cpu_ms_p50": 150.0, "world_load_s": 0.3}
    after = {**before, "cpu_ms_p50": 170.0, "world_load_s": 0.4, "path_excess_distribution": {}}
    code, out = compare(tmp_path, before, after)
    assert code == 0
    assert "compared 2 keys: identical" in out and "added, not compared: path_excess_distribution" in out


def test_a_changed_or_missing_figure_is_a_difference(tmp_path):
    code, out = compare(tmp_path, {"solved": 83, "errors": 0}, {"solved": 84})
    assert code == 1
    assert "solved: 83 != 84" in out and "errors: missing (was 0)" in out
