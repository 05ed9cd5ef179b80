#!/usr/bin/env bash
# Installs the official Python MCP SDK (package `mcp`) into a virtualenv under target/, for the MCP
# client test (tests/it/mcp.rs drives `coderd mcp` with it: a client nobody here wrote). Idempotent.
# Prints the venv's python.
exec "$(dirname "$0")/python-venv.sh" mcp-client-venv mcp 'mcp>=2.3,<3'
