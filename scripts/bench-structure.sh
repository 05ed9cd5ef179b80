#!/usr/bin/env bash
# Benchmarks coderd's structure methods (outline, map) on real repositories, side by side with
# aider's RepoMap and Universal Ctags in the same run, and cross-checks the outline against
# Python's ast, Go's go/ast and Rust's syn on those repositories.
#
#   scripts/bench-structure.sh          (about 10 minutes on 2 cores; honors CARGO_TARGET_DIR)
#
# Corpora are cloned (git clone --depth 1) into BENCH_CACHE (default ~/.cache/coderd-bench), never
# into the repository. Without network, BENCH_MIRRORS names a folder of local mirrors laid out as
# <owner>+<name>/repo (bare or not). aider-chat is installed from PyPI into a venv there; token
# counting is stubbed as chars/4 (tiktoken would need a download), and both tools get the same
# budget (8000 characters = 2000 such tokens). Ctags is `ctags -R --output-format=json` (apt
# universal-ctags). RUNS (default 3) sets the runs per measurement; medians are reported.
# SKIP_CROSSCHECK=1 leaves out the cross-checks (they build the test suite); BENCH_NO_BUILD=1 times
# the release binary already built.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
cache=${BENCH_CACHE:-$HOME/.cache/coderd-bench}
runs=${RUNS:-3}
mkdir -p "$cache"

command -v ctags >/dev/null || { echo "## installing universal-ctags"; sudo apt-get install -y universal-ctags >/dev/null 2>&1 || apt-get install -y universal-ctags >/dev/null; }

fetch() { # owner/name folder
  local dest=$cache/$2
  [[ -d $dest ]] && return
  echo "## fetching $1"
  if ! git clone -q --depth 1 "https://github.com/$1" "$dest" 2>/dev/null; then
    local mirror=${BENCH_MIRRORS:-/nonexistent}/${1/\//+}/repo
    [[ -d $mirror ]] || { echo "cannot clone $1 and no mirror at $mirror" >&2; exit 1; }
    git clone -q "$mirror" "$dest" 2>/dev/null || true # a mirror may lack a few large blobs
  fi
}
fetch psf/requests requests
fetch prometheus/prometheus prometheus
fetch rust-lang/rust-analyzer rust-analyzer

aider_python=
if [[ ! -x $cache/aider-venv/bin/python || ! -f $cache/aider-venv/.installed ]]; then
  echo "## installing aider-chat into $cache/aider-venv"
  if python3 -m venv "$cache/aider-venv" && "$cache/aider-venv/bin/pip" install -q aider-chat; then
    touch "$cache/aider-venv/.installed"
  else
    echo "note: aider-chat could not be installed; its columns are left empty"
  fi
fi
[[ -f $cache/aider-venv/.installed ]] && aider_python=$cache/aider-venv/bin/python

echo "## building (release)"
# BENCH_CLEAN_BUILD=1 times a clean build (every dependency and grammar); otherwise only the coderd
# crate is rebuilt.
if [[ ${BENCH_NO_BUILD:-0} == 1 ]]; then
  :
elif [[ ${BENCH_CLEAN_BUILD:-0} == 1 ]]; then
  build_kind=clean
  rm -rf "$CARGO_TARGET_DIR/release"
else
  build_kind="coderd crate only"
  rm -rf "$CARGO_TARGET_DIR/release/.fingerprint/coderd-"*
fi
build_start=$(date +%s.%N)
if [[ ${BENCH_NO_BUILD:-0} == 1 ]]; then
  build_kind="not rebuilt (BENCH_NO_BUILD=1)" # the release binary already in the target folder
else
  (cd "$repo" && cargo build --release --quiet --bins)
fi
build_s=$(echo "$(date +%s.%N) - $build_start" | bc)
bin=$CARGO_TARGET_DIR/release/coderd
strip -o "$cache/coderd.stripped" "$bin"

results=$cache/results
mkdir -p "$results"
for corpus in requests:py prometheus:go rust-analyzer:rs; do
  name=${corpus%%:*} ext=${corpus##*:}
  echo "## $name"
  args=(--runs "$runs")
  [[ -n $aider_python ]] && args+=(--aider-python "$aider_python")
  python3 "$repo/scripts/bench-structure.py" "$bin" "$cache/$name" "$ext" "${args[@]}" >"$results/$name.json"
done

echo "## cross-checks on the fetched repositories"
[[ ${SKIP_CROSSCHECK:-0} == 1 ]] || (cd "$repo" && CROSSCHECK_PYTHON=$cache/requests CROSSCHECK_GO=$cache/prometheus CROSSCHECK_RUST=$cache/rust-analyzer \
  cargo test --quiet --test it crosscheck:: -- --nocapture 2>&1 | grep -E 'precision|test result' | tee "$results/crosscheck.txt")

python3 - "$results" "$build_s" "$bin" "$cache/coderd.stripped" "$build_kind" <<'PY'
import json, os, sys
results, build_s, binary, stripped, build_kind = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
rows = [json.load(open(os.path.join(results, f"{n}.json"))) for n in ("requests", "prometheus", "rust-analyzer")]
print()
print("| corpus | files / lines | outline ms per 1k lines | p99 file | cached (median / p99) | cold map | aider cold | ratio | cold map CPU / aider CPU | warm map | aider same process | after 1-file edit: comment / new function (the file's own outline) | ctags | RSS after map |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    o, m, c, a = r["outline"], r["map"], r["ctags"], r.get("aider", {})
    aider_cold = f"{a['cold_s']:.2f} s" if "cold_s" in a else "n/a"
    aider_same = f"{a['same_process_s']:.2f} s" if "same_process_s" in a else "n/a"
    ratio = f"{a['cold_s'] / m['cold_s']:.1f}×" if "cold_s" in a else "n/a"
    aider_cpu = f"{a['cold_cpu_s']:.2f} s ({a['cold_cpu_s'] / m['cold_cpu_s']:.1f}×)" if "cold_cpu_s" in a else "n/a"
    print(f"| {r['corpus']} | {o['files']} / {o['lines'] // 1000}k | {o['ms_per_1k_lines']:.2f} | {o['p99_file_ms']:.1f} ms "
          f"| {o['cached_median_ms']:.2f} / {o['cached_p99_ms']:.2f} ms | {m['cold_s']:.2f} s | {aider_cold} | {ratio} "
          f"| {m['cold_cpu_s']:.2f} s / {aider_cpu} "
          f"| {m['warm_ms']:.0f} ms | {aider_same} | {m['after_edit_ms']:.0f} / {m['after_new_function_ms']:.0f} ms ({m['after_edit_parsed']} parsed; {m['edited_file_outline_ms']:.1f} ms) "
          f"| {c['s']:.2f} s | {m['rss_mb']:.0f} MB |")
print()
print(f"release build ({build_kind}) {build_s:.0f} s; binary {os.path.getsize(binary) / 1e6:.1f} MB "
      f"({os.path.getsize(stripped) / 1e6:.1f} MB stripped); map output deterministic across runs: "
      + ", ".join(f"{r['corpus']} {r['map']['deterministic']}" for r in rows))
PY
