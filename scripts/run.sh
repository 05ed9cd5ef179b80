#!/usr/bin/env bash
# Command 1 of the README: installs both binaries, `coderd` and `coder`, then runs the daemon for
# a workspace in the background and says how to reach it.
#
#   scripts/run.sh [DIR]     DIR: the workspace root (default: the current folder)
#
# The binaries are built in release mode by `cargo install --locked --path .` (the daemon) and
# `--path crates/coder` (the client), and land in
# $CODERD_INSTALL_ROOT/bin, by default $CARGO_HOME/bin (~/.cargo/bin), which rustup puts on PATH.
# Running it again rebuilds, reinstalls, and restarts a daemon for DIR that still runs the
# replaced binary.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-.}
if [[ ! -d $dir ]]; then
    echo "run.sh: $dir is not a folder" >&2
    exit 2
fi
dir=$(cd "$dir" && pwd -P)
install_root=${CODERD_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}
bin=$install_root/bin

echo "run.sh: building and installing coderd and coder into $bin" >&2
# Two packages of one workspace: the daemon (the root package) and the client (crates/coder).
cargo install --locked --path "$repo" --root "$install_root"
cargo install --locked --path "$repo/crates/coder" --root "$install_root"
coder=$bin/coder

# `coder --root DIR` reaches the daemon whose primary root is DIR (from the registry of live
# daemons, or DIR's default socket); `--no-start` only asks whether one is there.
field() { sed -n "s/^  \"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}\$/\1/p"; }
if info=$("$coder" --root "$dir" --no-start --json info 2>/dev/null); then
    pid=$(field pid <<<"$info")
    if [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == *" (deleted)" ]]; then
        echo "run.sh: restarting coderd (pid $pid): it runs the binary this install replaced" >&2
        "$coder" --root "$dir" --no-start shutdown >/dev/null
        for _ in $(seq 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
    fi
fi
# Starts the daemon in the background (detached, logging beside its socket) unless one answers.
info=$("$coder" --root "$dir" --verbose --json info)
pid=$(field pid <<<"$info")
socket=$(field socket <<<"$info")

cat <<EOF

coderd (pid $pid) serves $dir
  socket: $socket
  stop:   coder shutdown   (run inside $dir)
coderd and coder are installed in $bin
EOF
log=${socket%.sock}.log
if [[ -f $log ]]; then
    echo "Its log (when coder started it): $log"
fi
if [[ $(command -v coder 2>/dev/null) == "$coder" ]]; then
    echo "$bin is on your PATH. Try:  cd $dir && coder tree --depth 1"
elif command -v coder >/dev/null 2>&1; then
    echo "Another coder comes first on your PATH ($(command -v coder)); put $bin before it:"
    echo "  export PATH=\"$bin:\$PATH\""
else
    echo "$bin is not on your PATH; add it (e.g. in ~/.bashrc):"
    echo "  export PATH=\"$bin:\$PATH\""
fi
