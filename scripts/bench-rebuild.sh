#!/usr/bin/env bash
# Debug rebuild time after touching one file, two checkouts side by side (docs/benchmarks.md,
# "The crates, side by side"): `scripts/bench-rebuild.sh OLD_CHECKOUT [ROUNDS]`, run from this
# checkout. Each round touches the method table's edit entries, then one file of the edit engine, in
# the old checkout and then in this one, and times `cargo build --workspace` (both built first, so
# only the touched file's crate and those above it rebuild). Prints one line per measurement.
set -euo pipefail
new=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?usage: bench-rebuild.sh OLD_CHECKOUT [ROUNDS]}
rounds=${2:-3}

# The edit engine's write.rs in either layout (the edit crate's, or the one crate's before the split).
engine_file() {
    if [[ -f $1/crates/edit/src/write.rs ]]; then echo crates/edit/src/write.rs; else echo src/edit/write.rs; fi
}

# Seconds a workspace build takes after touching FILE in checkout DIR.
rebuild() {
    local dir=$1 file=$2 start
    touch "$dir/$file"
    start=$(date +%s.%N)
    (cd "$dir" && cargo build --workspace --quiet)
    echo "$(date +%s.%N) - $start" | bc
}

(cd "$old" && cargo build --workspace --quiet)
(cd "$new" && cargo build --workspace --quiet)
for _ in $(seq "$rounds"); do
    echo "method-table old $(rebuild "$old" src/methods/edit.rs) new $(rebuild "$new" src/methods/edit.rs)"
    echo "edit-engine old $(rebuild "$old" "$(engine_file "$old")") new $(rebuild "$new" "$(engine_file "$new")")"
done
