#!/usr/bin/env bash
# Benchmarks post-edit diagnostics: coderd's edit->[DIAGNOSTICS] latency per language against the
# language server's own latency (the same edits sent to the same binary directly, by
# scripts/lsp_direct.py), cold first-file time, the cost of an edit with autodiag off or without a
# server, and the daemon's RSS beside the servers'. See scripts/bench-lsp.py for what is timed.
#
#   scripts/bench-lsp.sh [--quick]     (~3 minutes on 2 cores; --quick ~1 minute; honors CARGO_TARGET_DIR)
#
# The servers are installed first when missing (scripts/install-language-servers.sh, idempotent).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
"$repo/scripts/install-language-servers.sh" 2>/dev/null
cargo build --release --quiet --bins --manifest-path "$repo/Cargo.toml"
exec python3 "$repo/scripts/bench-lsp.py" "$CARGO_TARGET_DIR/release/coderd" "$@"
