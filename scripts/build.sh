#!/usr/bin/env bash
# Compiles the package into dist/ (JavaScript + .d.ts, by tsc alone) and copies beside it the files
# the compiled code reads at run time: the CRDs `loom install-crds` applies, the control-plane build
# script `loom dev` runs, and the hello example `loom dev` installs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf dist
node_modules/.bin/tsc -p tsconfig.build.json
mkdir -p dist/src/api/crds
cp src/api/crds/*.yaml dist/src/api/crds/
cp src/devcluster/build-binaries.sh dist/src/devcluster/
cp examples/hello/*.yaml dist/examples/hello/
chmod +x dist/src/cli/bin.js
