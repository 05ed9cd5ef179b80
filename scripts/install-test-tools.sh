#!/usr/bin/env bash
# Tools the `test` method's fixtures run (tests/exec_test.rs): cargo, go, python3 with pytest,
# node with npm, Maven with a JDK; and ripgrep, whose `rg -n` output `coder search` must equal
# (tests/cli.rs); openssl, for the signing recipe of tests/chatcli.rs; and Neovim, the real editor tests/editor.rs drives through `coderd lsp`. Go, Node and Python come with the machine; pytest is installed
# for the user when missing, Maven (Debian's `maven`, which brings a JDK) as root when missing.
# Idempotent: does nothing when everything is there.
set -euo pipefail
for tool in go python3 node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "install-test-tools.sh: \`$tool\` is not on PATH; tests/exec_test.rs needs it" >&2
        exit 1
    }
done
if ! python3 -m pytest --version >/dev/null 2>&1; then
    echo "install-test-tools.sh: installing pytest for the user" >&2
    python3 -m pip install --quiet --user pytest >&2 ||
        python3 -m pip install --quiet --user --break-system-packages pytest >&2
fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
    echo "install-test-tools.sh: installing maven and a JDK (Debian packages)" >&2
    sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    "${sudo_or_root[@]}" apt-get update -qq >&2
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven default-jdk-headless >&2
fi
if ! command -v openssl >/dev/null 2>&1; then
    # tests/chatcli.rs runs the signing recipe `coder chatcli install` prints.
    echo "install-test-tools.sh: installing openssl (Debian package)" >&2
    sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    "${sudo_or_root[@]}" apt-get update -qq >&2
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssl >&2
fi
if ! command -v nvim >/dev/null 2>&1; then
    echo "install-test-tools.sh: installing neovim (Debian package; tests/editor.rs drives its LSP client)" >&2
    sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    "${sudo_or_root[@]}" apt-get update -qq >&2
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >&2
fi
if ! command -v rg >/dev/null 2>&1; then
    echo "install-test-tools.sh: installing ripgrep (Debian package)" >&2
    sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    "${sudo_or_root[@]}" apt-get update -qq >&2
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >&2
fi
# tests/corpus.rs checks the outline of the golden corpora against Universal Ctags.
if ! command -v ctags >/dev/null 2>&1; then
    echo "install-test-tools.sh: installing universal-ctags (Debian package)" >&2
    sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    "${sudo_or_root[@]}" apt-get update -qq >&2
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq universal-ctags >&2
fi
# tests/corpus.rs checks the golden corpora against each language's own parser: Bash's against
# shfmt's (mvdan.cc/sh), C and C++ against clang's AST (C++ with googletest's headers), Ruby's
# against Ripper, PHP's against the php-ast extension.
if ! command -v shfmt >/dev/null 2>&1 || ! command -v clang >/dev/null 2>&1 ||
    [[ ! -e /usr/include/gmock/gmock.h ]] || ! command -v ruby >/dev/null 2>&1 ||
    ! php -m 2>/dev/null | grep -qx ast; then
    packages=(shfmt clang libgtest-dev libgmock-dev ruby php-cli php-ast)
    echo "install-test-tools.sh: installing ${packages[*]} (Debian packages)" >&2
    sudo_or_root=()
    ((EUID == 0)) || sudo_or_root=(sudo)
    "${sudo_or_root[@]}" apt-get update -qq >&2
    "${sudo_or_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >&2
fi
