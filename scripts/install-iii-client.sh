#!/usr/bin/env bash
# Installs the Python iii SDK (package `iii-sdk`, pinned to 0.25.0: the version seen to speak the
# protocol of the engine in ../shared/iii, 0.23.0-rc.4) into a virtualenv under target/, for
# scripts/bench-iii.py (an iii agent's client, nobody here wrote). Idempotent. Prints the python.
exec "$(dirname "$0")/python-venv.sh" iii-venv iii 'iii-sdk==0.25.0'
