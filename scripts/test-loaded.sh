#!/usr/bin/env bash
# `make test` with two busy CPU loops running beside it: the suite must pass the same way on a machine
# that is busy with other work, so every outcome that depends on speed shows up here first.
# The loops are started and stopped by PID; an interrupted run stops them too.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

LOOPS="${LOOM_TEST_LOAD_LOOPS:-2}"
pids=()
stop_loops() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_loops EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for _ in $(seq "$LOOPS"); do
  bash -c 'while :; do :; done' &
  pids+=("$!")
done
echo "test-loaded: ${#pids[@]} busy loops (PIDs ${pids[*]}) beside make test" >&2

start=$SECONDS
status=0
make --no-print-directory test || status=$?
elapsed=$((SECONDS - start))
printf 'test-loaded: make test %s in %dm %ds\n' "$([[ $status == 0 ]] && echo passed || echo FAILED)" $((elapsed / 60)) $((elapsed % 60)) >&2
exit "$status"
