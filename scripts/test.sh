#!/usr/bin/env bash
# The test command of the README, which CI (.ci/run) runs on a fresh machine: Debian's Chromium for the
# browser tests (installed when missing; needs root or sudo), a virtual environment, the package with its
# test extra, then pytest. The browser tests fail instead of skipping here (FORUMBOT_REQUIRE_BROWSER).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
    SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
    $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends chromium fonts-liberation
fi
python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]'
FORUMBOT_REQUIRE_BROWSER=1 exec .venv/bin/python -m pytest "$@"
