#!/usr/bin/env bash
# Compute limiter against the simulated CANN runtime (ground truth: the simulator's per-process
# device-busy nanoseconds). Every workload saturates the device with 1 ms kernels.
# libvnpu.so is preloaded into npu-burn; each container has its own quota region (made with
# registry_tool region, as the node agent would) pointing at the registry of NPU 0, and is registered
# there by the agent (registry_tool register: entry + member table); the agent's publisher
# (registry_tool agent, one per scenario) publishes every container's usage there; the limiter only
# reads the registry.
#   caps 10/25/50 % alone; weights 1:3; idle neighbour (work-conserving) and capped with an idle
#   neighbour; kill -9 of a container holding debt; registry missing / unknown major (own cap still
#   holds); a neighbour truncating / rewriting the registry (issue 12: nobody is hurt); every launch
#   entry point npu-burn offers, and model execution, is throttled and counted.
# Prints one "result" line per measurement with the exact error in percentage points.
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
PRELOAD=$B/libvnpu.so
TOOL=$B/limiter/registry_tool
BURN=$B/npu-burn
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

AGENT=
stop_agent() { if [ -n "$AGENT" ]; then kill "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; AGENT=; fi; }
trap stop_agent EXIT
# waits for every background job but the agent
waitall() { local p; for p in $(jobs -p); do [ "$p" = "$AGENT" ] || wait "$p"; done; }

# fresh simulated host + registry (and its publishing agent, unless NO_AGENT=1) for one scenario
setup() {
  stop_agent
  export VNPU_SIM_ROOT=$TMP/$1/sim
  REG=$TMP/$1/reg
  mkdir -p "$REG" "$VNPU_SIM_ROOT"
  "$TOOL" create "$REG/npu0.reg" 0 || { echo "cannot create registry"; exit 1; }
  if [ "${NO_AGENT:-}" != 1 ]; then
    "$TOOL" agent "$REG/npu0.reg" > "$TMP/$1/agent.out" 2> "$TMP/$1/agent.err" &
    AGENT=$!
    for _ in $(seq 100); do grep -qs 'agent publishing' "$TMP/$1/agent.out" && break; sleep 0.02; done
  fi
}

# run NAME WEIGHT CAP PRIO STEPS... : npu-burn under libvnpu.so as container NAME, whose quota region
# (created on first use, as the node agent would) puts logical device 0 on NPU 0 with this config
run() {
  local name=$1 w=$2 cap=$3 prio=$4; shift 4
  local region=$REG/../containers/$name/vnpu_local_shmem
  if [ ! -f "$region" ]; then
    mkdir -p "$(dirname "$region")"
    "$TOOL" region "$region" "$REG" 0 "$w" "$cap" "$prio" > /dev/null || { echo "cannot create region"; exit 1; }
    if [ -f "$REG/npu0.reg" ] && [ "${NO_REGISTER:-}" != 1 ]; then
      "$TOOL" register "$REG/npu0.reg" "$region" > /dev/null || { echo "cannot register $name"; exit 1; }
    fi
  fi
  LD_PRELOAD=${RUN_PRELOAD:-$PRELOAD} NPU_LOCAL_SHM_PATH=$region VNPU_SIM_QUIET=1 "$BURN" "$@"
}

region_key() { "$TOOL" region "$REG/../containers/$1/vnpu_local_shmem" "$REG" 0 1 0 1 | sed -n 's/^key=//p'; }

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
  line=$(run 1 1 "$cap" 1 launch 1000 $((cap * 15)) 2> "$TMP/cap$cap/err" | grep '^launch done')
  check "cap$cap-alone" "$(share_of_line "$line")" "$cap" 5
done
# every launch entry point the simulated runtime exports is hooked: nothing is logged as unthrottled,
# and the region reports 0 unhooked entry points (u32 at VNPU_H_UNHOOKED_LAUNCHES = 768)
n=$(grep -c 'which the limiter does not throttle' "$TMP/cap10/err")
[ "$n" -eq 0 ] || fail "unhooked launch entry points logged: $(cat "$TMP/cap10/err")"
unhooked() { od -An -tu4 -j768 -N4 "$1" | tr -d ' '; }
[ "$(unhooked "$REG/../containers/1/vnpu_local_shmem")" = 0 ] || fail "region reports unhooked entry points"
# a runtime exporting a launch entry point the limiter does not hook: logged once and reported in the
# region (vnpu-quota's QuotaRegion.unhookedLaunchEntryPoints), never silently passed
setup unhooked
RUN_PRELOAD="$PRELOAD:$B/limiter/libruntime.so.unhooked-test" run 1 1 10 1 launch 1000 20 > /dev/null 2> "$TMP/unhooked/err"
grep -q '^vnpu: compute: libruntime.so.unhooked-test exports launch entry point rtFutureKernelLaunch, which the limiter does not throttle$' \
  "$TMP/unhooked/err" || fail "unhooked entry point not logged: $(cat "$TMP/unhooked/err")"
[ "$(unhooked "$REG/../containers/1/vnpu_local_shmem")" = 1 ] || fail "region does not report the unhooked entry point"

# --- weights 1:3, both saturating: 1 s warm-up, 2 s measured, 1 s cool-down, so that the measured
# phases overlap completely whatever the start-up skew of the two processes ---
weights_once() {
  setup "weights$1"
  run "a$1" 1 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/weights$1/a.out" &
  run "b$1" 3 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/weights$1/b.out" &
  waitall
  wa=$(phase_share "$(grep '^burn done' "$TMP/weights$1/a.out" | sed -n 2p)")
  wb=$(phase_share "$(grep '^burn done' "$TMP/weights$1/b.out" | sed -n 2p)")
}
weights_once 1
# Both containers saturate, so the device can only idle when the host did not run them (CPU
# starvation on an overloaded machine, not a limiter decision): then measure once more.
if awk -v a="$wa" -v b="$wb" 'BEGIN { exit !(a + b < 90) }'; then
  echo "result weights: device busy only $(awk -v a="$wa" -v b="$wb" 'BEGIN { print a + b }')% with both saturating: host starved, measuring again"
  weights_once 2
fi
check weight1-of-1:3 "$wa" 25 5
check weight3-of-1:3 "$wb" 75 5

# --- the same with the weight-1 container registered but idle: work-conserving ---
setup idle
run 1 1 0 1 launch 1000 1 sleep 2400 > /dev/null &
sleep 0.3
line=$(run 2 3 0 1 burn 1000 2 | grep '^burn done')
waitall
at_least busy-with-idle-neighbour "$(share_of_line "$line")" 90
# ... unless capped
setup idlecap
run 1 1 0 1 launch 1000 1 sleep 1900 > /dev/null &
sleep 0.3
line=$(run 2 3 30 1 launch 1000 450 | grep '^launch done')
waitall
check capped-with-idle-neighbour "$(share_of_line "$line")" 30 5

# --- issue 23 (reproducer 25): work conservation by measured device time. A (weight 1) saturates
# next to B (weight 3) that is light: 1 ms on / 9 ms off (an inference server), or one 10 us kernel
# every 150 ms. A gets what B leaves (100 % - B's own device time), not its weighted 25 % ---
light_once() {
  setup "light$1"
  run a 1 0 1 launch 1000 1 > /dev/null
  run b 3 0 1 launch 1000 1 > /dev/null
  run b 3 0 1 --seconds 5 $2 > "$TMP/light$1/b.out" &
  local bpid=$!
  sleep 0.5
  la=$(run a 1 0 1 burn 1000 1 burn 1000 2 burn 1000 1 | grep '^burn done' | sed -n 2p)
  wait $bpid
  local bl wall
  bl=$(grep '^launch done' "$TMP/light$1/b.out" | tail -n1)
  wall=$(awk '/^launch done/ { for (i = 1; i <= NF; i++) { split($i, x, "="); v[x[1]] = x[2] } w += v["wall_ns"] } END { print w }' "$TMP/light$1/b.out")
  sa=$(phase_share "$la")
  sb=$("$B/cann-sim-busy" --pid "$(echo "$bl" | field pid)" --device 0 | grep '^busy' | field busy_ns)
  # B's wall includes its sleeps: its share of the device over the 5 s it ran
  sb=$(awk -v b="$sb" 'BEGIN { printf "%.2f", 100 * b / 5e9 }')
  left=$(awk -v b="$sb" 'BEGIN { printf "%.2f", 100 - b }')
  : "$wall"
}
for pat in "launch 1000 1 sleep 9" "launch 10 1 sleep 150"; do
  light_once "$(echo "$pat" | tr -c 'a-z0-9' _)" "$pat"
  echo "result light-neighbour \"$pat\": B used $sb%, A got $sa% (what B leaves: $left%)"
  # A saturates: it falls short of what B leaves by more than the headroom only when the host did not
  # run it (CPU starvation on an overloaded machine, not a limiter decision): measure once more
  if ! awk -v a="$sa" -v t="$left" 'BEGIN { d = a - t; exit !((d < 0 ? -d : d) <= 5) }'; then
    echo "result light-neighbour: $sa% on the first run: measuring again"
    light_once "$(echo "$pat" | tr -c 'a-z0-9' _)2" "$pat"
    echo "result light-neighbour \"$pat\": B used $sb%, A got $sa% (what B leaves: $left%)"
  fi
  check "saturating-next-to-light \"$pat\"" "$sa" "$left" 5
done

# --- the agent is gone (its publication goes stale): neighbours count at their weighted share
# again, so weights 1:3 still hold for two saturating containers and nobody fails open ---
setup stale
run a 1 0 1 launch 1000 1 > /dev/null
run b 3 0 1 launch 1000 1 > /dev/null
stop_agent
run a 1 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/stale/a.out" &
run b 3 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/stale/b.out" &
waitall
check stale-weight1-of-1:3 "$(phase_share "$(grep '^burn done' "$TMP/stale/a.out" | sed -n 2p)")" 25 5
check stale-weight3-of-1:3 "$(phase_share "$(grep '^burn done' "$TMP/stale/b.out" | sed -n 2p)")" 75 5

# --- kill -9 of a container while it holds debt: the survivor is not stalled ---
# A (weight 1) and B (weight 1) saturate; A kills itself after 1 s with tokens/debt outstanding.
# B's second phase (from about 1.6 s) must get the device (>= 90 %): the dead container's debt and
# queued kernels do not hold B back beyond the burst bound.
setup kill
run 1 1 0 1 burn 1000 1 kill-self > /dev/null 2>&1 &
apid=$!
out=$(run 2 1 0 1 launch 1000 800 launch 1000 1000)
wait $apid 2>/dev/null
phase1=$(echo "$out" | grep '^launch done' | sed -n 1p)
phase2=$(echo "$out" | grep '^launch done' | sed -n 2p)
at_least survivor-before-kill "$(phase_share "$phase1")" 40
at_least survivor-after-kill "$(phase_share "$phase2")" 90

# --- registry missing / unknown major: nobody to coordinate with, the own cap still holds, exactly
# one log line ---
for bad in missing major; do
  setup "bad-$bad"
  if [ "$bad" = missing ]; then rm -f "$REG/npu0.reg"; else "$TOOL" corrupt-major "$REG/npu0.reg"; fi
  run 1 1 10 1 launch 1000 150 > "$TMP/bad-$bad/out" 2> "$TMP/bad-$bad/err"
  line=$(grep '^launch done' "$TMP/bad-$bad/out")
  check "registry-$bad-own-cap" "$(share_of_line "$line")" 10 5
  n=$(grep -c '^vnpu: compute: .*npu0.reg' "$TMP/bad-$bad/err")
  echo "result registry-$bad log-lines=$n: $(grep '^vnpu: compute:' "$TMP/bad-$bad/err" | head -n1)"
  [ "$n" -eq 1 ] || fail "registry $bad: expected one log line, got $n"
done

# --- a hostile neighbour (issue 12): the registry is mounted read-only in real deployments, but even
# with write access (here: the file is the tester's), truncating it or rewriting the neighbour's cap
# and priority changes nothing for the victim: it keeps running, at its own cap ---
setup hostile
run victim 1 50 1 launch 1000 40 > /dev/null   # creates and registers the victim
run victim 1 50 1 launch 1000 750 > "$TMP/hostile/out" 2> "$TMP/hostile/err" &
v=$!
sleep 0.5
# the victim's entry: cap 3 %, priority INT32_MIN (0x80000000), then the whole file truncated
printf '\003\000\000\000\000\000\000\200' | dd of="$REG/npu0.reg" bs=1 seek=$((256 + 20)) conv=notrunc 2>/dev/null
sleep 0.3
truncate -s 0 "$REG/npu0.reg"
wait $v; rc=$?
[ "$rc" -eq 0 ] || fail "victim exited $rc after its registry was truncated (135 = SIGBUS)"
line=$(grep '^launch done' "$TMP/hostile/out")
check victim-keeps-own-cap "$(share_of_line "$line")" 50 8

# --- launch patterns that once escaped the limiter (issue 12), cap 10 %; ctx-bound and reset-bound:
# a model-bound stream freed with its context (no unbind, no destroy call) whose handle comes back for
# an ordinary stream, which must not stay exempt (both ran 99.99 % before the context hooks);
# ctx-cross-bound: the same when the binding thread's context is not the stream's (99.99 % while a
# binding was forgotten only with the binding thread's context); ctx-race: contexts destroyed under
# threads launching on their streams (no crash, no hang, the cap holds over the whole run) ---
setup patterns
for mode in model-destroy stream-reuse ctx-bound reset-bound ctx-cross-bound ctx-race key-churn; do
  run "p-$mode" 1 10 1 launch 1000 1 > /dev/null # the agent's region + registration
  line=$(LD_PRELOAD=$PRELOAD NPU_LOCAL_SHM_PATH=$REG/../containers/p-$mode/vnpu_local_shmem VNPU_SIM_QUIET=1 \
         "$B/limiter/compute_patterns" "$mode" 2 | grep '^pattern done')
  case $mode in ctx-race)
    [ "$(echo "$line" | field cycles)" -gt 0 ] 2> /dev/null || fail "ctx-race: no context destroyed under launching threads, or it crashed ($line)" ;;
  esac
  case $mode in ctx-bound | reset-bound | ctx-cross-bound)
    [ "$(echo "$line" | field reused)" = 1 ] || fail "$mode: the new stream did not get the freed one's handle ($line)" ;;
  esac
  check "$mode-cap10" "$(share_of_line "$line")" 10 5
