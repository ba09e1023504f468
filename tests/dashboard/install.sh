#!/usr/bin/env bash
# What tests/suite/verify/dashboard.rs needs: Chromium (Debian package) and
# playwright-core (npm, pinned by package-lock.json). Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
if ! command -v node >/dev/null 2>&1; then
  echo "tests/dashboard/install.sh: node (>= 18) and npm are required" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error
