#!/usr/bin/env bash
# Benchmark (not a test): achieved AI-core shares of libvnpu.so on the simulated NPU over longer runs
# than test_compute_sim.sh, with the exact error against the target (goal: within 3 pp).
# Usage: native/limiter/bench/bench_compute_share.sh [SECONDS]   (after `make`; default 10 s per case)
set -u
cd "$(dirname "$0")/../.." || exit 2
B=$PWD/build
S=${1:-10}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TOOL=$B/limiter/registry_tool

setup() {
  export VNPU_SIM_ROOT=$TMP/$1/sim
  REG=$TMP/$1/reg
  mkdir -p "$REG"
  "$TOOL" create "$REG/npu0.reg" 0
}
run() {
  local name=$1 w=$2 cap=$3; shift 3
  local region=$REG/../containers/$name/vnpu_local_shmem
  mkdir -p "$(dirname "$region")"
  [ -f "$region" ] || "$TOOL" region "$region" "$REG" 0 "$w" "$cap" 1 > /dev/null
  LD_PRELOAD=$B/libvnpu.so NPU_LOCAL_SHM_PATH=$region VNPU_SIM_QUIET=1 "$B/npu-burn" "$@" 2>/dev/null
}
share() { # second "burn done" line of a run: busy_ns / wall_ns in %
  grep '^burn done' | sed -n 2p | awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                                         printf "%.2f", 100 * v["busy_ns"] / v["wall_ns"] }'
}
report() { awk -v n="$1" -v a="$2" -v t="$3" 'BEGIN { printf "%-22s target %5.1f%%  achieved %6.2f%%  error %+.2f pp\n", n, t, a, a - t }'; }

for k in 1000 100; do
  for cap in 10 25 50; do
    setup "cap$cap-$k"
    report "cap $cap% (${k}us kernels)" "$(run c 1 "$cap" burn "$k" 1 burn "$k" "$S" | share)" "$cap"
  done
done
setup weights
run a 1 0 burn 1000 1 burn 1000 "$S" burn 1000 1 > "$TMP/a" &
run b 3 0 burn 1000 1 burn 1000 "$S" burn 1000 1 > "$TMP/b" &
wait
report "weight 1 of 1:3" "$(share < "$TMP/a")" 25
report "weight 3 of 1:3" "$(share < "$TMP/b")" 75
