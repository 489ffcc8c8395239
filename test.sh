#!/usr/bin/env bash
# Set up everything the tests need (virtual environment with the pinned dev requirements and
# Debian's chromium for the browser tests) and run the whole suite: lint, engine, AppTest and
# browser tests, in one pytest run. CI (.ci/run) calls exactly this script.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements-dev.txt
# Test-only oracles whose own pins we do not want (crowd-kit pins transformers it never needs here)
.venv/bin/python -m pip install --quiet --no-deps -r requirements-oracle.txt
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = "0" ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    fi
fi
.venv/bin/python -m ruff check .
# One pytest worker per core (pytest-xdist); longest work first, a browser test file or a file with a
# module fixture stays on one worker (conftest.py), HLV_TEST_WORKERS overrides the count (1 = none).
exec .venv/bin/python -m pytest --browser chromium -n "${HLV_TEST_WORKERS:-auto}" --dist loadgroup --no-loadscope-reorder "$@"
