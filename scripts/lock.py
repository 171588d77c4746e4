"""Regenerate requirements.lock, the one set of pins for every install of this project.

    .venv/bin/python scripts/lock.py

pip resolves `-e '.[dev]'` from scratch (installing nothing) and reports what it would install; the
lock is that list, `name==version`, one a line. Both installs read it:
- the local one: `pip install -c requirements.lock -e '.[dev]'` (scripts/test.sh, the README);
- the Lambda layer: infra/layer_bundling.py installs the runtime subset (infra/layer/requirements.txt)
  with `--constraint requirements.lock`, as manylinux aarch64 wheels for CPython 3.13.

Run it after changing a dependency in pyproject.toml (tests/infrastructure/test_layer_bundling.py
fails while the lock and pyproject disagree), then `./scripts/test.sh` reinstalls from the new lock.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
PROJECT = "visual-degrees"
HEADER = """\
# The one lock: every package `pip install -e '.[dev]'` installs, at the version the tests run against.
# Local installs use it as constraints (pip install -c requirements.lock -e '.[dev]'); the Lambda layer
# installs its runtime subset from these same pins (infra/layer_bundling.py). Resolved on Linux for
# CPython {python}. Regenerate with: .venv/bin/python scripts/lock.py
"""


def canonical(name: str) -> str:
    """PEP 503 normalised name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def resolve() -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--dry-run",
                "--ignore-installed",
                "--report",
                str(report),
                "--editable",
                f"{ROOT}[dev]",
            ],
            check=True,
            cwd=ROOT,
        )
        installs = json.loads(report.read_text(encoding="utf-8"))["install"]
    pins = {canonical(item["metadata"]["name"]): item["metadata"]["version"] for item in installs}
    pins.pop(PROJECT, None)
    return pins


def main() -> int:
    pins = resolve()
    python = ".".join(str(part) for part in sys.version_info[:2])
    lines = [f"{name}=={version}" for name, version in sorted(pins.items())]
    LOCK.write_text(HEADER.format(python=python) + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{LOCK.relative_to(ROOT)}: {len(lines)} packages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
