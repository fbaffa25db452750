#!/usr/bin/env bash
# Builds the local control plane's binaries (kube-apiserver, kube-controller-manager, etcd) from Go
# modules with the installed Go toolchain, and caches them outside the repository.
#
# Prints the directory holding the three binaries as its only line on stdout; progress goes to stderr:
# a numbered line when each step starts and ends, with its time, and a line every
# $LOOM_PROGRESS_INTERVAL seconds (30) while a step or the wait for another build goes on, since a
# cold build takes many minutes and silence looks like a hang. Idempotent and cheap when the cache is current. Concurrent runs serialise on a file lock, so a second
# test run waits for the first build instead of building twice. A failed step prints one line naming the
# step and its log file, and leaves nothing marked as built.
#
# Why wrapper modules: k8s.io/kubernetes requires its staging modules at v0.0.0 and only its own go.mod
# replaces them, so it cannot be `go install`ed. We build inside throw-away modules whose `replace` lines
# are derived from that exact version's go.mod (so they stay right when the version moves).
set -euo pipefail

# v1.34.10 is the newest 1.34 patch whose go.mod the checksum database knows here; newer tags are on
# the proxy but `go` refuses them unverified.
K8S_VERSION="${LOOM_K8S_VERSION:-v1.34.10}"
ETCD_VERSION="${LOOM_ETCD_VERSION:-v3.6.16}"

die() { echo "loom devcluster: $*" >&2; exit 1; }
command -v go >/dev/null 2>&1 || die "step 'find go' failed: no 'go' on PATH (Go >= 1.24 is needed to build the control plane)"
command -v flock >/dev/null 2>&1 || die "step 'find flock' failed: no 'flock' on PATH (util-linux)"

export GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=
# ",direct" would turn a clear "not found" from the module proxy into a slow VCS failure offline.
proxy="$(go env GOPROXY)"; proxy="${proxy%,direct}"; export GOPROXY="${proxy:-$(go env GOPROXY)}"

go_version="$(go env GOVERSION)"
cache_root="${LOOM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/loom}/kube"
dir="$cache_root/${K8S_VERSION}-etcd-${ETCD_VERSION}-${go_version}"
bin="$dir/bin"
stamp="$bin/.built"
want_stamp="kubernetes=$K8S_VERSION etcd=$ETCD_VERSION go=$go_version"

is_current() { [[ -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]]; }

interval="${LOOM_PROGRESS_INTERVAL:-30}"
# Anything but a whole number of seconds from 1 up would make the progress loops spin.
[[ "$interval" =~ ^[1-9][0-9]*$ ]] || interval=30
# since START: the time from SECONDS=START until now, as 4m05s.
since() { local s=$((SECONDS - $1)); printf '%dm%02ds' $((s / 60)) $((s % 60)); }

if is_current; then echo "$bin"; exit 0; fi

mkdir -p "$cache_root"
exec 9>"$cache_root/build.lock"
if ! flock -n 9; then
  echo "loom devcluster: another run is building the control plane; waiting for $cache_root/build.lock" >&2
  waiting=$SECONDS
  until flock -w "$interval" 9; do
    echo "loom devcluster: still waiting for the other build ($(since "$waiting"))" >&2
  done
fi
if is_current; then echo "$bin"; exit 0; fi

mkdir -p "$dir/logs"
rm -rf "$bin" "$dir/bin.partial"
staging="$dir/bin.partial"
mkdir -p "$staging"

STEPS=5
step_number=0

# alive PID SECONDS: waits up to SECONDS for PID to end; fails while it still runs.
alive() {
  local i
  for ((i = 0; i < $2; i++)); do
    kill -0 "$1" 2>/dev/null || return 1
    sleep 1
  done
}

