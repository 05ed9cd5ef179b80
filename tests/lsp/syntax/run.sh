#!/usr/bin/env bash
set -eu

greet() {
    echo "hello $1"
}

if [ -n "${1:-}" ]; then
    greet "$1"
fi
