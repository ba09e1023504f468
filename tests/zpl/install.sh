#!/usr/bin/env bash
# What tests/suite/zpl.rs needs: zpl-renderer-js (npm, pinned by
# package-lock.json), a WebAssembly build of the Zebrash ZPL renderer.
# Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v node >/dev/null 2>&1; then
  echo "tests/zpl/install.sh: node (>= 18) and npm are required" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
