#!/usr/bin/env bash
# Set up everything the tests need, then run them: ./scripts/test.sh [pytest args]
# A fresh machine gets everything (Debian's chromium, .venv with the project and its dev tools at the
# versions of requirements.lock); after that, set-up is skipped while .venv is up to date with
# pyproject.toml, requirements.lock and this script (a hash of them is stamped in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

# The browser test drives Debian's chromium (Playwright must not download a browser of its own).
if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

STAMP=.venv/.visual-degrees-installed
wanted="$(cat pyproject.toml requirements.lock scripts/test.sh | { python3 --version; cat; } | sha256sum | cut -d' ' -f1)"
if [ -x .venv/bin/python ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$wanted" ]; then
  echo "test.sh: .venv is up to date with pyproject.toml and requirements.lock (rm $STAMP to reinstall)"
else
  echo "test.sh: installing the project and its dev tools into .venv (requirements.lock)…"
  rm -f "$STAMP"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -c requirements.lock -e '.[dev]'
  echo "$wanted" > "$STAMP"
fi
# The browser test must run here, not skip.
VD_REQUIRE_BROWSER=1 exec .venv/bin/python -m pytest "$@"
