#!/usr/bin/env bash
# Tools the `test` method's fixtures run (tests/it/exec_test.rs): cargo, go, python3 with pytest,
# node with npm, Maven with a JDK; and ripgrep, whose `rg -n` output `coder search` must equal
# (tests/it/cli.rs); openssl, for the signing recipe of tests/it/chatcli.rs; Neovim, the real editor
# tests/it/editor.rs drives through `coderd lsp`; Universal Ctags, the oracle of tests/it/corpus.rs.
# Go, Node and Python come with the machine; pytest is installed for the user when missing, the
# Debian packages as root when their command is missing.
# Idempotent: does nothing when everything is there.
set -euo pipefail
for tool in go python3 node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "install-test-tools.sh: \`$tool\` is not on PATH; tests/it/exec_test.rs needs it" >&2
        exit 1
    }
done
if ! python3 -m pytest --version >/dev/null 2>&1; then
    echo "install-test-tools.sh: installing pytest for the user" >&2
    python3 -m pip install --quiet --user pytest >&2 ||
        python3 -m pip install --quiet --user --break-system-packages pytest >&2
fi

# Installs Debian packages as root (through sudo when not root); `apt-get update` once per run.
updated=false
apt_install() {
    local sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    echo "install-test-tools.sh: installing $* (Debian packages)" >&2
    $updated || "${sudo_or_root[@]}" apt-get update -qq >&2
    updated=true
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    apt_install maven default-jdk-headless
fi
# command → the package that brings it
for pair in openssl:openssl nvim:neovim rg:ripgrep ctags:universal-ctags; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || apt_install "${pair#*:}"
done
# tests/it/corpus.rs checks the golden corpora against each language's own parser: Bash's against
# shfmt's (mvdan.cc/sh), C and C++ against clang's AST (C++ with googletest's headers), Ruby's
# against Ripper, PHP's against the php-ast extension.
if ! command -v shfmt >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1 ||
    [[ ! -e /usr/include/gmock/gmock.h ]] || ! command -v ruby >/dev/null 2>&1 ||
    ! php -m 2>/dev/null | grep -qx ast; then
    apt_install shfmt clang libgtest-dev libgmock-dev ruby php-cli php-ast
fi
