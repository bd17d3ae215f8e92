#!/usr/bin/env bash
# npu-burn against the simulated runtime: argument errors, exact capacity and the OOM code, fork,
# SIGKILL reclaim, concurrent processes, every launch entry point, ground truth, and the ACL -> rt
# layering seen by an LD_PRELOAD interposer.
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
export VNPU_SIM_ROOT="$TMP/host" VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
BURN="$B/npu-burn"
HBM=$((65536 * 1024 * 1024))
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_line() { # OUTPUT REGEX WHAT
  grep -Eq -- "$2" <<<"$1" || fail "$3: no line matching '$2' in:"$'\n'"$1"
}
field() { # OUTPUT LINE-REGEX KEY -> value of KEY= on the first matching line
  grep -E -- "$2" <<<"$1" | head -n1 | tr ' ' '\n' | sed -n "s/^$3=//p"
}
hbm_used() { "$B/cann-sim-busy" --device "$1" | sed -n 's/.* hbm_used=\([0-9]*\).*/\1/p' | head -n1; }

# bad arguments: exit 2 with one line naming the flag (npu-burn's own) or step word, and a hint
out=$("$BURN" --device 0 alloc 1Q 2>&1); rc=$?
[ "$rc" -eq 2 ] || fail "bad size: exit $rc, want 2"
[ "$out" = "npu-burn: bad size '1Q': unknown suffix 'Q' (K, M, G, T) (see 'npu-burn --help')" ] \
  || fail "bad size: want one line, got: $out"
out=$("$BURN" --device x meminfo 2>&1); [ $? -eq 2 ] || fail "bad --device: want exit 2"
[ "$out" = "npu-burn: bad --device 'x': expected a number (see 'npu-burn --help')" ] \
  || fail "bad --device: want one line naming the flag, got: $out"
out=$("$BURN" --threads 0 meminfo 2>&1); [ $? -eq 2 ] || fail "--threads 0: want exit 2"
[ "$out" = "npu-burn: --threads = 0: must be 1..256 (see 'npu-burn --help')" ] \
  || fail "--threads 0: got: $out"
expect_line "$("$BURN" --help)" "^usage: npu-burn" "usage text on --help"
out=$("$BURN" --frobnicate 2>&1); [ $? -eq 2 ] || fail "unknown option: want exit 2"
expect_line "$out" "unknown option '--frobnicate'" "unknown option message"
out=$("$BURN" 2>&1); [ $? -eq 2 ] || fail "no step: want exit 2"
out=$("$BURN" --device 9 meminfo 2>&1); [ $? -eq 1 ] || fail "invalid device: want exit 1"
expect_line "$out" "error call=aclrtSetDevice code=107001" "invalid device code"

# exact capacity through the runtime API; ACL pads 32 + 32 bytes so 64G no longer fits
out=$("$BURN" --device 0 --alloc-via rt alloc 64G alloc 1 free 0 alloc 1 meminfo)
expect_line "$out" "^alloc ok size=$HBM " "whole device via rtMalloc"
expect_line "$out" "^alloc fail code=207001 size=1 " "one byte over capacity"
expect_line "$out" "^meminfo ok free=$((HBM - 1)) total=$HBM " "meminfo after free"
out=$("$BURN" --device 0 alloc 64G free-unknown)
expect_line "$out" "^alloc fail code=207001 size=$HBM " "ACL padding makes 64G not fit"
expect_line "$out" "^free fail code=107000 " "unknown pointer"
out=$("$BURN" --device 1 --until-fail alloc 16G meminfo)
expect_line "$out" "^alloc-until-fail done count=3 bytes=$((3 * 16 * 1024 * 1024 * 1024)) code=207001" "until-fail"
expect_line "$out" "^meminfo ok free=$((HBM - 3 * (16 * 1024 * 1024 * 1024 + 32))) " "meminfo sees padded sizes"
[ "$(hbm_used 1)" = "0" ] || fail "device 1 not released at exit: $(hbm_used 1)"

