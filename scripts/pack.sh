#!/usr/bin/env bash
# Builds and packs loom's two packages into OUT_DIR (default .build/packages):
#   kube-loom      the `loom` command and the host API (Node 24 and later)
#   kube-loom-sdk  the hook SDK alone, with fastify and pino (Node 20 and later)
# The SDK's sources live in src/sdk, which in this repository is an npm workspace whose manifest
# points at the TypeScript; the published manifest points at the compiled files instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(realpath -m "${1:-.build/packages}")"
# dist/ is shared: runs at the same time (two test files, say) take turns building and packing.
mkdir -p .build
exec 9>.build/pack.lock
flock 9
bash scripts/build.sh
rm -rf "$out" && mkdir -p "$out"
npm pack --ignore-scripts --silent --pack-destination "$out" >/dev/null

sdk="$out/kube-loom-sdk"
mkdir -p "$sdk/dist"
cp -r dist/src/sdk dist/src/api "$sdk/dist/"
rm -f "$sdk/dist/sdk/package.json"
cp src/sdk/README.md "$sdk/"
node -e '
  const fs = require("node:fs");
  const manifest = JSON.parse(fs.readFileSync("src/sdk/package.json", "utf8"));
  manifest.exports = { ".": { types: "./dist/sdk/index.d.ts", default: "./dist/sdk/index.js" } };
  manifest.files = ["dist"];
  fs.writeFileSync(process.argv[1], JSON.stringify(manifest, null, 2) + "\n");
' "$sdk/package.json"
(cd "$sdk" && npm pack --ignore-scripts --silent --pack-destination "$out" >/dev/null)
rm -rf "$sdk"
ls "$out"/*.tgz
