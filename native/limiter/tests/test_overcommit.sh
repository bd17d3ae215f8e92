#!/usr/bin/env bash
# Over-commit stress through the hooked path (issue 23): 4 processes x 4 threads of npu-burn churn
# (random 1..96 MiB allocations and frees, far more than the 1 GiB quota) on one region; every
# ~150 ms all of them are stopped (SIGSTOP, waited for until every thread is stopped: threads frozen
# anywhere, mid-admission included) and the
# simulator's ground truth (device memory each live process holds, cann-sim-busy) and the region's
# consistent usage are compared with the quota; now and then a stopped process is killed (kill -9)
# and replaced. Pass: 0 B over at every stop, the region's peak never above the quota, and after the
# end the region holds exactly what the live processes hold (nothing once all are gone).
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
export VNPU_SIM_ROOT="$TMP/sim" VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT LD_PRELOAD
mkdir -p "$VNPU_SIM_ROOT" "$TMP/c"
R=$TMP/c/vnpu_local_shmem
LIMIT=$((1 << 30))
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
start() { LD_PRELOAD=$B/libvnpu.so NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 "$B/npu-burn" --alloc-via rt \
            --threads 4 churn 8 1M 96M >>"$TMP/burn.out" 2>&1 & pids+=($!); }
live_device_bytes() { "$B/cann-sim-busy" --device 0 | awk '$1 == "hbm" && /logic=0 / && / alive=1/ {
                        for (i = 2; i <= NF; i++) if ($i ~ /^used=/) { sub("used=", "", $i); s += $i } } END { print s + 0 }'; }
# kill -STOP only queues the signal: the process stops once a thread of it gets a CPU and starts the
# group stop; until then (long, on a loaded machine) its other threads go on allocating and freeing,
# and a reading taken then mixes records read at different instants. Wait until every thread of
# every process is stopped (T) or gone (Z/X: a process killed earlier; its holdings cannot change).
frozen() { local p t st
  for p in "$@"; do for t in /proc/"$p"/task/*/stat; do
    [ -r "$t" ] || continue; read -r _ _ st _ <"$t" 2>/dev/null || continue
    case $st in T | t | Z | X) ;; *) return 1 ;; esac
  done; done; }
pids=()
for _ in 1 2 3 4; do start; done
stops=0 kills=0 max_dev=0 max_region=0 unfrozen=0
t_end=$((SECONDS + 7))
while [ $SECONDS -lt $t_end ]; do
  sleep 0.15
  alive=(); for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=("$p"); done
  [ ${#alive[@]} -gt 0 ] || break
  kill -STOP "${alive[@]}" 2>/dev/null
  for _ in $(seq 500); do frozen "${alive[@]}" && break; sleep 0.01; done
  frozen "${alive[@]}" || { unfrozen=$((unfrozen + 1)); kill -CONT "${alive[@]}" 2>/dev/null; continue; }
  dev=$(live_device_bytes)
  reg=$("$B/limiter/test_memory_edges" usage "$R" 2>&1)
  used=$(sed -n 's/^used=\([0-9]*\) consistent=1 .*/\1/p' <<<"$reg")
  [ "$dev" -le "$LIMIT" ] || fail "stop $stops: live processes hold $dev bytes on the device, quota $LIMIT"
  [ -n "$used" ] && { [ "$used" -le "$LIMIT" ] || fail "stop $stops: region charges $used, quota $LIMIT"; }
  [ "$dev" -gt "$max_dev" ] && max_dev=$dev
  [ -n "$used" ] && [ "$used" -gt "$max_region" ] && max_region=$used
  stops=$((stops + 1))
  if [ $((stops % 5)) = 0 ]; then # kill -9 one frozen process (its threads may be anywhere) and replace it
    kill -KILL "${alive[0]}"; kills=$((kills + 1)); start
  fi
  kill -CONT "${alive[@]}" 2>/dev/null
done
wait 2>/dev/null
echo "stops=$stops kills=$kills unfrozen=$unfrozen max device bytes=$max_dev max region bytes=$max_region quota=$LIMIT"
grep -q '^churn done' "$TMP/burn.out" || fail "no churn finished: $(tail -3 "$TMP/burn.out")"
# the quota was really contended (refusals) and really used (close to full at some stop)
grep -Eq '^churn done .*fails=[1-9]' "$TMP/burn.out" || fail "no refusals: the stress never reached the quota"
[ "$max_region" -ge $((LIMIT / 2)) ] || fail "the region never held half the quota: $max_region"
[ "$stops" -ge 10 ] && [ "$kills" -ge 2 ] || fail "too few stops ($stops) or kills ($kills)"
peak=$("$B/limiter/test_memory_edges" usage "$R" | sed -n 's/.* peak=\([0-9]*\)$/\1/p')
[ -n "$peak" ] && [ "$peak" -le "$LIMIT" ] || fail "region peak $peak above the quota"
# everyone is gone: the next admission reaps them all, the whole quota is free again
out=$(LD_PRELOAD=$B/libvnpu.so NPU_LOCAL_SHM_PATH=$R "$B/npu-burn" --alloc-via rt alloc 1G alloc 1 2>&1)
grep -q '^alloc ok size=1073741824 ' <<<"$out" && grep -q '^alloc fail code=207001 size=1 ' <<<"$out" ||
  fail "after the stress: $out"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "test_overcommit: ok"
