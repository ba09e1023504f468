#!/usr/bin/env bash
# Installs the font packages the default fallback order names
# (docs/fonts.md): Debian's fonts-noto-core (Arabic, Hebrew, Thai, the Indic scripts,
# symbols and more) and fonts-noto-cjk (Chinese, Japanese, Korean). Does
# nothing when they are installed; on a system without apt-get it says what
# to install instead.
set -euo pipefail
packages=(fonts-noto-core fonts-noto-cjk)
missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-fonts: no apt-get; install Noto Sans (core scripts) and Noto Sans CJK" \
       "with your package manager, or pass their folder with --fonts" >&2
  exit 0
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
