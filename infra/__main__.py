"""`python3 -m infra`: the command cdk.json runs for `cdk synth` / `cdk deploy`.

The CDK app needs aws-cdk-lib, which the project installs into its virtual environment (.venv). So
that `cdk` works from any shell, with that environment activated or not, this launcher hands over to
.venv's Python when the Python that cdk started lacks aws-cdk-lib; with neither, it says what to
install instead of a `No module named 'aws_cdk'` traceback.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
MISSING = (
    "aws-cdk-lib is not installed for {python}. Install the CDK app's dependencies into the project's "
    "virtual environment, from the repository root:\n"
    "    python3 -m venv .venv && .venv/bin/pip install -c requirements.lock -e '.[infra]'\n"
    "then run cdk again (activating .venv is optional)."
)


def handover(has_cdk: bool, running_prefix: Path, venv_python: Path = VENV_PYTHON) -> Path | None:
    """The Python to re-run the app with, or None to run it here (or fail here, if `has_cdk` is False
    and .venv cannot help: absent, or the very environment already running)."""
    if has_cdk or not venv_python.exists():
        return None
    if running_prefix.resolve() == venv_python.parents[1].resolve():
        return None
    return venv_python


def main() -> None:
    has_cdk = importlib.util.find_spec("aws_cdk") is not None
    python = handover(has_cdk, Path(sys.prefix))
    if python is not None:
        os.execv(python, [str(python), "-m", "infra", *sys.argv[1:]])
    if not has_cdk:
        sys.exit(MISSING.format(python=sys.executable))
    from infra.app import main as synth

    synth()


if __name__ == "__main__":
    main()
