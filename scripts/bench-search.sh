#!/usr/bin/env bash
# Benchmarks coderd `search` against ripgrep on the same files, warm and cold.
#
#   scripts/bench-search.sh            (honors CARGO_TARGET_DIR; about 2-3 minutes on 2 cores)
#
# Knobs: BENCH_DIR (scratch, default $TMPDIR/coderd-bench), REAL_CORPUS (a source tree; default
# the cargo registry sources), WARM_RUNS (10), COLD_RUNS (5), FRESH_RUNS (5).
#
# Both tools are made to look at the same files: coderd by default searches hidden files, honors
# .gitignore/.ignore without needing a git repo, skips its default-excluded folders and its
# non-accessible files, and prints 2 lines of context; the rg flags below ask for exactly that.
# Patterns are rare on purpose: coderd stops at max_results, rg never does, so a common pattern
# would compare a partial scan with a full one.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/coderd-bench}
warm_runs=${WARM_RUNS:-10}
cold_runs=${COLD_RUNS:-5}
fresh_runs=${FRESH_RUNS:-5}
results=$work/results
mkdir -p "$results"

for tool in rg hyperfine python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y ripgrep hyperfine)" >&2; exit 1; }
done

echo "## building (release, CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
(cd "$repo" && cargo build --release --quiet --bins --example rpc_bench)
bin=$CARGO_TARGET_DIR/release
coder=$bin/coder
rpc_bench=$bin/examples/rpc_bench

# rg's view of the tree made equal to coderd's defaults (see config.rs DEFAULT_EXCLUDES and
# DEFAULT_NON_ACCESSIBLE). --no-config and --no-ignore-global keep the user's rg setup out of it.
rg_select=(--no-config --hidden --no-require-git --no-ignore-global
  -g '!.git' -g '!node_modules' -g '!target' -g '!dist' -g '!.venv' -g '!__pycache__'
  -g '!**/.env' -g '!**/.env.*' -g '!**/*.pem' -g '!**/*.key' -g '!**/secrets/**' -g '!**/id_rsa*')
rg_search=(rg --json -C 2 "${rg_select[@]}")