done

# --- a stream destroyed with what owns it (no rtStreamDestroy): a device reset (the runtime frees the
# primary context's streams), rtCtxDestroy, aclrtDestroyContext (rtCtxDestroyEx) or rtsCtxDestroy (a
# user context's streams), whose handle the runtime hands out again for a stream of another device: what the launch
# path remembered of the old stream must not charge the new one's launches to the old device. A
# two-device region (NPU 0 cap 100 %, NPU 1 cap 10 %); on NPU 1 a cycle's 20 2 us kernels (launch-on
# charged them to NPU 0: 19.5 % under the 10 % cap after a reset before that fix; 20.6-20.7 % after
# a context destroy, through rt, ACL and RTS alike, before the context hooks) ---
setup devreset
mkdir -p "$REG/../containers/dr"
"$TOOL" region "$REG/../containers/dr/vnpu_local_shmem" "$REG" 0,1 1 100,10 1 > /dev/null || fail "devreset: cannot create the two-device region"
"$TOOL" register "$REG/npu0.reg" "$REG/../containers/dr/vnpu_local_shmem" 0 > /dev/null || fail "devreset: cannot register"
for mode in reset-reuse ctx-reuse ctx-reuse-acl ctx-reuse-rts; do
  line=$(LD_PRELOAD=$PRELOAD NPU_LOCAL_SHM_PATH=$REG/../containers/dr/vnpu_local_shmem VNPU_SIM_QUIET=1 \
         "$B/limiter/compute_patterns" "$mode" 2 | grep '^pattern done')
  reused=$(echo "$line" | field reused)
  [ "${reused:-0}" -gt 0 ] || fail "$mode: the simulator never handed a destroyed stream's handle out again ($line)"
  busy1=$("$B/cann-sim-busy" --pid "$(echo "$line" | field pid)" --device 1 | grep '^busy' | field busy_ns)
  # at most the cap (a sanitizer build may launch too slowly to reach it)
  dr=$(awk -v b="${busy1:-0}" -v w="$(echo "$line" | field wall_ns)" 'BEGIN { printf "%.2f", 100 * b / w }')
  echo "result $mode-stream-cap10 share=$dr% max=13% reused=$reused/$(echo "$line" | field cycles)"
  awk -v a="$dr" 'BEGIN { exit !(a <= 13) }' || fail "$mode-stream-cap10: device 1 ran $dr% under its 10 % cap"
