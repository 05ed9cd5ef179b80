#!/usr/bin/env bash
# Regenerates the README's tour: runs each tour command against this repository through a fresh
# daemon and writes the commands with their real output between the README's
# `<!-- tour:begin -->` and `<!-- tour:end -->` markers.
#
#   scripts/readme-tour.sh           rewrite README.md's tour block
#   scripts/readme-tour.sh --check   only compare; fail with a diff when README.md's copy differs
#                                    (scripts/test.sh runs this, so CI fails on drift)
#
# The output must be the same in every clone and at every commit: the commands read the small
# fixture workspace under tests/fixtures (not files that change with each commit), the
# repository's absolute path is written as /path/to/coderd, and mtimes as `…`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$repo"
check=false
case "${1:-}" in
    "") ;;
    --check) check=true ;;
    *)
        echo "usage: scripts/readme-tour.sh [--check]" >&2
        exit 2
        ;;
esac

# The tour, in order. Each line runs in the repository's top folder, stderr merged into stdout.
tour=(
    'coder read tests/fixtures/workspaces/basic/src/main.rs --head 4 --numbered'
    'coder search hello --dir tests/fixtures/workspaces/basic/src --context 0'
    'coder tree --dir tests/fixtures/workspaces/basic --depth 2'
    'coder list-folder --dir tests/fixtures/workspaces/basic/src'
    'coder read --stat tests/fixtures/workspaces/basic/src/lib.rs'
    'coder read tests/fixtures/workspaces/basic/secrets/token.txt; echo "exit=$?"'
    'coder read /etc/passwd; echo "exit=$?"'
    'coder --json read --file tests/fixtures/workspaces/basic/src/main.rs --start 1 --end 2'
    "coder call read '{\"path\": \"tests/fixtures/workspaces/basic/src/lib.rs\", \"from_line\": 1, \"to_line\": 1}'"
)
placeholder=/path/to/coderd

tmp=$(mktemp -d)
daemon=
cleanup() {
    if [[ -n $daemon ]]; then
        kill "$daemon" 2>/dev/null || true
        wait "$daemon" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# This checkout's binaries, copied at once: a target folder shared with other checkouts
# (CARGO_TARGET_DIR) may get their coder/coderd at any moment after the build.
cargo build --locked --quiet --workspace --bins
target=$(cargo metadata --locked --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin=$tmp/bin
mkdir "$bin"
cp "$target/debug/coder" "$target/debug/coderd" "$bin/"

# A fresh daemon of our own: its socket, registry and log live in the temporary folder, so it
# neither reuses nor disturbs a daemon already serving this repository.
export XDG_RUNTIME_DIR=$tmp/run
export CODERD_SOCKET=$tmp/tour.sock
export PATH=$bin:$PATH
"$bin/coderd" --root "$repo" --socket "$CODERD_SOCKET" --log-file "$tmp/coderd.log" </dev/null &
daemon=$!
for _ in $(seq 200); do
    coder --no-start info >/dev/null 2>&1 && break
    sleep 0.05
done
coder --no-start info >/dev/null || {
    echo "readme-tour.sh: coderd did not start; its log:" >&2
    cat "$tmp/coderd.log" >&2
    exit 1
}

block=$tmp/tour.md
{
    echo '```console'
    first=true
    for cmd in "${tour[@]}"; do
        $first || echo
        first=false
        echo "\$ $cmd"
        out=$(bash -c "$cmd" 2>&1 || true)
        out=${out//"$repo"/$placeholder}
        out=$(sed -E 's/^mtime_ms: [0-9]+$/mtime_ms: …/' <<<"$out")
        printf '%s\n' "$out"
    done
    echo '```'
} >"$block"

begin='<!-- tour:begin -->'
end='<!-- tour:end -->'
if [[ $(grep -cxF "$begin" README.md) != 1 || $(grep -cxF "$end" README.md) != 1 ]]; then
    echo "readme-tour.sh: README.md needs one '$begin' line and one '$end' line" >&2
    exit 1
fi
# README.md with the block between the markers replaced by the fresh one.
awk -v begin="$begin" -v end="$end" -v block="$block" '
    $0 == begin { print; while ((getline line < block) > 0) print line; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
' README.md >"$tmp/README.md"

if $check; then
    if ! diff -u README.md "$tmp/README.md" >"$tmp/diff"; then
        echo "readme-tour.sh: the README's tour differs from what the commands print now:" >&2
        cat "$tmp/diff" >&2
        echo "readme-tour.sh: run scripts/readme-tour.sh to update README.md" >&2
        exit 1
    fi
    echo "readme-tour.sh: the README's tour is current"
else
    if cmp -s README.md "$tmp/README.md"; then
        echo "readme-tour.sh: README.md's tour was already current"
    else
        cat "$tmp/README.md" >README.md
        echo "readme-tour.sh: updated the tour in README.md"
    fi
fi
