"""Fixtures the integration tests share."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state directory of the test's own, as VISUAL_DEGREES_STATE_DIR names it to the CLI."""
    path = tmp_path / "state"
    monkeypatch.setenv("VISUAL_DEGREES_STATE_DIR", str(path))
    return path
