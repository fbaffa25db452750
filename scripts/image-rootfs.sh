#!/usr/bin/env bash
# Usage: image-rootfs.sh [OUT_DIR [PACKAGES_DIR]]
# Lays out under OUT_DIR (default .build/image-rootfs) exactly what the root Dockerfile copies into
# the image: the packed packages installed with --omit=dev in /opt/loom. The Dockerfile runs this
# script, so what the tests run from OUT_DIR is what the image holds, without a container engine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(realpath -m "${1:-.build/image-rootfs}")"
# PACKAGES_DIR, if given, holds tarballs scripts/pack.sh already made (the tests pack once per run).
if [[ -n "${2:-}" ]]; then
  packages="$(realpath "$2")"
else
  packages="$(mktemp -d)"
  trap 'rm -rf "$packages"' EXIT
  bash scripts/pack.sh "$packages" >/dev/null
fi
rm -rf "$out" && mkdir -p "$out/opt/loom"
cd "$out/opt/loom"
echo '{ "private": true }' > package.json
npm install --omit=dev --no-audit --no-fund --no-package-lock --loglevel=error "$packages"/kube-loom-sdk-*.tgz "$packages"/kube-loom-[0-9]*.tgz
# Only node_modules is the payload; the manifest existed for npm alone.
rm package.json
echo "$out/opt/loom/node_modules/.bin/loom"
