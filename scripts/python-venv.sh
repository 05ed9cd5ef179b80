#!/usr/bin/env bash
# A virtualenv under target/ holding one pip package, for the scripts that install a client written
# by others (install-mcp-client.sh, install-iii-client.sh). Idempotent: does nothing when the venv
# already imports the module. Prints the venv's python.
#
#   scripts/python-venv.sh VENV_NAME MODULE REQUIREMENT
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/$1 module=$2 requirement=$3
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $module" >/dev/null 2>&1; then
    echo "$venv/bin/python"
    exit 0
fi
python3 -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$requirement" >&2
"$venv/bin/python" -c "import $module" >&2
echo "$venv/bin/python"