# fork: parent and child are separate contexts; both are released when they exit
out=$("$BURN" --device 2 --alloc-via rt alloc 1G fork alloc 2G meminfo sleep 200)
expect_line "$out" "^alloc ok size=$((2 << 30)) .* role=parent" "parent allocates after fork"
expect_line "$out" "^alloc ok size=$((2 << 30)) .* role=child" "child allocates after fork"
expect_line "$out" "^child done child=[0-9]+ exit=0" "child exit"
[ "$(hbm_used 2)" = "0" ] || fail "device 2 not released after fork test: $(hbm_used 2)"

# SIGKILL: the dead process's memory is reclaimed by the next allocation (or memory info)
"$BURN" --device 3 --alloc-via rt alloc 60G kill-self >/dev/null 2>&1; rc=$?
[ "$rc" -eq 137 ] || fail "kill-self: exit $rc, want 137"
[ "$(hbm_used 3)" = "$((60 << 30))" ] || fail "killed process's bytes should still be counted: $(hbm_used 3)"
expect_line "$("$B/cann-sim-busy" --device 3)" "^hbm pid=[0-9]+ logic=3 used=$((60 << 30)) alive=0$" \
  "dead process's record before reclaim"
out=$("$BURN" --device 3 --alloc-via rt alloc 10G)
expect_line "$out" "^alloc ok size=$((10 << 30)) " "allocation after a killed neighbour"
[ "$(hbm_used 3)" = "0" ] || fail "device 3 after reclaim: $(hbm_used 3)"

# no usable procs/ directory: memory still works (without crash reclaim), one diagnostic
mkdir -p "$TMP/host2" && touch "$TMP/host2/procs"
out=$(VNPU_SIM_ROOT="$TMP/host2" VNPU_SIM_QUIET= "$BURN" --device 0 --alloc-via rt alloc 1G alloc 1G free 0 meminfo 2>&1)
expect_line "$out" "^meminfo ok free=$((HBM - (1 << 30))) " "memory without a usage record"
[ "$(grep -c 'cannot create usage record' <<<"$out")" = "1" ] || fail "one diagnostic expected:"$'\n'"$out"
[ "$(VNPU_SIM_ROOT="$TMP/host2" "$B/cann-sim-busy" --device 0 | sed -n 's/.* hbm_used=\([0-9]*\).*/\1/p')" = "0" ] ||
  fail "memory not released at exit without a usage record"

# four processes race for one device: together they get exactly what fits, nobody more
out=$("$BURN" --device 4 --procs 4 --alloc-via rt --hold-ms 1500 alloc-until-fail 1G)
total=$(grep -E '^alloc-until-fail done' <<<"$out" | sed 's/.* count=\([0-9]*\) .*/\1/' | awk '{s += $1} END {printf "%.0f\n", s}')
[ "$total" = "64" ] || fail "4 racing processes got $total GiB in total, want 64:"$'\n'"$out"
[ "$(grep -c 'code=207001' <<<"$out")" = "4" ] || fail "every racer should end with 207001"

# churn: random allocations and frees in 4 processes; while they hold their survivors, the device
# counts exactly the sum of what they report live
"$BURN" --device 4 --procs 4 --alloc-via rt --seed 7 --hold-ms 4000 churn 1 256M 6G >"$TMP/churn.out" &
churn_pid=$!
sleep 2.5
held=$(hbm_used 4)
per_proc=$("$B/cann-sim-busy" --device 4 | grep '^hbm ')
wait "$churn_pid" || fail "churn run failed"
out=$(cat "$TMP/churn.out")
[ "$(grep -c '^churn done' <<<"$out")" = "4" ] || fail "four churn reports expected:"$'\n'"$out"
live_sum=$(grep -E '^churn done' <<<"$out" | sed 's/.* live_bytes=\([0-9]*\) .*/\1/' | awk '{s += $1} END {printf "%.0f\n", s}')
[ "$held" = "$live_sum" ] || fail "device counts $held bytes while the churners hold $live_sum"
proc_sum=$(sed 's/.* used=\([0-9]*\) .*/\1/' <<<"$per_proc" | awk '{s += $1} END {printf "%.0f\n", s}')
[ "$proc_sum" = "$live_sum" ] || fail "per-process records sum to $proc_sum, want $live_sum:"$'\n'"$per_proc"
grep -q 'alive=0' <<<"$per_proc" && fail "holding churners reported dead:"$'\n'"$per_proc"
[ "$live_sum" -le "$HBM" ] || fail "churners hold $live_sum bytes, more than the device"
[ "$(hbm_used 4)" = "0" ] || fail "device 4 after churn: $(hbm_used 4)"
out=$("$BURN" --device 4 --seconds 1 alloc 1M free 0)
[ "$(grep -c '^free ok' <<<"$out")" -gt 10 ] || fail "--seconds should repeat the steps"

