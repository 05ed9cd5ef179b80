#!/usr/bin/env bash
# Installs the official Python MCP SDK (package `mcp`) into a virtualenv under target/, for the MCP
# client test (tests/mcp.rs drives `coderd mcp` with it: a client nobody here wrote). Idempotent:
# does nothing when the venv already imports `mcp`. Prints the venv's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/mcp-client-venv
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import mcp' >/dev/null 2>&1; then
    echo "$venv/bin/python"
    exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'mcp>=2.3,<3' >&2
"$venv/bin/python" -c 'import mcp' >&2
echo "$venv/bin/python"
