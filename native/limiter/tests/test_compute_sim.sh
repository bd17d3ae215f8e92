#!/usr/bin/env bash
# Compute limiter against the simulated CANN runtime (ground truth: the simulator's per-process
# device-busy nanoseconds). Every workload saturates the device with 1 ms kernels.
#   caps 10/25/50 % alone; weights 1:3; idle neighbour (work-conserving) and capped with an idle
#   neighbour; kill -9 of a container holding debt; registry missing / unknown major; every launch
#   entry point npu-burn offers, and model execution, is throttled and counted.
# Prints one "result" line per measurement with the exact error in percentage points.
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
PRELOAD=${VNPU_COMPUTE_PRELOAD:-$B/limiter/libvnpu-compute-test.so}
TOOL=$B/limiter/registry_tool
BURN=$B/npu-burn
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# fresh simulated host + registry for one scenario
setup() {
  export VNPU_SIM_ROOT=$TMP/$1/sim
  REG=$TMP/$1/reg
  mkdir -p "$REG" "$VNPU_SIM_ROOT"
  "$TOOL" create "$REG/npu0.reg" 0 || { echo "cannot create registry"; exit 1; }
}

# run KEY WEIGHT CAP PRIO STEPS... : npu-burn under the limiter as container KEY
run() {
  local key=$1 w=$2 cap=$3 prio=$4; shift 4
  LD_PRELOAD=$PRELOAD VNPU_TEST_REGISTRY_DIR=$REG VNPU_TEST_KEY=$key VNPU_TEST_WEIGHT=$w \
    VNPU_TEST_CAP=$cap VNPU_TEST_PRIO=$prio VNPU_SIM_QUIET=1 "$BURN" "$@"
}

field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" | head -n1; }

# phase_share LINE: for processes with several phases: the line's own busy_ns (its kernels x their
# duration, which the simulator runs exactly) over the line's wall time, in %
phase_share() {
  local line=$1
  awk -v b="$(echo "$line" | field busy_ns)" -v w="$(echo "$line" | field wall_ns)" \
    'BEGIN { if (w > 0) printf "%.2f", 100 * b / w; else print "nan" }'
}

# share LINE: device busy of the line's process (simulator ground truth) over the line's wall time, in %
share_of_line() {
  local line=$1 pid wall busy
  pid=$(echo "$line" | field pid)
  wall=$(echo "$line" | field wall_ns)
  busy=$("$B/cann-sim-busy" --pid "$pid" --device 0 | grep '^busy' | field busy_ns)
  [ -n "$busy" ] && [ -n "$wall" ] || { echo "nan"; return; }
  awk -v b="$busy" -v w="$wall" 'BEGIN { printf "%.2f", 100 * b / w }'
}

# check NAME ACTUAL TARGET TOL: |actual - target| <= tol
check() {
  local err
  err=$(awk -v a="$2" -v t="$3" 'BEGIN { printf "%+.2f", a - t }')
  echo "result $1 share=$2% target=$3% error=${err}pp"
  awk -v a="$2" -v t="$3" -v tol="$4" 'BEGIN { d = a - t; if (d < 0) d = -d; exit !(d <= tol) }' ||
    fail "$1: share $2% not within $4 pp of $3%"
}

# at_least NAME ACTUAL MIN
at_least() {
  echo "result $1 share=$2% min=$3%"
  awk -v a="$2" -v m="$3" 'BEGIN { exit !(a >= m) }' || fail "$1: share $2% below $3%"
}

# --- caps alone on the device: COUNT kernels sized for ~1.5 s at the cap ---
for cap in 10 25 50; do
  setup cap$cap
  line=$(run 1 1 "$cap" 1 launch 1000 $((cap * 15)) | grep '^launch done')
  check "cap$cap-alone" "$(share_of_line "$line")" "$cap" 5
done

# --- weights 1:3, both saturating: 1 s warm-up, 2 s measured, 1 s cool-down, so that the measured
# phases overlap completely whatever the start-up skew of the two processes ---
setup weights
run 1 1 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/weights/a.out" &
run 2 3 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/weights/b.out" &
wait
check weight1-of-1:3 "$(phase_share "$(grep '^burn done' "$TMP/weights/a.out" | sed -n 2p)")" 25 5
check weight3-of-1:3 "$(phase_share "$(grep '^burn done' "$TMP/weights/b.out" | sed -n 2p)")" 75 5

