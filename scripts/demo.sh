#!/usr/bin/env bash
# Install the package and run one local investigation on the bundled sandbox world.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install -q -e .
exec .venv/bin/visual-degrees run "${1:-Vesna Hawthorne}" "${2:-Niall Halloran}"
