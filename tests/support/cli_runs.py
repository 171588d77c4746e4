"""Running the CLI as a user would, in a state directory of the test's own."""

from __future__ import annotations

import json

import pytest

from visual_degrees_tools.cli import main


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict]]:
    """`visual-degrees run ARGV --json`: the exit code and the events."""
    code = main(["run", *argv, "--json"])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]
