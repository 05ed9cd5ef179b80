#!/usr/bin/env bash
# Big answers: coderd `search` returning every match vs ripgrep, for a rare and a common pattern
# (>= 4,000 matching lines), with coderd's limits raised so both tools report every match.
#
#   scripts/bench-answers.sh            (honors CARGO_TARGET_DIR; a few minutes on 2 cores)
#
# Knobs: BENCH_DIR (scratch, default $TMPDIR/coderd-bench-answers), REAL_CORPUS (a source tree,
# e.g. a prometheus checkout; default the cargo registry sources), RUNS (10).
#
# Rows: warm, one persistent connection (examples/rpc_bench.rs) vs `rg --json -C 2`; and the `coder`
# CLI with text output vs plain `rg -n -C 2` (same lines printed). Both sides see the same files
# (rg flags set to coderd's default selection) and the match counts are checked equal first.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/coderd-bench-answers}
runs=${RUNS:-10}
results=$work/results
mkdir -p "$results"

if ! command -v rg >/dev/null || ! command -v hyperfine >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq ripgrep hyperfine) >/dev/null 2>&1 ||
    { echo "missing rg/hyperfine (apt-get install -y ripgrep hyperfine)" >&2; exit 1; }
fi

echo "## building (release, CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
(cd "$repo" && cargo build --release --quiet --bins --example rpc_bench)
bin=$CARGO_TARGET_DIR/release
coder=$bin/coder

rg_select=(--no-config --hidden --no-require-git --no-ignore-global
  -g '!.git' -g '!node_modules' -g '!target' -g '!dist' -g '!.venv' -g '!__pycache__'
  -g '!**/.env' -g '!**/.env.*' -g '!**/*.pem' -g '!**/*.key' -g '!**/secrets/**' -g '!**/id_rsa*')

gen=$work/corpus-4k
if [[ ! -f $work/corpus-4k.done ]]; then
  rm -rf "$gen"
  python3 "$repo/scripts/gen-corpus.py" "$gen" 4000
  touch "$work/corpus-4k.done"