drop_caches='sh -c "sync; echo 3 > /proc/sys/vm/drop_caches"'
if (sync && echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
  can_drop=1
else
  can_drop=0
  echo "note: cannot write /proc/sys/vm/drop_caches (needs root outside a locked-down container); cold runs skipped"
fi

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- corpora -----------------------------------------------------------------------------------
gen=$work/corpus-20k
if [[ ! -f $work/corpus-20k.done ]]; then
  echo "## generating $gen"
  rm -rf "$gen"
  python3 "$repo/scripts/gen-corpus.py" "$gen" 20000
  touch "$work/corpus-20k.done"
fi

real=${REAL_CORPUS:-}
if [[ -z $real ]]; then
  # The registry index folder holding the most crates; it exists after any cargo build.
  real=$(ls -d "$HOME"/.cargo/registry/src/*/ 2>/dev/null | while read -r d; do
    echo "$(ls "$d" | wc -l) $d"; done | sort -rn | head -1 | cut -d' ' -f2- || true)
fi
real=${real%/}
real_label="cargo registry"
[[ -z ${REAL_CORPUS:-} ]] || real_label=$(basename "$real")

# --- daemon ------------------------------------------------------------------------------------
daemon_pid=
socket=$work/bench.sock
stop_daemon() {
  if [[ -n $daemon_pid ]]; then
    "$coder" --socket "$socket" --no-start shutdown >/dev/null 2>&1 || kill "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=
  fi
}
trap stop_daemon EXIT

start_daemon() {
  stop_daemon
  "$bin/coderd" --root "$1" --socket "$socket" --log warn --log-file "$work/coderd.log" &
  daemon_pid=$!
  for _ in $(seq 500); do
    "$coder" --socket "$socket" --no-start info >/dev/null 2>&1 && return 0
    sleep 0.02
  done
  echo "coderd did not start; see $work/coderd.log" >&2
  exit 1
}

rss_kib() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$daemon_pid/status"; }

# --- measurement -------------------------------------------------------------------------------
table=()
row() { table+=("| $1 | $2 | $3 | $4 | $5 | $6 | $7 |"); }
ms() { python3 -c "print(f'{float(\"$1\"):.1f}')"; }
ratio() { python3 -c "print(f'{float(\"$1\")/float(\"$2\"):.2f}')"; }

# hyperfine over rg and the coder client side by side, in one invocation so both see the same
# machine state. -i: rg exits 1 when nothing matches, which is not a failure here.
hyperfine_pair() {
  local name=$1 runs=$2 rg_cmd=$3 coder_cmd=$4
  shift 4
  hyperfine -N -i --style basic --runs "$runs" "$@" --export-json "$results/$name.json" \
    -n rg "$rg_cmd" -n coder "$coder_cmd" >"$results/$name.txt" 2>&1 || {
    cat "$results/$name.txt" >&2
    exit 1
  }
}
medians_ms() { json "$results/$1.json" "' '.join(str(r['median']*1e3) for r in d['results'])"; }

bench_corpus() {
  local label=$1 dir=$2 pattern=$3 regex=$4 cold=$5
  local fixed=(-F) regex_flag='' regex_json=false
  if [[ $regex == 1 ]]; then fixed=(); regex_flag=' --regex'; regex_json=true; fi
  local tag=${label// /_}
  local rg_cmd coder_cmd params
  rg_cmd="$(printf '%q ' "${rg_search[@]}" "${fixed[@]}" -e "$pattern" "$dir")"
  coder_cmd="$(printf '%q ' "$coder" --socket "$socket" --no-start --json search$regex_flag \
    --pattern "$pattern" --dir "$dir" --max-results 1000)"
  params=$(python3 -c 'import json,sys; print(json.dumps({"pattern": sys.argv[1], "dir": sys.argv[2],
    "max_results": 1000, "regex": sys.argv[3] == "true"}))' "$pattern" "$dir" "$regex_json")

  # Parity first: a speed ratio between different amounts of work would mean nothing.
  local rg_matches rg_files cd_matches cd_files truncated
  eval "$rg_cmd" >"$results/$tag.rg.jsonl" || true
  rg_matches=$(tail -1 "$results/$tag.rg.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["stats"]["matched_lines"])')
  rg_files=$(rg --files "${rg_select[@]}" "$dir" | wc -l)
  eval "$coder_cmd" >"$results/$tag.coderd.json"
  cd_matches=$(json "$results/$tag.coderd.json" "d['match_count']")
  cd_files=$(json "$results/$tag.coderd.json" "d['files_searched']")
  truncated=$(json "$results/$tag.coderd.json" "d['truncated']")
  local parity="OK"
  if [[ $rg_matches != "$cd_matches" || $rg_files != "$cd_files" || $truncated != False ]]; then
    parity="MISMATCH"
  fi
  printf '%s: pattern '\''%s'\'': rg %s matched lines in %s files, coderd %s in %s files (truncated=%s) -> %s\n' \
    "$label" "$pattern" "$rg_matches" "$rg_files" "$cd_matches" "$cd_files" "$truncated" "$parity"
  local files="$rg_files" matches="$rg_matches"
  [[ $parity == OK ]] || { files="$rg_files / $cd_files"; matches="$rg_matches / $cd_matches ⚠"; }

  # Warm: everything in the page cache, the daemon running.
  local rg_ms coder_ms persist
  hyperfine_pair "$tag.warm" "$warm_runs" "$rg_cmd" "$coder_cmd" --warmup 3
  read -r rg_ms coder_ms < <(medians_ms "$tag.warm")
  persist=$("$rpc_bench" --socket "$socket" --method search --params "$params" -n "$warm_runs" --warmup 3)
  persist=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["median_ms"])' "$persist")
  row "$label" "$files" "$matches" "warm, \`coder\` process" "$(ms "$rg_ms")" "$(ms "$coder_ms")" "$(ratio "$coder_ms" "$rg_ms")"
  row "$label" "$files" "$matches" "warm, one connection" "$(ms "$rg_ms")" "$(ms "$persist")" "$(ratio "$persist" "$rg_ms")"

  # Cold: page cache dropped before every run. It evicts the rg and coder binaries too (they are
  # not running), but not the pages of the daemon, which is: that is the daemon's real advantage.
  if [[ $cold == 1 && $can_drop == 1 ]]; then
    local rg_cold coder_cold persist_cold
    hyperfine_pair "$tag.cold" "$cold_runs" "$rg_cmd" "$coder_cmd" --prepare "$drop_caches"
    read -r rg_cold coder_cold < <(medians_ms "$tag.cold")
    persist_cold=$("$rpc_bench" --socket "$socket" --method search --params "$params" \
      -n "$cold_runs" --warmup 0 --prepare "$drop_caches")
    persist_cold=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["median_ms"])' "$persist_cold")
    row "$label" "$files" "$matches" "cold, \`coder\` process" "$(ms "$rg_cold")" "$(ms "$coder_cold")" "$(ratio "$coder_cold" "$rg_cold")"
    row "$label" "$files" "$matches" "cold, one connection" "$(ms "$rg_cold")" "$(ms "$persist_cold")" "$(ratio "$persist_cold" "$rg_cold")"
  fi

  if [[ $cold == 1 ]]; then
    # A daemon's first answer, page cache warm: what starting the daemon adds, isolated from disk.
    local fresh first ready
    fresh=$("$rpc_bench" --fresh-daemon --root "$dir" --socket "$work/fresh.sock" --method search \
      --params "$params" -n "$fresh_runs" --warmup 1)
    first=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["median_ms"])' "$fresh")
    ready=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ready_median_ms"])' "$fresh")
    row "$label" "$files" "$matches" "first request after start (+$(ms "$ready") ms to listen)" "$(ms "$rg_ms")" "$(ms "$first")" "$(ratio "$first" "$rg_ms")"
  fi
}

choose_real_pattern() {
  # The first identifier rare enough to stay far below coderd's cap yet present at all.
  local p n
  for p in unreachable_unchecked debug_assert_ne from_utf8_unchecked get_unchecked_mut PhantomPinned; do
    n=$({ rg -c -F "${rg_select[@]}" "$p" "$1" || true; } | awk -F: '{s += $NF} END {print s + 0}')
    if ((n >= 1 && n <= 300)); then echo "$p"; return; fi
  done
  echo zqxj_absent_token # matches nothing, but still makes both tools read every file
}

start=$SECONDS
# Other work on the machine inflates every number (the ratios less so); say how busy it was.
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## generated corpus: $gen"
start_daemon "$gen"
bench_corpus "generated" "$gen" zqxj_needle_4471 0 1
bench_corpus "generated (regex)" "$gen" 'zqxj_needle_[0-9]{4}' 1 0
rss_gen="$(rss_kib VmRSS) KiB (peak $(rss_kib VmHWM) KiB)"

if [[ -n $real && -d $real ]]; then
  echo "## real corpus: $real"
  start_daemon "$real"
  bench_corpus "$real_label" "$real" "$(choose_real_pattern "$real")" 0 1
  bench_corpus "$real_label (regex)" "$real" 'fn [a-z_]+_unchecked\(' 1 0
  rss_real="$(rss_kib VmRSS) KiB (peak $(rss_kib VmHWM) KiB)"
else
  echo "note: no cargo registry sources found; set REAL_CORPUS=DIR to bench a real tree"
fi
stop_daemon

echo
echo "## search: coderd vs rg --json (medians in ms; ratio = coderd / rg; $(nproc) cores)"
echo
echo "| corpus | files | matches | mode | rg median | coderd median | ratio |"
echo "|---|---:|---:|---|---:|---:|---:|"
printf '%s\n' "${table[@]}"
echo
echo "daemon RSS after the searches: generated ${rss_gen}${rss_real:+, $real_label $rss_real}"
echo "raw hyperfine exports and outputs: $results ($((SECONDS - start)) s of measuring)"
