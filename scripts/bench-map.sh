#!/usr/bin/env bash
# The map's retrieval benchmark — does `map`, given the first file a real commit changed as focus,
# show the commit's other changed files? — side by side with aider's RepoMap on the same inputs, and
# the map's cold costs (from nothing, after a restart, warm) beside `ctags -R`.
#
#   scripts/bench-map.sh              held-out repositories (the numbers in docs/benchmarks.md)
#   SET=tuning scripts/bench-map.sh   the repositories the ranking was tuned on (30 commits each)
#   SET=all scripts/bench-map.sh      held-out, tuning, and hono (TypeScript) and pydantic (Python),
#                                     never tuned on: the table of issue 35 in docs/benchmarks.md
#   PART=cold REPOS="prometheus/prometheus rust-lang/rust-analyzer" scripts/bench-map.sh
#                                     only the cold costs, on the structure benchmark's corpora
#
# About 4 minutes on 2 cores (aider installed once). Repositories are cloned with their history
# into BENCH_CACHE (default ~/.cache/coderd-bench/history); without network, BENCH_MIRRORS names a
# folder of local mirrors laid out as <owner>+<name>/repo (a mirror's folders of missing blobs are
# left out of the checkout: scripts/sparse-without-missing.py). aider-chat is installed from PyPI into a venv there (tokens
# counted as chars/4; without it, or with AIDER=0 (or off), its columns are left out). aider's maps do not
# depend on coderd and are kept in BENCH_CACHE/results/aider-maps.jsonl: a re-run after a change to
# coderd asks aider nothing it answered before; AIDER_MAPS="focus@8000" asks it only for the maps
# its first-10 column needs (a few seconds each on a busy machine). COMMITS (default 40) commits per repository, where
# the repository names none (owner/name:N); RUNS (default 5) runs of the cold timings; BENCH_NO_BUILD=1 uses the release binary
# already built (CODERD_BIN=path: that binary instead). PART (retrieval, cold; default both) runs one part; REPOS (owner/name[:N] ...) replaces
# the SET's repositories. Source files are those of each repository's languages (every language
# with a quarter of its source files; SOURCE_EXTS=".ts .tsx" overrides). See
# scripts/bench-map-retrieval.py for what is counted.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
cache=${BENCH_CACHE:-$HOME/.cache/coderd-bench}
mkdir -p "$cache/history" "$cache/results"
# Two runs on one BENCH_CACHE check out commits in the same clones under each other: refused.
exec 9>"$cache/.lock"
flock -n 9 || { echo "another bench-map.sh run uses $cache: wait for it, or give this one its own BENCH_CACHE" >&2; exit 1; }
command -v ctags >/dev/null || { sudo apt-get install -y universal-ctags >/dev/null 2>&1 || apt-get install -y universal-ctags >/dev/null; }

heldout=(prometheus/alertmanager tokio-rs/axum encode/httpx)
tuning=(gin-gonic/gin:30 BurntSushi/ripgrep:30 scrapy/scrapy:30)
untuned=(honojs/hono pydantic/pydantic)
case ${SET:-heldout} in
  tuning) repos=("${tuning[@]}") ;;
  all) repos=("${heldout[@]}" "${tuning[@]}" "${untuned[@]}") ;;
  heldout) repos=("${heldout[@]}") ;;
  *) echo "SET is heldout, tuning or all, not $SET" >&2; exit 2 ;;
esac
[[ -n ${REPOS:-} ]] && read -ra repos <<<"$REPOS"
part=${PART:-all}
case $part in all | retrieval | cold) ;; *) echo "PART is retrieval, cold or unset (both), not $part" >&2; exit 2 ;; esac

dirs=() counts=()
for entry in "${repos[@]}"; do
  r=${entry%%:*}
  [[ $entry == *:* ]] && counts+=("${entry##*:}") || counts+=("${COMMITS:-40}")
  dest=$cache/history/${r#*/}
  if [[ ! -d $dest ]]; then
    echo "## fetching $r (with history)"
    if ! git clone -q "https://github.com/$r" "$dest" 2>/dev/null; then
      mirror=${BENCH_MIRRORS:-/nonexistent}/${r/\//+}/repo
      [[ -d $mirror ]] || { echo "cannot clone $r and no mirror at $mirror" >&2; exit 1; }
      # A mirror may lack a few large blobs (test data): their folders are left out of a sparse
      # checkout (with a sparse index, git never reads them), so every commit checks out.
      git clone -q --no-checkout "$mirror" "$dest"
      cone=$("$repo/scripts/sparse-without-missing.py" "$dest")
      if [[ -n $cone ]]; then
        git -C "$dest" config index.sparse true
        # shellcheck disable=SC2086 # one folder a word
        git -C "$dest" sparse-checkout set --cone $cone
      fi
      git -C "$dest" checkout -q -f
    fi
  fi
  dirs+=("$dest")
done

aider=()
case ${AIDER:-on} in 0 | off) aider_off=1 ;; *) aider_off=0 ;; esac
if ((aider_off)); then
  echo "## aider left out (AIDER=${AIDER})"
