#!/usr/bin/env bash
# Builds helm from Go modules with the installed Go toolchain (`go install`), cached outside the
# repository like the control plane, and prints the binary's path as its only line on stdout.
# Cheap when cached; concurrent runs serialise on a file lock.
# With --cached it builds nothing: it prints the path of a helm already built, or exits 3 if there is none.
set -euo pipefail

HELM_VERSION="${LOOM_HELM_VERSION:-v4.3.1}"

die() { echo "loom helm: $*" >&2; exit 1; }
command -v go >/dev/null 2>&1 || die "no 'go' on PATH (Go is needed to build helm for the chart's tests)"
command -v flock >/dev/null 2>&1 || die "no 'flock' on PATH (util-linux)"

export GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=
# ",direct" would turn a clear "not found" from the module proxy into a slow VCS failure offline.
proxy="$(go env GOPROXY)"; proxy="${proxy%,direct}"; export GOPROXY="${proxy:-$(go env GOPROXY)}"

cache_root="${LOOM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/loom}/helm"
dir="$cache_root/${HELM_VERSION}-$(go env GOVERSION)"
if [[ -x "$dir/helm" ]]; then echo "$dir/helm"; exit 0; fi
[[ "${1:-}" == --cached ]] && exit 3

mkdir -p "$cache_root"
exec 9>"$cache_root/build.lock"
flock 9
if [[ -x "$dir/helm" ]]; then echo "$dir/helm"; exit 0; fi

echo "loom helm: building helm $HELM_VERSION from Go modules (once; about a minute or two)" >&2
mkdir -p "$dir.partial"
log="$cache_root/build.log"
if ! GOBIN="$dir.partial" go install "helm.sh/helm/v4/cmd/helm@$HELM_VERSION" >"$log" 2>&1; then
  tail -n 20 "$log" >&2 || true
  rm -rf "$dir.partial"
  die "go install helm.sh/helm/v4/cmd/helm@$HELM_VERSION failed; full log: $log"
fi
rm -rf "$dir" && mv "$dir.partial" "$dir"
echo "$dir/helm"