done

# ... and a launch on device 1's stream while the thread's device is 0: CANN refuses it (107003, the
# stream is not in the current context), which the limiter's accounting by current device relies on
out=$(LD_PRELOAD=$PRELOAD NPU_LOCAL_SHM_PATH=$REG/../containers/dr/vnpu_local_shmem VNPU_SIM_QUIET=1 \
      "$B/limiter/compute_patterns" other-device 1)
[ "$(echo "$out" | sed -n 's/^other-device refused=\([0-9]*\).*/\1/p')" = 107003 ] ||
  fail "other-device: a launch on another device's stream was not refused with 107003 ($out)"

# --- weights 1:3 with an 8-stream weight-1 neighbour: its launchers block inside the runtime behind
# the neighbour's queue, yet it stays busy (launches in flight), and neither floods the device ---
multistream_once() {
  setup "multistream$1"
  run "ms-a" 1 0 1 launch 1000 1 > /dev/null
  run "ms-b" 3 0 1 launch 1000 1 > /dev/null
  run "ms-a" 1 0 1 --threads 8 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/multistream$1/a.out" &
  run "ms-b" 3 0 1 burn 1000 1 burn 1000 2 burn 1000 1 > "$TMP/multistream$1/b.out" &
  waitall
  # every thread's second phase: summed busy over the longest of their walls
  ma=$(grep '^burn done' "$TMP/multistream$1/a.out" | awk '{for(i=1;i<=NF;i++){split($i,x,"=");v[x[1]]=x[2]}
         n[v["thread"]]++; if (n[v["thread"]] == 2) { b += v["busy_ns"]; if (v["wall_ns"] > w) w = v["wall_ns"] } }
         END { printf "%.2f", 100 * b / w }')
  mb=$(phase_share "$(grep '^burn done' "$TMP/multistream$1/b.out" | sed -n 2p)")
}
multistream_once 1
# nine saturating threads on a loaded 2-CPU host can be starved (the device then idles or the phases
# do not overlap): measure once more before judging, as for the 1:3 weights above
if ! awk -v a="$ma" -v b="$mb" 'BEGIN { d = a - 25; e = b - 75; exit !((d < 0 ? -d : d) <= 7 && (e < 0 ? -e : e) <= 7) }'; then
  echo "result multistream: $ma / $mb % on the first run: measuring again"
  multistream_once 2
