"""The README's set-up commands: scripts/test.sh installs only what is out of date, and `cdk` finds the
project's .venv from any shell (infra/__main__.py). Set-up runs against stand-ins for python3, pip,
chromium and apt-get, so these tests need neither the network nor minutes."""

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
# A stand-in for python3, .venv/bin/python and .venv/bin/uv: logs its arguments; `-m venv DIR` makes
# DIR/bin/python, `-m pip install … uv` makes .venv/bin/uv; an install leaves a mark that the
# apt-get stand-in waits for.
echo "$0 $*" >> "$CALLS"
if [ "$1" = "--version" ]; then echo "Python 3.11.2"; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin" && cp "$FAKE" "$3/bin/python" && chmod +x "$3/bin/python"
fi
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then cp "$FAKE" .venv/bin/uv && chmod +x .venv/bin/uv; fi
case "$*" in *"pip install"*) touch "$PIP_RAN";; esac
exit 0
"""

# Finishes only once pip has run (or fails after 10 s): apt must not hold up .venv's install.
FAKE_APT_GET = """#!/bin/sh
echo "apt-get $*" >> "$CALLS"
for _ in $(seq 100); do [ -e "$PIP_RAN" ] && exit "${APT_EXIT:-0}"; sleep 0.1; done
exit 1
"""

# What test.sh runs besides the stand-ins; PATH holds only these, so /usr/bin/chromium is not found.
TOOLS = (
    "bash",
    "cat",
    "cut",
    "dirname",
    "id",
    "mktemp",
    "rm",
    "seq",
    "sha256sum",
    "sleep",
    "touch",
    "cp",
    "mkdir",
    "chmod",
)


def _stand_in(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of what test.sh reads, with python3, apt-get and chromium stand-ins first on PATH."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "requirements.lock", "scripts/test.sh"):
        shutil.copy2(REPO_ROOT / name, root / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _stand_in(bin_dir / "python3", FAKE_PYTHON)
    _stand_in(bin_dir / "apt-get", FAKE_APT_GET)
    _stand_in(bin_dir / "chromium", "#!/bin/sh\nexit 0\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        assert found, tool
        (tools / tool).symlink_to(found)
    return root


def without_chromium(root: Path) -> Path:
    (root.parent / "bin" / "chromium").unlink()
    return root


def run_test_sh(root: Path, *args: str, apt_exit: int = 0) -> list[str]:
    """Run scripts/test.sh once; the commands the stand-ins were asked to run."""
    calls = root.parent / "calls.log"
    calls.unlink(missing_ok=True)
    (root.parent / "pip-ran").unlink(missing_ok=True)
    env = {
        "PATH": f"{root.parent / 'bin'}{os.pathsep}{root.parent / 'tools'}",
        "CALLS": str(calls),
        "FAKE": str(root.parent / "bin" / "python3"),
        "PIP_RAN": str(root.parent / "pip-ran"),
        "APT_EXIT": str(apt_exit),
        "HOME": str(root.parent),
    }
    subprocess.run(
        [str(root.parent / "tools" / "bash"), "scripts/test.sh", *args],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )
    return calls.read_text(encoding="utf-8").splitlines()


def installs(calls: list[str]) -> list[str]:
    return [call for call in calls if " pip install" in call]


def pytest_args(calls: list[str]) -> str:
    *_, last = calls
    assert " -m pytest " in last, calls
    return last.split(" -m pytest ", 1)[1]


def test_a_fresh_machine_gets_everything_from_the_lock(checkout: Path) -> None:
    calls = run_test_sh(checkout, "-q")
    assert any(call.endswith("-m venv .venv") for call in calls)
    assert not [call for call in calls if call.startswith("apt-get")]  # chromium is there already
    # pip brings in uv at the lock's version, uv installs the rest from the lock
    assert installs(calls)[0].endswith(".venv/bin/python -m pip install -q -c requirements.lock uv")
    assert installs(calls)[1].endswith(
        ".venv/bin/uv pip install -q --python .venv/bin/python -c requirements.lock -e .[dev]"
    )
    # the whole suite, spread over one worker per core
    assert pytest_args(calls) == "-n auto --dist loadgroup -q"


def test_an_up_to_date_venv_is_not_reinstalled_and_a_changed_lock_is(checkout: Path) -> None:
    # Given a machine set up once
    run_test_sh(checkout, "-q")

    # When the tests run again with nothing changed, then nothing is installed
    again = run_test_sh(checkout, "-q")
    assert installs(again) == [] and pytest_args(again).endswith("-q")

    # When the lock changes (or pyproject.toml), then the next run installs again
    lock = checkout / "requirements.lock"
    lock.write_text(lock.read_text(encoding="utf-8") + "six==1.17.0\n", encoding="utf-8")
    assert installs(run_test_sh(checkout, "-q")) != []
    (checkout / "pyproject.toml").write_text("# changed\n", encoding="utf-8")
    assert installs(run_test_sh(checkout, "-q")) != []
    assert installs(run_test_sh(checkout, "-q")) == []


def test_tier_names_choose_the_tiers_and_other_arguments_go_to_pytest(checkout: Path) -> None:
    assert pytest_args(run_test_sh(checkout, "unit")) == "-n auto --dist loadgroup tests/unit"
    assert (
        pytest_args(run_test_sh(checkout, "e2e", "infrastructure", "-x", "-k", "unit"))
        == "-n auto --dist loadgroup tests/e2e tests/infrastructure -x -k unit"
    )
    # a path, or a tier name after an option, is pytest's as it stands
    assert pytest_args(run_test_sh(checkout, "tests/unit/domain", "-n", "1")) == (
        "-n auto --dist loadgroup tests/unit/domain -n 1"
    )


def test_chromium_is_installed_only_when_missing_and_alongside_the_venv(checkout: Path) -> None:
    # Given a fresh machine without chromium: apt installs it while .venv installs (the apt stand-in
    # waits for pip), then the tests run
    calls = run_test_sh(without_chromium(checkout))
    apt = [call for call in calls if call.startswith("apt-get")]
    assert apt[0] == "apt-get update -qq"
    assert apt[1].startswith("apt-get install") and apt[1].endswith("chromium")
    assert " -m pytest " in calls[-1]

    # A run of tiers without the browser's needs no chromium
    assert not [call for call in run_test_sh(checkout, "unit", "integration") if call.startswith("apt-get")]


def test_a_failed_chromium_install_stops_the_run(checkout: Path) -> None:
    with pytest.raises(subprocess.CalledProcessError) as failed:
        run_test_sh(without_chromium(checkout), "e2e", apt_exit=100)
    assert b"installing chromium failed" in failed.value.stderr
    calls = (checkout.parent / "calls.log").read_text(encoding="utf-8")
    assert " -m pytest" not in calls


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
