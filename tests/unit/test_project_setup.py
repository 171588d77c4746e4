"""The README's set-up commands: scripts/test.sh installs only what is out of date, and `cdk` finds the
project's .venv from any shell (infra/__main__.py). Set-up runs against stand-ins for python3, pip and
chromium, so these tests need neither the network nor minutes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from infra.__main__ import handover

REPO_ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/bin/sh
# A stand-in for python3 and .venv/bin/python: logs its arguments; `-m venv DIR` makes DIR/bin/python.
echo "$0 $*" >> "$CALLS"
if [ "$1" = "--version" ]; then echo "Python 3.11.2"; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin" && cp "$FAKE" "$3/bin/python" && chmod +x "$3/bin/python"
fi
exit 0
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of what test.sh reads, with python3 and chromium stand-ins first on PATH."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "requirements.lock", "scripts/test.sh"):
        shutil.copy2(REPO_ROOT / name, root / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    fake.write_text(FAKE_PYTHON, encoding="utf-8")
    fake.chmod(0o755)
    (bin_dir / "chromium").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    (bin_dir / "chromium").chmod(0o755)
    return root


def run_test_sh(root: Path) -> list[str]:
    """Run scripts/test.sh once; the commands the stand-ins were asked to run."""
    bin_dir = root.parent / "bin"
    calls = root.parent / "calls.log"
    calls.unlink(missing_ok=True)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "CALLS": str(calls),
        "FAKE": str(bin_dir / "python3"),
        "HOME": str(root.parent),
    }
    subprocess.run(["bash", "scripts/test.sh", "-q"], cwd=root, env=env, check=True, capture_output=True)
    return calls.read_text(encoding="utf-8").splitlines()


def installs(calls: list[str]) -> list[str]:
    return [call for call in calls if " pip install" in call]


def test_a_fresh_machine_gets_everything_from_the_lock(checkout: Path) -> None:
    calls = run_test_sh(checkout)
    assert any(call.endswith("-m venv .venv") for call in calls)
    assert any("pip install -q -c requirements.lock -e .[dev]" in call for call in installs(calls))
    assert calls[-1].endswith("-m pytest -q")


def test_an_up_to_date_venv_is_not_reinstalled_and_a_changed_lock_is(checkout: Path) -> None:
    # Given a machine set up once
    run_test_sh(checkout)

    # When the tests run again with nothing changed, then nothing is installed
    again = run_test_sh(checkout)
    assert installs(again) == [] and again[-1].endswith("-m pytest -q")

    # When the lock changes (or pyproject.toml), then the next run installs again
    lock = checkout / "requirements.lock"
    lock.write_text(lock.read_text(encoding="utf-8") + "six==1.17.0\n", encoding="utf-8")
    assert installs(run_test_sh(checkout)) != []
    (checkout / "pyproject.toml").write_text("# changed\n", encoding="utf-8")
    assert installs(run_test_sh(checkout)) != []
    assert installs(run_test_sh(checkout)) == []


def test_cdk_hands_over_to_the_project_venv_when_the_shell_python_lacks_aws_cdk(tmp_path: Path) -> None:
    venv_python = tmp_path / ".venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    venv_python.write_text("", encoding="utf-8")
    system = Path(sys.base_prefix)

    # A shell without the venv activated: hand over to .venv's Python
    assert handover(False, system, venv_python) == venv_python
    # Activated (or any Python that has aws-cdk-lib): run right here
    assert handover(True, system, venv_python) is None
    # .venv itself lacks aws-cdk-lib (installed without the infra extra): fail here, never loop
    assert handover(False, tmp_path / ".venv", venv_python) is None
    # No .venv at all: nothing to hand over to
    assert handover(False, system, tmp_path / "none" / "bin" / "python") is None


def test_cdk_json_runs_the_launcher() -> None:
    import json

    app = json.loads((REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["app"]
    assert app == "python3 -m infra"
