#!/usr/bin/env bash
# Installs the Python iii SDK (package `iii-sdk`, pinned to 0.25.0: the version seen to speak the
# protocol of the engine in ../shared/iii, 0.23.0-rc.4) into a virtualenv under target/, for
# scripts/bench-iii.py (an iii agent's client, nobody here wrote). Idempotent. Prints the python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/iii-venv
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import iii' >/dev/null 2>&1; then
    echo "$venv/bin/python"
    exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'iii-sdk==0.25.0' >&2
"$venv/bin/python" -c 'import iii' >&2
echo "$venv/bin/python"
