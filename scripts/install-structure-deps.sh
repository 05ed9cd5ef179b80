#!/usr/bin/env bash
# What the structure tests need besides cargo: python3 (the outline cross-check runs the standard
# library's `ast`) and Go (the cross-check builds a small go/ast program). Idempotent: skips what
# is present; installs from the distribution's packages otherwise.
set -euo pipefail

missing=()
command -v python3 >/dev/null || missing+=(python3)
command -v go >/dev/null || missing+=(golang-go)
[[ ${#missing[@]} -eq 0 ]] && exit 0
echo "install-structure-deps: installing ${missing[*]}" >&2
sudo=; [[ $(id -u) -ne 0 ]] && sudo=sudo
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