elif [[ $part != cold && ! -f $cache/aider-venv/.installed ]]; then
  echo "## installing aider-chat into $cache/aider-venv"
  if python3 -m venv "$cache/aider-venv" && "$cache/aider-venv/bin/pip" install -q aider-chat; then
    touch "$cache/aider-venv/.installed"
  else
    echo "note: aider-chat could not be installed; its columns are left out"
  fi
fi
[[ $aider_off == 0 && -f $cache/aider-venv/.installed ]] &&
  aider=(--aider-python "$cache/aider-venv/bin/python" --aider-cache "$cache/results/aider-maps.jsonl"
    ${AIDER_MAPS:+--aider-maps "$AIDER_MAPS"})

if [[ ${BENCH_NO_BUILD:-0} != 1 ]]; then
  echo "## building (release)"
  (cd "$repo" && cargo build --release --quiet --bin coderd)
fi
bin=${CODERD_BIN:-$CARGO_TARGET_DIR/release/coderd}

out=$cache/results
retrieval=$out/map-retrieval.json restart=$out/map-restart.json
if [[ $part != cold ]]; then
  # One run per repository (each its own number of commits), then one list of rows.
  rows=()
  for i in "${!dirs[@]}"; do
    echo "## retrieval: ${dirs[$i]##*/} (${counts[$i]} commits)"
    rows+=("$out/map-retrieval-${dirs[$i]##*/}.json")
    python3 "$repo/scripts/bench-map-retrieval.py" --coderd "$bin" "${aider[@]}" --commits "${counts[$i]}" "${dirs[$i]}" >"${rows[$i]}"
  done
  python3 -c 'import json, sys; print(json.dumps([r for f in sys.argv[1:] for r in json.load(open(f))]))' "${rows[@]}" >"$retrieval"
else
  echo "[]" >"$retrieval"
fi
if [[ $part != retrieval ]]; then
  echo "## cold costs"
  python3 "$repo/scripts/bench-map-restart.py" --coderd "$bin" --runs "${RUNS:-5}" "${dirs[@]}" >"$restart"
else
  echo "[]" >"$restart"
fi

python3 - "$retrieval" "$restart" <<'PY'
import json, sys
retrieval, restart = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
keys = ["focus@1000", "focus@4000", "focus@8000", "mentions@1000", "mentions@4000", "mentions@8000", "callers@8000", "first10"]
if retrieval:
    print("\n| repository (commits) | tool | focus 1k | focus 4k | focus 8k | + mentions 1k | + mentions 4k | + mentions 8k | callers 8k | first 10 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    totals = {}
    for r in retrieval:
        for tool, t in r["recall"].items():
            # The nearest-folder baseline has no callers column.
            cells = " | ".join(f"{t[k]['pct']}%" if k in t else "—" for k in keys)
            print(f"| {r['repo']} ({r['commits']}) | {tool} | {cells} |")
            for k in (k for k in keys if k in t):
                s = totals.setdefault(tool, {}).setdefault(k, [0, 0])
                s[0] += t[k]["shown"]; s[1] += t[k]["targets"]
    for tool, t in totals.items():
        cells = " | ".join(f"**{100 * t[k][0] / max(t[k][1], 1):.1f}%**" if k in t else "—" for k in keys)
        print(f"| all | {tool} | {cells} |")
    print("\ndeterministic (a fresh daemon gives the same maps): " + ", ".join(f"{r['repo']} {r['deterministic']}" for r in retrieval))
if restart:
    print("\n| repository | cold map from nothing (whole process) | after restart (whole process; files re-tagged) | warm map (new question) "
          "| ctags -R | cold / ctags | after restart / ctags | CPU: cold / after restart / ctags | RSS from nothing / after restart |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in restart:
        ctags = r["ctags"]
        print(f"| {r['repo']} | {r['from_nothing']:.3f} s ({r['from_nothing_process']:.3f} s) "
              f"| {r['after_restart']:.3f} s ({r['after_restart_process']:.3f} s; {r['parsed_after_restart']}) "
              f"| {r['warm']:.3f} s ({r['warm_new_question']:.3f} s) | {ctags:.3f} s "
              f"| {r['from_nothing'] / ctags:.2f}× ({r['from_nothing_process'] / ctags:.2f}×) "
              f"| {r['after_restart'] / ctags:.2f}× ({r['after_restart_process'] / ctags:.2f}×) "
              f"| {r['from_nothing_cpu']:.2f} / {r['after_restart_cpu']:.2f} / {r['ctags_cpu']:.2f} s "
              f"| {r['from_nothing_rss_mb']:.0f} / {r['after_restart_rss_mb']:.0f} MB |")
PY