# every launch entry point runs kernels of the requested duration (ground truth per process)
launch_apis=$("$BURN" --help | sed -n 's/^--launch-via: //p')
[ "$(wc -w <<<"$launch_apis")" -ge 18 ] || fail "--help lists too few launch APIs: $launch_apis"
for via in $launch_apis; do
  out=$("$BURN" --device 5 --launch-via "$via" launch 500 10)
  expect_line "$out" "^launch done kernels=10 kernel_ns=500000 busy_ns=5000000 " "launch via $via"
  pid=$(field "$out" "^launch done" pid)
  truth=$("$B/cann-sim-busy" --pid "$pid" --device 5)
  expect_line "$truth" "^busy pid=$pid logic=5 busy_ns=5000000 tasks=10 " "ground truth via $via"
done
# every allocation/free pair charges and releases the device exactly
alloc_apis=$("$BURN" --help | sed -n 's/^--alloc-via: //p')
[ "$(wc -w <<<"$alloc_apis")" -ge 11 ] || fail "--help lists too few allocation APIs: $alloc_apis"
for via in $alloc_apis; do
  out=$("$BURN" --device 5 --alloc-via "$via" alloc 3G meminfo free 0 meminfo)
  expect_line "$out" "^alloc ok size=$((3 << 30)) " "alloc via $via"
  expect_line "$out" "^free ok size=$((3 << 30)) " "free via $via"
  used=$(( HBM - $(field "$out" "^meminfo ok" free) ))
  [ "$used" -ge $((3 << 30)) ] && [ "$used" -le $(((3 << 30) + 64)) ] || fail "alloc via $via charged $used bytes"
  expect_line "$(grep '^meminfo' <<<"$out" | tail -n1)" "^meminfo ok free=$HBM " "release via $via"
done
for via in acl rtMemGetInfoEx rtMemGetInfo rtsMemGetInfo rtMemGetInfoByType; do
  out=$("$BURN" --device 5 --alloc-via rt --meminfo-via "$via" alloc 5G meminfo)
  expect_line "$out" "^meminfo ok free=$((HBM - (5 << 30))) total=$HBM " "meminfo via $via"
done
out=$("$BURN" --device 5 graph 5 200 4 graph-sync 5 200 2)
expect_line "$out" "^graph done executions=4 busy_ns=4000000 " "graph replay (async)"
expect_line "$out" "^graph-sync done executions=2 busy_ns=2000000 " "graph replay (sync)"
pid=$(field "$out" "^graph done" pid)
# capture runs nothing: only the 6 replays are device tasks
expect_line "$("$B/cann-sim-busy" --pid "$pid" --device 5)" "^busy pid=$pid logic=5 busy_ns=6000000 tasks=6 " \
  "graph ground truth"
out=$("$BURN" --meminfo-via nope meminfo 2>&1); [ $? -eq 2 ] || fail "unknown --meminfo-via: want exit 2"
out=$("$BURN" --device 5 model 4 250 3)
expect_line "$out" "^model done executions=3 busy_ns=3000000 " "model execution"

# two burning processes share device 6: their device time never overlaps (exact, ground truth)
out=$("$BURN" --device 6 --procs 2 burn 2000 1)
[ "$(grep -c '^burn done' <<<"$out")" = "2" ] || fail "two burn reports expected:"$'\n'"$out"
truth=$("$B/cann-sim-busy" --device 6 | grep '^busy ')
[ "$(wc -l <<<"$truth")" = "2" ] || fail "two ground-truth records expected:"$'\n'"$truth"
read -r busy_sum span < <(awk '{for (i = 2; i <= NF; i++) {split($i, kv, "="); v[kv[1]] = kv[2]}
  s += v["busy_ns"]; if (min == "" || v["first_start_ns"] < min) min = v["first_start_ns"];
  if (v["last_end_ns"] > max) max = v["last_end_ns"]} END {printf "%.0f %.0f\n", s, max - min}' <<<"$truth")
