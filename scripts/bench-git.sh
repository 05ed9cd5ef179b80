#!/usr/bin/env bash
# git and checkpoints: coderd against plain git, side by side in the same run, medians.
#
#   scripts/bench-git.sh            (honors CARGO_TARGET_DIR; ~10 minutes on 2 cores, most of it
#                                    writing objects for the 50k-file tree once)
#
# Knobs: BENCH_DIR (scratch, default $TMPDIR/coderd-bench-git), RUNS (10; status runs 3x as many),
# SNAPSHOT_RUNS (5).
#
# Rows:
#   1. `git-status` over one persistent connection vs `git status --porcelain` run as a process,
#      warm, interleaved run by run, on a 10k-file repository with 10 modified and 10 untracked files.
#   2. The first snapshot of that 10k-file tree (the shadow store removed before each run, so its
#      creation is timed too) vs `git add -A && git commit` into a fresh repository (made untimed)
#      with the same work tree, interleaved run by run, caches dropped by neither.
#   3. An incremental snapshot after changing 10 files of a 50k-file tree (bar: <= 500 ms).
#   4. A restore of 100 changed files, including the snapshot it takes first (bar: <= 2 s).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$repo/target}
work=${BENCH_DIR:-${TMPDIR:-/tmp}/coderd-bench-git}
runs=${RUNS:-10}
snapshot_runs=${SNAPSHOT_RUNS:-5}
results=$work/results
mkdir -p "$results"

echo "## building (release, CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
(cd "$repo" && cargo build --release --quiet --bins --example rpc_bench)
bin=$CARGO_TARGET_DIR/release
rpc=$bin/examples/rpc_bench

# A tree of N small source-like files in 100 folders.
make_tree() { # DIR N
  python3 - "$1" "$2" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, f"pkg{i % 100:03d}", f"mod{i % 7}")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"file{i}.rs"), "w") as f:
        f.write(f"// file {i}\npub fn f{i}(x: u64) -> u64 {{\n    x * {i % 97} + {i}\n}}\n")
PY
}

# Appends a line to N random .rs files of DIR (a different N each call); untimed.
cat >"$work/touch.py" <<'PY'
import os, random, sys, time
root, n = sys.argv[1], int(sys.argv[2])
files = []
for d, dirs, names in os.walk(root):
    dirs[:] = [x for x in dirs if x != ".git"]
    files += [os.path.join(d, x) for x in names if x.endswith(".rs")]
files.sort()
random.seed(time.time_ns())
for path in random.sample(files, n):
    with open(path, "a") as f:
        f.write(f"// changed {time.time_ns()}\n")
PY
touch_files() { python3 "$work/touch.py" "$1" "$2"; }

tree10k=$work/tree10k
if [[ ! -f $work/tree10k.done ]]; then
  rm -rf "$tree10k"
  make_tree "$tree10k" 10000
  (cd "$tree10k" && git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm tree)
  touch "$work/tree10k.done"
fi
# Pending changes for status to report: 10 modified, 10 untracked.
(cd "$tree10k" && git checkout -q -- . && git clean -qfd)
touch_files "$tree10k" 10
for i in $(seq 10); do echo "new $i" >"$tree10k/untracked$i.txt"; done

tree50k=$work/tree50k
if [[ ! -f $work/tree50k.done ]]; then
  rm -rf "$tree50k"
  make_tree "$tree50k" 50000
  touch "$work/tree50k.done"
fi

cat >"$work/coderd.yaml" <<'YAML'
checkpoints: false
checkpoint_max_files: 60000
YAML
export XDG_DATA_HOME=$work/data
coderd="$bin/coderd"
socket=$work/git.sock
# shellcheck source=lib/daemon.sh
source "$repo/scripts/lib/daemon.sh"
median_of() { python3 -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])'; }
rpc_median() { # METHOD PARAMS RUNS WARMUP [PREPARE]
  if [[ -n ${5:-} ]]; then
    "$rpc" --socket "$socket" --method "$1" --params "$2" -n "$3" --warmup "$4" --prepare "$5" | median_of
  else
    "$rpc" --socket "$socket" --method "$1" --params "$2" -n "$3" --warmup "$4" | median_of
  fi
}
store_of() { "$bin/coder" --socket "$socket" --no-start call checkpoint '{}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["store"])'; }

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
daemon_start "$tree10k" "$work/coderd.yaml"

