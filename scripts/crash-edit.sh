#!/usr/bin/env bash
# Crash safety, the issue's full bar: 500 (or $1) kill -9 loops during write/patch/multipatch of
# 1 KB-10 MB files, each followed by a restart and the checks of tests/it/edit_crash.rs (every file
# old or new, no temp files after the startup sweep, modes and symlinks intact, .bak an earlier
# version). CI runs the same test with 50 loops.
set -euo pipefail
cd "$(dirname "$0")/.."
CODERD_CRASH_LOOPS="${1:-500}" cargo test --test it edit_crash:: -- --nocapture 2>&1 | grep -E "^crash:|^test result|panicked|round [0-9]+"