# run DIR STEP_NAME LOG_NAME CMD... : runs CMD in DIR with output in a log, saying how long it has been
# at it; on failure names the step and the log. (Not in a subshell of its own: it counts the steps.)
run() {
  local cwd="$1" step="$2" log="$dir/logs/$3.log" begun=$SECONDS pid; shift 3
  step_number=$((step_number + 1))
  local tag="loom devcluster: [$step_number/$STEPS] $step"
  echo "$tag" >&2
  (cd "$cwd" && "$@") >"$log" 2>&1 &
  pid=$!
  while alive "$pid" "$interval"; do echo "$tag: still running ($(since "$begun"), $(since "$started") in all)" >&2; done
  if ! wait "$pid"; then
    tail -n 20 "$log" >&2 || true
    die "step '$step' failed; full log: $log"
  fi
  echo "$tag: done in $(since "$begun")" >&2
}

started=$SECONDS
minor="${K8S_VERSION#v1.}"; minor="${minor%%.*}"
staging_version="v0.${K8S_VERSION#v1.}"

# --- kube-apiserver + kube-controller-manager ---------------------------------------------------
kube_src="$dir/src/kubernetes"
mkdir -p "$kube_src"
run . "download k8s.io/kubernetes@$K8S_VERSION" download-kubernetes \
  go mod download -json "k8s.io/kubernetes@$K8S_VERSION"
k8s_gomod="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
[[ -f "$k8s_gomod" ]] || die "step 'locate go.mod of k8s.io/kubernetes@$K8S_VERSION' failed; got '$k8s_gomod'"
go_directive="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$k8s_gomod" | head -n1)"
godebug_line="$(grep -E '^godebug ' "$k8s_gomod" | head -n1 || true)"
{
  echo "module loom.local/kubebin"
  echo
  echo "go ${go_directive:-1.24.0}"
  [[ -n "$godebug_line" ]] && echo "$godebug_line"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo
  echo "replace ("
  # Every staging module that k8s.io/kubernetes requires at v0.0.0 is pinned to its published tag.
  awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print $1}' "$k8s_gomod" | sort -u |
    while read -r mod; do echo "	$mod => $mod $staging_version"; done
  echo ")"
} >"$kube_src/go.mod"
cat >"$kube_src/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
)
GO
run "$kube_src" "resolve kubernetes dependencies (go mod tidy)" tidy-kubernetes go mod tidy

build_date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X '$pkg.gitVersion=$K8S_VERSION' -X '$pkg.gitMajor=1' -X '$pkg.gitMinor=$minor'"
  ldflags+=" -X '$pkg.gitTreeState=clean' -X '$pkg.buildDate=$build_date'"
done
run "$kube_src" "build kube-apiserver and kube-controller-manager" build-kubernetes \
  go build -trimpath -tags=selinux,notest,grpcnotrace -ldflags "$ldflags" -o "$staging/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager

# --- etcd ---------------------------------------------------------------------------------------
etcd_src="$dir/src/etcd"
mkdir -p "$etcd_src"
cat >"$etcd_src/go.mod" <<MOD
module loom.local/etcdbin

go 1.24.0

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
MOD
cat >"$etcd_src/tools.go" <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
run "$etcd_src" "resolve etcd dependencies (go mod tidy)" tidy-etcd go mod tidy
run "$etcd_src" "build etcd" build-etcd \
  go build -trimpath -ldflags "-s -w" -o "$staging/etcd" go.etcd.io/etcd/server/v3

# --- check and publish --------------------------------------------------------------------------
# The output is read whole before it is searched: `grep -q` stops at the first match, and under
# pipefail the binary's SIGPIPE on the lines it prints after that would fail the check at random.
apiserver_says="$("$staging/kube-apiserver" --version 2>&1 || true)"
grep -q "Kubernetes $K8S_VERSION" <<<"$apiserver_says" ||
  die "step 'check kube-apiserver --version' failed: expected Kubernetes $K8S_VERSION"
etcd_says="$("$staging/etcd" --version 2>&1 || true)"
grep -q "etcd Version: ${ETCD_VERSION#v}" <<<"$etcd_says" ||
  die "step 'check etcd --version' failed: expected etcd ${ETCD_VERSION#v}"
echo "$want_stamp" >"$staging/.built"
mv "$staging" "$bin"
echo "loom devcluster: built the control plane in $(since "$started") into $bin" >&2
echo "$bin"