fi
real=${REAL_CORPUS:-}
if [[ -z $real ]]; then
  real=$(ls -d "$HOME"/.cargo/registry/src/*/ 2>/dev/null | while read -r d; do
    echo "$(ls "$d" | wc -l) $d"; done | sort -rn | head -1 | cut -d' ' -f2- || true)
fi
real=${real%/}

cat >"$work/coderd.yaml" <<'YAML'
search_default_max_matches: 10000000
search_response_budget_bytes: 1073741824
search_default_max_line_bytes: 1048576
YAML

coderd="$bin/coderd"
socket=$work/answers.sock
# shellcheck source=lib/daemon.sh
source "$repo/scripts/lib/daemon.sh"
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{printf "%d", ($14 + $15) * 1000 / hz}' "/proc/$1/stat"; }
cpu_rows=()

count() { { rg -c -F "${rg_select[@]}" -e "$1" "$2" || true; } | awk -F: '{s += $NF} END {print s + 0}'; }
pick() { # DIR MIN MAX CANDIDATES...: the first literal with MIN..MAX matching lines
  local dir=$1 min=$2 max=$3 p n; shift 3
  for p in "$@"; do n=$(count "$p" "$dir"); if ((n >= min && n <= max)); then echo "$p"; return; fi; done
  echo "no pattern with $min..$max matches in $dir" >&2; exit 1
}

rows=()
bench() { # LABEL DIR PATTERN
  local label=$1 dir=$2 pattern=$3 tag params rg_json rg_text coder_text
  tag=$(echo "$label" | tr -c 'a-zA-Z0-9' _)
  params=$(python3 -c 'import json,sys; print(json.dumps({"pattern": sys.argv[1], "dir": sys.argv[2], "max_results": 10000000}))' "$pattern" "$dir")
  rg_json="$(printf '%q ' rg --json -C 2 -F "${rg_select[@]}" -e "$pattern" "$dir")"
  rg_text="$(printf '%q ' rg -n -C 2 -F "${rg_select[@]}" -e "$pattern" "$dir")"
  coder_text="$(printf '%q ' "$coder" --socket "$socket" --no-start search --pattern "$pattern" --dir "$dir" --max-results 10000000)"
  # Parity: the same matching lines, and the same printed lines for the text outputs.
  local rg_n cd_n rg_lines cd_lines
  rg_n=$(eval "$rg_json" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["stats"]["matched_lines"])')
  cd_n=$("$coder" --socket "$socket" --no-start --json search --pattern "$pattern" --dir "$dir" --max-results 10000000 |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["match_count"], d["truncated"])')
  rg_lines=$(eval "$rg_text" | wc -l); cd_lines=$(eval "$coder_text" | wc -l)
  echo "$label: '$pattern': rg $rg_n matching lines, coderd $cd_n; printed lines rg $rg_lines, coder $cd_lines"
  # Warm, one persistent connection vs rg --json.
  hyperfine -N -i --style basic --runs "$runs" --warmup 3 --export-json "$results/$tag.json.json" \
    -n rg "$rg_json" >"$results/$tag.json.txt" 2>&1
  local rg_ms persist
  rg_ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"]*1e3)' "$results/$tag.json.json")
  # CPU time too (user + system, per search): on a shared machine wall-clock medians carry the
  # other processes' load, CPU time much less. The daemon's is read from /proc around its runs.
  local cpu0 cpu1 rg_cpu
  cpu0=$(cpu_ms "$pid")
  persist=$("$bin/examples/rpc_bench" --socket "$socket" --method search --params "$params" -n "$runs" --warmup 3 |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])')
  cpu1=$(cpu_ms "$pid")
  rg_cpu=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print((r["user"]+r["system"])*1e3)' "$results/$tag.json.json")
  cpu_rows+=("$(python3 -c 'import sys
l, a, b = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) / float(sys.argv[4])
print(f"| {l} | {a:.1f} | {b:.1f} | **{b/a:.2f}** |")' "$label" "$rg_cpu" "$((cpu1 - cpu0))" "$((runs + 3))")")
  # The CLI with text output vs plain rg, side by side.
  hyperfine -N -i --style basic --runs "$runs" --warmup 3 --export-json "$results/$tag.text.json" \
    -n rg "$rg_text" -n coder "$coder_text" >"$results/$tag.text.txt" 2>&1
  local rg_t cd_t
  read -r rg_t cd_t < <(python3 -c 'import json,sys; print(" ".join(str(r["median"]*1e3) for r in json.load(open(sys.argv[1]))["results"]))' "$results/$tag.text.json")
  rows+=("$(python3 -c 'import sys
l, n, a, b, c, d = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
print(f"| {l} | {n} | {a:.1f} | {b:.1f} | **{b/a:.2f}** | {c:.1f} | {d:.1f} | **{d/c:.2f}** |")' "$label" "$rg_n" "$rg_ms" "$persist" "$rg_t" "$cd_t")")
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
daemon_start "$gen" "$work/coderd.yaml"
bench "generated 4k, rare" "$gen" zqxj_needle_4471
bench "generated 4k, common" "$gen" "$(pick "$gen" 4000 40000 value result count buffer self)"
rss_gen=$(daemon_rss_mib)
if [[ -n $real && -d $real ]]; then
  daemon_start "$real" "$work/coderd.yaml"
  name=$(basename "$real")
  bench "$name, rare" "$real" "$(pick "$real" 1 300 unreachable_unchecked debug_assert_ne from_utf8_unchecked PhantomPinned ErrOutOfOrderSample sync.Once)"
  bench "$name, common" "$real" "$(pick "$real" 4000 40000 'impl<' 'Some(' 'pub fn ' 'func (' 'err != nil' 'fn ' 'self')"
  rss_real=$(daemon_rss_mib)
fi
sleep 10
rss_after=$(daemon_rss_mib)
daemon_stop

echo
echo "## big answers: medians in ms, warm ($(nproc) cores); ratio = coderd / rg"
echo
echo "| corpus, pattern | matching lines | rg --json | coderd, one connection | ratio | rg -n -C 2 | coder (text) | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "## CPU time per search (user + system, ms): rg --json (hyperfine mean) vs the daemon (/proc, mean)"
echo
echo "| corpus, pattern | rg --json | coderd | ratio |"
echo "|---|---:|---:|---:|"
printf '%s\n' "${cpu_rows[@]}"
echo
echo "daemon RSS after the searches: generated ${rss_gen} MiB${rss_real:+, real $rss_real MiB}; 10 s later ${rss_after} MiB"
