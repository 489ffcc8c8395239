#!/usr/bin/env bash
# Set up a virtual environment with the pinned runtime dependencies and start HLV Lens on
# http://127.0.0.1:8501 with the bundled sample data. Re-running reuses the environment.
set -euo pipefail
cd "$(dirname "$0")"
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -r requirements.txt
exec .venv/bin/python -m streamlit run app.py \
    --server.address=127.0.0.1 --server.port="${PORT:-8501}" \
    --server.headless=true --browser.gatherUsageStats=false "$@"
