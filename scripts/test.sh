#!/usr/bin/env bash
# Set up everything the tests need, then run them in parallel, one worker per core:
#   ./scripts/test.sh                       every tier
#   ./scripts/test.sh unit [integration …]  those tiers only (unit, integration, e2e, infrastructure)
#   ./scripts/test.sh [TIER …] ARGS         ARGS go to pytest as they are (a later `-n 0`: one process)
# A fresh machine gets everything (Debian's chromium when it is missing, .venv with the project and its
# dev tools at the versions of requirements.lock); after that, set-up is skipped while .venv is up to
# date with pyproject.toml, requirements.lock and this script (a hash of them is stamped in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."

TIERS=(unit integration e2e infrastructure)
paths=()
while [ $# -gt 0 ] && [[ " ${TIERS[*]} " == *" $1 "* ]]; do
  paths+=("tests/$1")
  shift
done

# The browser tests drive Debian's chromium (Playwright must not download a browser of its own). apt
# takes minutes on a fresh machine, so it runs while .venv installs; a run of named tiers without e2e
# needs no browser.
apt_pid=""
apt_log="$(mktemp)"
trap 'rm -f "$apt_log"' EXIT
if ! command -v chromium >/dev/null 2>&1 && { [ ${#paths[@]} -eq 0 ] || [[ " ${paths[*]} " == *" tests/e2e "* ]]; }; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "test.sh: installing Debian's chromium (apt) while .venv is set up…"
  ( $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium ) >"$apt_log" 2>&1 &
  apt_pid=$!
fi

STAMP=.venv/.visual-degrees-installed
wanted="$(cat pyproject.toml requirements.lock scripts/test.sh | { python3 --version; cat; } | sha256sum | cut -d' ' -f1)"
if [ -x .venv/bin/python ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$wanted" ]; then
  echo "test.sh: .venv is up to date with pyproject.toml and requirements.lock (rm $STAMP to reinstall)"
else
  echo "test.sh: installing the project and its dev tools into .venv (requirements.lock)…"
  rm -f "$STAMP"
  python3 -m venv .venv
  # pip brings in uv at the lock's version; uv installs the rest (the same pins), fetching in
  # parallel where pip took minutes over each in turn. No --compile-bytecode: Python compiles only what the
  # tests import, as they import it, where compiling all of .venv ahead (aws-cdk-lib
  # alone is 430 MB) cost 80 s of CPU, most of a fresh machine's set-up.
  .venv/bin/python -m pip install -q -c requirements.lock uv
  .venv/bin/uv pip install -q --python .venv/bin/python -c requirements.lock -e '.[dev]'
  echo "$wanted" > "$STAMP"
fi

if [ -n "$apt_pid" ] && ! wait "$apt_pid"; then
  cat "$apt_log" >&2
  echo "test.sh: installing chromium failed" >&2
  exit 1
fi
rm -f "$apt_log"  # exec leaves no shell to run the trap

# One worker per core; tests/conftest.py orders and groups the slow ones (browser, CDK synthesis) so
# they start first and spread over the workers. The browser tests must run here, not skip.
VD_REQUIRE_BROWSER=1 exec .venv/bin/python -m pytest -n auto --dist loadgroup "${paths[@]}" "$@"
