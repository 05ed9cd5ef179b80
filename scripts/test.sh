#!/usr/bin/env bash
# The project's one test command (README, .ci/run): formatting, lints, every test, then a check
# that the README's tour matches what its commands print (scripts/readme-tour.sh --check).
# The test suite needs the Rust toolchain and, for the MCP client test, Python 3 with venv (the
# `mcp` package is installed into target/ by scripts/install-mcp-client.sh, idempotently). The rustfmt and clippy components are added
# through rustup when they are missing (a minimal rustup profile leaves them out).
set -euo pipefail
cd "$(dirname "$0")/.."

# Installs the rustup components that the checks below need, quietly, and only those missing.
ensure_components() {
    local missing=()
    cargo fmt --version >/dev/null 2>&1 || missing+=(rustfmt)
    cargo clippy --version >/dev/null 2>&1 || missing+=(clippy)
    ((${#missing[@]} == 0)) && return 0
    if ! command -v rustup >/dev/null 2>&1; then
        echo "test.sh: missing ${missing[*]} and no rustup to add them; install them with your toolchain" >&2
        exit 1
    fi
    echo "test.sh: adding rustup components: ${missing[*]}" >&2
    rustup --quiet component add "${missing[@]}" >&2
}
ensure_components
# The MCP client test drives `coderd mcp` with the official Python MCP SDK (a pip package).
./scripts/install-mcp-client.sh >/dev/null
# The toolchains the `test` method's fixtures run (pytest is installed when missing).
./scripts/install-test-tools.sh
./scripts/install-structure-deps.sh
# Real language servers for tests/it/lsp.rs (pinned, idempotent; see the script).
./scripts/install-language-servers.sh

cargo fmt --all -- --check
# The build needs no network once `cargo fetch` has run: crates/syntax/build.rs finds the grammar crates' sources
# (which a build does not download) from Cargo.lock where `cargo fetch` unpacked them. This check
# build is the first, so it runs crates/syntax/build.rs; clippy and the tests then reuse its dependencies.
cargo fetch --locked
cargo check --workspace --offline --locked --all-targets
# The daemon without its default features (no `iii`, none of iii-sdk's crates) must still build.
cargo check --offline --locked --all-targets --no-default-features
cargo clippy --workspace --locked --all-targets -- -D warnings
# The daemon's tests run the `coder` binary of another package of the workspace (crates/coder),
# which `cargo test` does not build for them: build the whole workspace first.
cargo build --workspace --locked
# A build with nothing changed compiles nothing (a build script that reruns every time makes every
# build, test run and benchmark recompile the daemon).
if rebuilt=$(cargo build --workspace --locked 2>&1 | grep -E '^ *(Compiling|Running) '); then
    echo "test.sh: a second cargo build with nothing changed still did work:" >&2
    echo "$rebuilt" >&2
    exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --workspace --locked 2>&1 | tee "$log"
# The README's tour must be what the commands print today.
./scripts/readme-tour.sh --check
# docs/protocol.md must be what the daemon's `schema` says, and every link in the docs must resolve.
./scripts/gen-protocol-doc.py --check
# One closing line over every test binary, so a reader of the log sees the whole count.
awk '/^test result:/ { passed += $4; failed += $6 } END { printf "total: %d passed, %d failed\n", passed, failed }' "$log"
