"""Every command works on the base install (`pip install -c requirements.lock -e .`, issue 17.7): run
in a process where the optional extras' packages cannot be imported (as if never installed), each
command's --help, doctor and doctor --offline, run and trace, bench and serve do their job, and what
needs an extra says which one and how to install it, with no traceback."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from visual_degrees_tools.commands import COMMANDS
from visual_degrees_tools.sandbox import EXAMPLE_PAIR

GUARD_SECONDS = 120.0  # a deadlock guard, never a timing assertion
CLI = [sys.executable, "-c", "import sys; from visual_degrees_tools.cli import main; sys.exit(main())"]
# The packages only the extras bring (live, aws, bench, dev): none of them may be needed.
EXTRA_ONLY = ("httpx", "boto3", "botocore", "google", "PIL", "matplotlib", "aws_lambda_powertools", "moto")
BLOCKER = f"""\
import sys

class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {EXTRA_ONLY!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
"""
LIVE_HINT = "pip install -e '.[live]'"


@pytest.fixture
def base(tmp_path: Path) -> dict[str, str]:
    """An environment whose interpreter cannot import any extra's package, and has no provider keys."""
    (tmp_path / "blocker").mkdir()
    (tmp_path / "blocker" / "sitecustomize.py").write_text(BLOCKER)
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("VD_", "AWS_", "GOOGLE_", "GEMINI_"))}
    return {**keep, "PYTHONPATH": str(tmp_path / "blocker"), "PYTHONUNBUFFERED": "1", "HOME": str(tmp_path)}


def cli(env: dict[str, str], state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--state-dir", str(state), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=GUARD_SECONDS,
        check=False,
    )


def assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr and "ModuleNotFoundError" not in done.stderr, done.stderr


def test_the_extras_packages_really_cannot_be_imported(base: dict[str, str]) -> None:
    for module in EXTRA_ONLY:
        done = subprocess.run([sys.executable, "-c", f"import {module}"], env=base, capture_output=True)
        assert done.returncode != 0 and b"ModuleNotFoundError" in done.stderr


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_every_commands_help_works(base: dict[str, str], tmp_path: Path, command: str | None) -> None:
    done = cli(base, tmp_path / "state", *([command] if command else []), "--help")
    assert_clean(done)
    assert done.returncode == 0 and "usage: visual-degrees" in done.stdout


@pytest.mark.parametrize("offline", [True, False])
def test_the_doctor_says_the_sandbox_is_ready_and_which_extra_live_mode_needs(
    base: dict[str, str], tmp_path: Path, offline: bool
) -> None:
    done = cli(base, tmp_path / "state", "doctor", *(["--offline"] if offline else []))
    assert_clean(done)
    assert done.returncode == 0  # nothing configured is broken: live mode is only not set up
    assert "Sandbox: ready." in done.stdout
    assert f"Live mode: not set up. It needs the live extra first: {LIVE_HINT}." in done.stdout
    assert re.search(r"rekognition .* not set up +needs the live extra", done.stdout)


def test_runs_and_traces_work_and_live_mode_names_its_extra(base: dict[str, str], tmp_path: Path) -> None:
    state = tmp_path / "state"
    # A sandbox run finds its path and is traced
    ran = cli(base, state, "run", *EXAMPLE_PAIR)
    assert_clean(ran)
    assert ran.returncode == 0 and "Path (2 hops)" in ran.stdout
    run_id = re.search(r"run id (\S+)", ran.stdout)
    assert run_id is not None
    listed = cli(base, state, "trace")
    traced = cli(base, state, "trace", run_id.group(1))
    assert listed.returncode == 0 and run_id.group(1) in listed.stdout
    assert traced.returncode == 0 and "ExecutionSucceeded" in traced.stdout
    # A live run is refused with the extra it needs, and nothing else
    live = cli(base, state, "run", *EXAMPLE_PAIR, "--providers", "live")
    assert_clean(live)
    assert live.returncode == 1
    assert "--providers live needs the live extra" in live.stderr and LIVE_HINT in live.stderr


def test_a_bench_reports_without_its_plot_and_says_which_extra_draws_it(
    base: dict[str, str], tmp_path: Path
) -> None:
    done = cli(base, tmp_path / "state", "bench", "--sample", "2", "--out", str(tmp_path / "bench"))
    assert_clean(done)
    assert done.returncode == 0
    assert "pip install -e '.[bench]'" in (tmp_path / "bench" / "report.md").read_text()


def test_serve_starts_and_stops(base: dict[str, str], tmp_path: Path) -> None:
    process = subprocess.Popen(
        [*CLI, "--state-dir", str(tmp_path / "state"), "serve", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=base,
    )
    try:
        assert process.stdout is not None
        assert "Visual Degrees: open http://" in process.stdout.readline()
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=GUARD_SECONDS)
    assert process.returncode == 0 and "stopped" in out
    assert "Traceback" not in err
