#!/usr/bin/env bash
# Set up everything the tests need on a fresh machine, then run them: ./scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

# The browser test drives Debian's chromium (Playwright must not download a browser of its own).
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev]'
# The browser test must run here, not skip.
VD_REQUIRE_BROWSER=1 exec .venv/bin/python -m pytest "$@"