# --- the same with the weight-1 container registered but idle: work-conserving ---
setup idle
run 1 1 0 1 launch 1000 1 sleep 2400 > /dev/null &
sleep 0.3
line=$(run 2 3 0 1 burn 1000 2 | grep '^burn done')
wait
at_least busy-with-idle-neighbour "$(share_of_line "$line")" 90
# ... unless capped
setup idlecap
run 1 1 0 1 launch 1000 1 sleep 1900 > /dev/null &
sleep 0.3
line=$(run 2 3 30 1 launch 1000 450 | grep '^launch done')
wait
check capped-with-idle-neighbour "$(share_of_line "$line")" 30 5

# --- kill -9 of a container while it holds debt: the survivor is not stalled ---
# A (weight 1) and B (weight 1) saturate; A kills itself after 1 s with tokens/debt outstanding.
# B's second phase (from 1.2 s) must get the device: >= 90 %, and every launch of B returns within
# the burst bound plus one throttle step (its longest launch call is reported by npu-burn as submit).
setup kill
run 1 1 0 1 burn 1000 1 kill-self > /dev/null 2>&1 &
apid=$!
out=$(run 2 1 0 1 launch 1000 600 launch 1000 1000)
wait $apid 2>/dev/null
phase1=$(echo "$out" | grep '^launch done' | sed -n 1p)
phase2=$(echo "$out" | grep '^launch done' | sed -n 2p)
at_least survivor-before-kill "$(phase_share "$phase1")" 40
at_least survivor-after-kill "$(phase_share "$phase2")" 95
"$TOOL" dump "$REG/npu0.reg" | grep -q 'key=1 .* live=0' || fail "killed container still counts as live"

# --- registry missing / unknown major: unthrottled, exactly one log line ---
for bad in missing major; do
  setup "bad-$bad"
  if [ "$bad" = missing ]; then rm -f "$REG/npu0.reg"; else "$TOOL" corrupt-major "$REG/npu0.reg"; fi
  run 1 1 10 1 launch 1000 300 > "$TMP/bad-$bad/out" 2> "$TMP/bad-$bad/err"
  line=$(grep '^launch done' "$TMP/bad-$bad/out")
  at_least "registry-$bad-unthrottled" "$(share_of_line "$line")" 90
  n=$(grep -c '^vnpu: compute:' "$TMP/bad-$bad/err")
  echo "result registry-$bad log-lines=$n: $(grep '^vnpu: compute:' "$TMP/bad-$bad/err" | head -n1)"
  [ "$n" -eq 1 ] || fail "registry $bad: expected one log line, got $n"
done

# --- every launch entry point (and model execution) is throttled and counted ---
setup symbols
for via in $("$BURN" --help 2>&1 | sed -n 's/^--launch-via: //p'); do
  line=$(run "$RANDOM$RANDOM" 1 50 1 --launch-via "$via" launch 1000 80 | grep '^launch done')
  s=$(share_of_line "$line")
  awk -v a="$s" 'BEGIN { exit !(a >= 35 && a <= 65) }' || fail "--launch-via $via: share $s% not throttled to 50%"
done
mline=$(run 424242 1 50 1 model 4 1000 25 | grep '^model done')
ms=$(share_of_line "$mline")
awk -v a="$ms" 'BEGIN { exit !(a >= 35 && a <= 65) }' || fail "model execute: share $ms% not throttled to 50%"
echo "result model-execute share=$ms% target=50%"
dump=$("$TOOL" dump "$REG/npu0.reg")
for sym in rtKernelLaunch rtKernelLaunchWithFlag rtKernelLaunchWithFlagV2 rtKernelLaunchWithHandle \
           rtKernelLaunchWithHandleV2 rtKernelLaunchEx rtKernelLaunchFwk rtAicpuKernelLaunchWithFlag \
           rtAicpuKernelLaunchExWithArgs rtCpuKernelLaunchWithFlag rtVectorCoreKernelLaunch \
           rtVectorCoreKernelLaunchWithHandle rtLaunchKernelByFuncHandleV3 rtsLaunchKernelWithHostArgs \
           rtsLaunchCpuKernel rtLaunchKernelWithArgsArray; do
  echo "$dump" | grep -q "^sym=$sym launches=" || fail "no launches counted for $sym"
done
echo "$dump" | grep -q '^sym=rtModelExecute' || fail "model execution not counted"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "test_compute_sim: ok"