fi
check weight1x8-of-1:3 "$ma" 25 7
check weight3x1-of-1:3 "$mb" 75 7

# --- every launch entry point (and model execution) is throttled and counted ---
# The upper bound proves the throttle is applied (an unhooked path runs at ~100 %); the lower bound
# only proves the path is not stalled, and is loose because 80 kernels are a short sample that a
# loaded host (the ASan pass, other builds) can starve of CPU.
setup symbols
for via in $("$BURN" --help 2>&1 | sed -n 's/^--launch-via: //p'); do
  line=$(run "sym-$via" 1 50 1 --launch-via "$via" launch 1000 80 | grep '^launch done')
  s=$(share_of_line "$line")
  awk -v a="$s" 'BEGIN { exit !(a >= 15 && a <= 65) }' || fail "--launch-via $via: share $s% not throttled to 50% (15..65)"
done
mline=$(run model 1 50 1 model 4 1000 25 | grep '^model done')
ms=$(share_of_line "$mline")
awk -v a="$ms" 'BEGIN { exit !(a >= 15 && a <= 65) }' || fail "model execute: share $ms% not throttled to 50% (15..65)"
echo "result model-execute share=$ms% target=50%"
# aclmdlRIExecute -> rtsModelExecute (synchronous, no stream argument): throttled too
gline=$(run graph-sync 1 10 1 graph-sync 4 1000 40 | grep '^graph-sync done')
gs=$(share_of_line "$gline")
awk -v a="$gs" 'BEGIN { exit !(a >= 3 && a <= 20) }' || fail "aclmdlRIExecute: share $gs% not throttled to 10% (3..20)"
echo "result aclmdlRIExecute share=$gs% target=10%"
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