echo "## 1. git-status vs git status --porcelain (10k files), interleaved"
# The two alternate run by run, so a load change on a shared machine hits both alike.
read -r git_status coderd_status < <(PYTHONPATH="$repo/scripts" python3 - "$socket" "$tree10k" "$((runs * 3))" <<'PY'
import statistics, subprocess, sys, time
from coderd_bench import Connection
sock_path, tree, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
conn = Connection(sock_path)
def coderd():
    answer = conn.call("git-status", {"dir": tree})
    assert "result" in answer, answer
def git():
    subprocess.run(["git", "-C", tree, "status", "--porcelain"], check=True, stdout=subprocess.DEVNULL)
times = {git: [], coderd: []}
for i in range(n + 3):
    for f in (git, coderd) if i % 2 else (coderd, git):
        start = time.perf_counter()
        f()
        if i >= 3:
            times[f].append((time.perf_counter() - start) * 1e3)
print(statistics.median(times[git]), statistics.median(times[coderd]))
PY
)

echo "## 2. first snapshot vs git add -A && git commit (10k files), interleaved"
store=$(store_of)
read -r git_first coderd_first < <(PYTHONPATH="$repo/scripts" python3 - "$socket" "$tree10k" "$store" "$work/peer.git" "$snapshot_runs" <<'PY'
import os, shutil, statistics, subprocess, sys, time
from coderd_bench import Connection
sock_path, tree, store, peer, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
conn = Connection(sock_path)
def coderd():
    answer = conn.call("checkpoint", {"create": True})
    assert answer.get("result", {}).get("created"), answer
env = dict(os.environ, GIT_DIR=peer, GIT_WORK_TREE=tree)
def git():
    # gc.auto=0: the automatic gc a 10k-object commit starts runs detached, and would load the
    # machine during the next measurement (and race the removal of the peer's repository).
    subprocess.run("git add -A && git -c gc.auto=0 -c user.name=b -c user.email=b@b commit -qm x",
                   shell=True, check=True, cwd=tree, env=env)
def prepare():
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(peer, ignore_errors=True)
    subprocess.run(["git", "init", "-q"], check=True, env=dict(os.environ, GIT_DIR=peer))
    subprocess.run(["sync"], check=True)
times = {git: [], coderd: []}
for i in range(n):
    for f in (git, coderd) if i % 2 else (coderd, git):
        prepare()
        start = time.perf_counter()
        f()
        times[f].append((time.perf_counter() - start) * 1e3)
print(statistics.median(times[git]), statistics.median(times[coderd]))
PY
)

echo "## 4. restore of 100 changed files (10k files)"
"$bin/coder" --socket "$socket" --no-start call checkpoint '{"create":true}' >/dev/null
target=$(cat "$store/refs/heads/checkpoints")
coderd_restore=$(rpc_median checkpoint "{\"restore\":\"$target\"}" 5 1 \
  "python3 $work/touch.py $tree10k 100")

echo "## 3. incremental snapshot after 10 changes (50k files; the first snapshot is untimed)"
daemon_start "$tree50k" "$work/coderd.yaml"
"$bin/coder" --socket "$socket" --no-start call checkpoint '{"create":true}' >/dev/null
coderd_incremental=$(rpc_median checkpoint '{"create":true}' "$runs" 1 \
  "python3 $work/touch.py $tree50k 10")
daemon_stop

echo
echo "## git and checkpoints: medians in ms ($(nproc) cores)"
echo
python3 - "$git_status" "$coderd_status" "$git_first" "$coderd_first" "$coderd_incremental" "$coderd_restore" <<'PY'
import sys
gs, cs, gf, cf, inc, rest = map(float, sys.argv[1:])
print("| measurement | peer | coderd | ratio | bar |")
print("|---|---:|---:|---:|---|")
print(f"| git-status, 10k files, 10 modified + 10 untracked (one connection) | {gs:.1f} (`git status --porcelain`) | {cs:.1f} | **{cs/gs:.2f}** | <= 1.2x |")
print(f"| first snapshot, 10k files | {gf:.0f} (`git add -A && git commit`) | {cf:.0f} | **{cf/gf:.2f}** | <= 1.5x |")
print(f"| incremental snapshot after 10 changes, 50k files | | {inc:.0f} | | <= 500 ms |")
print(f"| restore of 100 changed files (snapshot first included), 10k files | | {rest:.0f} | | <= 2000 ms |")
PY
