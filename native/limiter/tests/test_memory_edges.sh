#!/usr/bin/env bash
# Memory accounting edge cases (issue 12), libvnpu.so preloaded, quota 1 GiB: device reset releases
# (respecting the runtime's reference count), host physical memory is not charged, children made by a
# raw clone() or glibc's clone() are charged to themselves (issue 23), an undescribed
# device and slot exhaustion fail closed, a FIFO as vnpu.conf never hangs, and with stderr closed the
# limiter's log line never lands in the region (its descriptors are >= 3).
set -u
b=$VNPU_NATIVE_BUILD; t=$VNPU_TEST_TMP
export VNPU_SIM_ROOT=$t/sim VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
mkdir -p "$VNPU_SIM_ROOT"
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT LD_PRELOAD
prog=$b/limiter/test_memory_edges
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
n=0
fresh() { n=$((n + 1)); mkdir -p "$t/r$n"; R=$t/r$n/vnpu_local_shmem; }
limited() { LD_PRELOAD=$b/libvnpu.so NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 timeout 60 "$@"; }

for mode in reset hostphys clone glibc-clone; do
  fresh
  out=$(limited "$prog" "$mode" 2>&1) || fail "$mode: $out"
  echo "$out"
done
fresh
out=$(VNPU_DEVICE_COUNT=1 limited "$prog" undescribed 2>&1) || fail "undescribed: $out"
echo "$out"

# ASCEND_RT_VISIBLE_DEVICES renumbers devices per process: charges land on the physical NPU (the
# region names NPU 3, 1 GiB), whatever the mask; a device the region does not describe fails closed
fresh
"$b/limiter/registry_tool" region "$R" "$t" 3 100 0 1 1024 > /dev/null
lim() { LD_PRELOAD=$b/libvnpu.so NPU_LOCAL_SHM_PATH=$R timeout 60 "$@"; }
out=$(ASCEND_RT_VISIBLE_DEVICES=3 lim "$prog" alloc 0 1024 2>&1)
[ "$out" = "alloc dev=0 set=0 rc=0" ] || fail "mask 3, device 0 (= NPU 3): $out"
out=$(ASCEND_RT_VISIBLE_DEVICES=3 lim "$prog" alloc 0 1025 2>&1)
[ "$out" = "alloc dev=0 set=0 rc=207001" ] || fail "mask 3, device 0 over quota: $out"
out=$(ASCEND_RT_VISIBLE_DEVICES=2,3 lim "$prog" alloc 1 1025 2>&1)
[ "$out" = "alloc dev=1 set=0 rc=207001" ] || fail "mask 2,3, device 1 (= NPU 3) over quota: $out"
out=$(ASCEND_RT_VISIBLE_DEVICES=2,3 lim "$prog" alloc 0 1 2>&1)
[ "$out" = "alloc dev=0 set=0 rc=207001" ] || fail "mask 2,3, device 0 (= NPU 2, not in the region): $out"
out=$(ASCEND_RT_VISIBLE_DEVICES=3 lim "$prog" alloc 1 4096 2>&1)
[ "$out" = "alloc dev=1 set=107001 rc=107002" ] || fail "mask 3, device 1 does not exist for the process: $out"
echo "visible-devices ok"

# all 256 slots held by a live process: the next process fails closed
fresh
limited "$prog" alloc1 > /dev/null 2>&1 # creates the region
mkfifo "$t/hold.in"
"$prog" hold-slots "$R" < "$t/hold.in" > "$t/hold.out" 2>&1 &
holder=$!
exec 7> "$t/hold.in"
for _ in $(seq 1 200); do grep -q holding "$t/hold.out" && break; sleep 0.05; done
out=$(limited "$prog" alloc1 2>&1)
exec 7>&-
wait $holder
grep -q '^alloc1 rc=207001$' <<<"$out" || fail "slots exhausted: expected 207001, got: $out"
grep -q 'all 256 process slots are held by live processes; device memory allocations of this process are refused (207001)$' <<<"$out" ||
  fail "slots exhausted: no log line: $out"
echo "slots-exhausted ok"

# a FIFO planted as vnpu.conf (read only when the region is created): never blocks
fresh
mkfifo "$(dirname "$R")/vnpu.conf"
out=$(limited "$prog" alloc1 2>&1) || fail "fifo vnpu.conf: exit $?: $out"
grep -q '^alloc1 rc=0$' <<<"$out" || fail "fifo vnpu.conf: $out"
echo "fifo-config ok"

# stderr closed: the region must not become fd 2 (the slot-full/fail-open log lines go to fd 2)
fresh
limited "$prog" alloc1 > /dev/null 2>&- || fail "stderr closed: exit $?"
magic=$(od -An -tx8 -N8 "$R" | tr -d ' ')
[ "$magic" = 31504e56494d4148 ] || fail "stderr closed: region magic is $magic"
# and a log line written with fd 2 closed goes nowhere: a region that does not validate
fresh
printf 'garbage-not-a-region' > "$R"
limited "$prog" alloc1 > /dev/null 2>&-
[ "$(head -c 20 "$R")" = garbage-not-a-region ] || fail "stderr closed: the log line was written into the region file"
echo "stderr-closed ok"

[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "test_memory_edges: ok"