[ "$busy_sum" -le "$span" ] || fail "device time $busy_sum exceeds the span $span of both processes: overlap"
[ "$busy_sum" -ge $((span / 2)) ] || fail "device nearly idle while two processes burn: $busy_sum / $span"

# task rings (VNPU_SIM_TASK_RING): the device time each process used inside any window, exact
# whatever was still queued. Two processes on device 4: one queues 50 x 2 ms at once (100 ms), the
# other 20 x 1 ms; windows over the whole run, over its first 10 ms and over nothing at all
t0=$("$B/cann-sim-busy" --now)
VNPU_SIM_TASK_RING=1 "$BURN" --device 4 launch 2000 50 > "$TMP/ring-a.out" &
VNPU_SIM_TASK_RING=1 "$BURN" --device 4 launch 1000 20 > "$TMP/ring-b.out"
wait
t9=$("$B/cann-sim-busy" --now)
pa=$(field "$(cat "$TMP/ring-a.out")" "^launch done" pid); pb=$(field "$(cat "$TMP/ring-b.out")" "^launch done" pid)
win=$("$B/cann-sim-busy" --window "$t0" "$t9")
expect_line "$win" "^window pid=$pa logic=4 busy_ns=100000000 tasks=50 " "window over the whole run (A)"
expect_line "$win" "^window pid=$pb logic=4 busy_ns=20000000 tasks=20 " "window over the whole run (B)"
first=$("$B/cann-sim-busy" --pid "$pa" --tasks | sed -n '1s/.* start_ns=\([0-9]*\).*/\1/p')
[ "$("$B/cann-sim-busy" --pid "$pa" --tasks | grep -c '^task ')" = 50 ] || fail "--tasks: 50 tasks expected"
# a window that cuts tasks: exactly the overlap of each task with it (from A's task list). It starts
# inside A's first task and ends inside its fifth: B's tasks may run between A's (one device, FIFO),
# so a window placed by A's start alone can fall wholly on B's
fifth=$("$B/cann-sim-busy" --pid "$pa" --tasks | sed -n '5s/.* start_ns=\([0-9]*\).*/\1/p')
t1=$((first + 1000000)); t2=$((fifth + 500000))
want=$("$B/cann-sim-busy" --pid "$pa" --tasks | awk -v a="$t1" -v b="$t2" '{ for (i = 2; i <= NF; i++) {
  split($i, kv, "="); v[kv[1]] = kv[2] } lo = v["start_ns"] > a ? v["start_ns"] : a; hi = v["end_ns"] < b ? v["end_ns"] : b
  if (hi > lo) s += hi - lo } END { printf "%.0f", s }')
got=$("$B/cann-sim-busy" --pid "$pa" --window "$t1" "$t2" | sed -n 's/.* busy_ns=\([0-9]*\).*/\1/p')
[ -n "$want" ] && [ "$got" = "$want" ] && [ "$got" -gt 0 ] || fail "window cutting A's tasks: $got ns, its tasks say $want ns"
expect_line "$("$B/cann-sim-busy" --window $((t9 + 1000)) $((t9 + 2000)))" "^window pid=$pa logic=4 busy_ns=0 tasks=0 " \
  "window after everything ended"
out=$("$B/cann-sim-busy" --window 5 5 2>&1); [ $? -eq 2 ] || fail "--window with T2 <= T1: want exit 2: $out"

# an rt-level interposer sees what ACL does (libascendcl calls libruntime through the PLT)
hook_out="$TMP/hook.txt"
VNPU_TEST_HOOK_OUT="$hook_out" LD_PRELOAD="$B/cann-sim/libtesthook.so${LD_PRELOAD:+:$LD_PRELOAD}" \
  "$BURN" --device 7 alloc 1K meminfo launch 10 3 model 2 10 1 >/dev/null
expect_line "$(cat "$hook_out" 2>/dev/null)" \
  "^hook rtMalloc=1 rtFree=1 rtMemGetInfoEx=1 rtLaunchKernelByFuncHandleV3=3 rtKernelLaunch=2 rtModelExecute=1$" \
  "rt-level interposer"

[ "$fails" -eq 0 ] && echo "test_npu_burn: all checks passed"
[ "$fails" -eq 0 ]
