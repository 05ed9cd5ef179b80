#!/usr/bin/env bash
# The memory bar: request storms against a fresh daemon, full size. For each storm it prints the
# daemon's peak RSS, its RSS 10 s after the storm (and how soon it was under 64 MiB), and the
# p50/p99 latency of a small `read` sent on another connection all through the storm.
#
#   scripts/bench-memory.sh            (honors CARGO_TARGET_DIR; about 2 minutes on 2 cores)
#
# Knobs: BENCH_DIR (scratch, default $TMPDIR/coderd-bench-memory), CODERD_BIN (a coderd binary to
# measure instead of this tree's build, e.g. an older one for comparison), SETTLE_MS (10000),
# PROFILE (release; `debug` where a release build takes too long), STORMS (a regex: only the
# storms whose label matches, e.g. STORMS=never).
#
# Storms (each on a fresh daemon, default config: max_memory_bytes 512 MiB):
#   1. one connection pipelining 64 searches over a workspace holding one 50 MiB single-line file
#   2. 200 connections searching that workspace at once
#   3. 8 connections searching a workspace holding one 200 MiB single-line file
#   4. one search whose answer is ~6 MB (limits raised by a config file), then the RSS 10 s later
#   5. 4 connections pipelining 64 reads of a 9 MiB file as base64 (12 MiB answers) and never
#      reading (write_timeout_secs 10, held 15 s): the daemon stops serving them, closes them, and
#      stays under max_memory_bytes; the small reads on another connection go on
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/coderd-bench-memory}
settle=${SETTLE_MS:-10000}
mkdir -p "$work"

profile=${PROFILE:-release}
echo "## building ($profile, CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
flag=(); [[ $profile == release ]] && flag=(--release)
(cd "$repo" && cargo build "${flag[@]}" --quiet --bins --example memory_storm)
coderd=${CODERD_BIN:-$CARGO_TARGET_DIR/$profile/coderd}
storm=$CARGO_TARGET_DIR/$profile/examples/memory_storm
echo "coderd: $coderd"

# --- workspaces ----------------------------------------------------------------------------------
one_line() { # FILE MIB: one line of MIB MiB with "needle" in the middle
  local half=$(($2 * 1024 * 1024 / 2))
  { head -c "$half" /dev/zero | tr '\0' x; printf needle; head -c "$half" /dev/zero | tr '\0' x; echo; } >"$1"
}
small() { seq 1 40 | sed 's/^/line /' >"$1/small.txt"; }
mkdir -p "$work/ws50" "$work/ws200" "$work/wsbig"
[[ -f $work/ws50/one-line.txt ]] || one_line "$work/ws50/one-line.txt" 50
[[ -f $work/ws200/one-line.txt ]] || one_line "$work/ws200/one-line.txt" 200
small "$work/ws50"; small "$work/ws200"; small "$work/wsbig"
if [[ ! -f $work/wsbig/done ]]; then
  # ~60,000 matching lines over 200 files: a 6 MB answer with context 0 and the limits raised.
  python3 - "$work/wsbig" <<'PY'
import os, sys
root = sys.argv[1]
for f in range(200):
    with open(os.path.join(root, f"f{f:03}.rs"), "w") as out:
        for i in range(300):
            out.write(f"    let common_{i} = compute(common_value, {f}, {i}); // common line\n")
PY
  touch "$work/wsbig/done"
fi
mkdir -p "$work/ws9"; small "$work/ws9"
[[ -f $work/ws9/big.bin ]] || head -c $((9 * 1024 * 1024)) /dev/urandom >"$work/ws9/big.bin"
echo "write_timeout_secs: 10" >"$work/nonreading.yaml"
cat >"$work/big-answer.yaml" <<'YAML'
search_default_max_matches: 1000000
search_response_budget_bytes: 67108864
YAML

# --- daemon --------------------------------------------------------------------------------------
socket=$work/mem.sock
# shellcheck source=lib/daemon.sh
source "$repo/scripts/lib/daemon.sh"

rows=()
run() { # LABEL ROOT STORM N PARAMS [CONFIG [STORM FLAGS...]]
  [[ $1 =~ ${STORMS:-.} ]] || return 0
  daemon_start "$2" "${6:-}"
  sleep 0.3
  local idle out
  idle=$(awk '{printf "%d", $2 * 4096 / 1048576}' "/proc/$pid/statm")
  out=$("$storm" --socket "$socket" --pid "$pid" --storm "$3" --n "$4" --params "$5" --settle-ms "$settle" "${@:7}")
  echo "$1: $out"
  rows+=("$(python3 - "$1" "$idle" "$out" <<'PY'
import json, sys
label, idle, d = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
below = "never" if d["below_ms"] is None else f'{d["below_ms"] / 1000:.1f} s'
print(f'| {label} | {idle} | {d["peak_rss_mib"]:.0f} | {d["after_rss_mib"]:.0f} | {below} | '
      f'{d["answers"]}/{d["n"]} ({d["skipped_files"]} skipped, {d["errors"]} errors) | {d["seconds"]:.2f} s | '
      f'{d["reads"]} | {d["read_p50_ms"]:.2f} | {d["read_p99_ms"]:.2f} |')
PY
)")
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
run "64 pipelined searches, 50 MiB one-line file" "$work/ws50" pipeline 64 '{"pattern":"needle"}'
run "200 connections, 50 MiB one-line file" "$work/ws50" connections 200 '{"pattern":"needle"}'
run "8 searches, 200 MiB one-line file" "$work/ws200" connections 8 '{"pattern":"needle"}'
run "one 6 MB answer (60,000 lines)" "$work/wsbig" connections 1 \
  '{"pattern":"common_value","context":0,"max_results":1000000}' "$work/big-answer.yaml"
run "4 x 64 pipelined 9 MiB base64 reads, never read" "$work/ws9" nonreading 4 \
  '{"file":"big.bin","encoding":"base64","max_bytes":10485760}' "$work/nonreading.yaml" \
  --method read --hold-ms 15000
daemon_stop

echo
echo "## memory under storms ($profile build, $(nproc) cores; bar: peak <= 600 MiB (never-read: <= 512 MiB), after < 64 MiB within 10 s, read p99 <= 50 ms)"
echo
echo "| storm | idle MiB | peak MiB | after 10 s MiB | under 64 MiB after | answers | storm time | reads | read p50 ms | read p99 ms |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
