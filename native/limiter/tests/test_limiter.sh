#!/usr/bin/env bash
# libvnpu.so preloaded into npu-burn on the simulated CANN runtime (plain and ASan/UBSan builds):
# exact quota through every allocator, real error codes, unknown frees, multi-device limits,
# memory info, fork, SIGKILL reclaim, fail-open policy lines, inertness, exported symbols.
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
export VNPU_SIM_ROOT="$TMP/host" VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT
LIB="$B/libvnpu.so"
BURN="$B/npu-burn"
GIB=$((1 << 30)); MIB=$((1 << 20)); HBM=$((64 * GIB))
fails=0
n=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_line() { grep -Eq -- "$2" <<<"$1" || fail "$3: no line matching '$2' in:"$'\n'"$1"; }
new_region() { n=$((n + 1)); R="$TMP/r$n/vnpu_local_shmem"; mkdir -p "$TMP/r$n"; }
burn() { LD_PRELOAD="$LIB" "$BURN" "$@"; }

# exported symbols: only the hooks (no sigaction, no helpers)
syms=$(nm -D --defined-only "$LIB" | awk '{print $3}' | grep -v '^_' | LC_ALL=C sort | tr '\n' ' ')
# memory hooks (hooks.c), compute hooks (hooks_launch.c) and dlopen (dlopen.c: RTLD_DEEPBIND)
want="dlopen rtAicpuKernelLaunchExWithArgs rtAicpuKernelLaunchWithFlag rtCpuKernelLaunchWithFlag rtCtxDestroy rtCtxDestroyEx rtDeviceReset rtDeviceResetForce rtDvppFree rtDvppMalloc rtDvppMallocWithFlag rtFree rtFreePhysical rtFreeWithDevSync rtKernelLaunch rtKernelLaunchEx rtKernelLaunchFwk rtKernelLaunchWithFlag rtKernelLaunchWithFlagV2 rtKernelLaunchWithHandle rtKernelLaunchWithHandleV2 rtLaunchKernelByFuncHandle rtLaunchKernelByFuncHandleV2 rtLaunchKernelByFuncHandleV3 rtLaunchKernelWithArgsArray rtMalloc rtMallocCached rtMallocPhysical rtMemAlloc rtMemAllocManaged rtMemFreeManaged rtMemGetInfo rtMemGetInfoByType rtMemGetInfoEx rtModelBindStream rtModelDestroy rtModelExecute rtModelExecuteSync rtModelUnbindStream rtSetDevice rtStreamBeginCapture rtStreamCreate rtStreamDestroy rtStreamEndCapture rtVectorCoreKernelLaunch rtVectorCoreKernelLaunchWithHandle rtsCtxDestroy rtsFree rtsLaunchCpuKernel rtsLaunchKernelWithConfig rtsLaunchKernelWithDevArgs rtsLaunchKernelWithHostArgs rtsMalloc rtsMemFreePhysical rtsMemGetInfo rtsMemMallocPhysical rtsModelExecute "
[ "$syms" = "$want" ] || fail "exported symbols: $syms"

# exact quota, every allocator family, and the next byte fails with 207001
for via in rt rts physical cached; do
  new_region
  out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via $via alloc 512M alloc 512M alloc 1 free 0 alloc 1 2>&1)
  if [ $via = cached ]; then # aclrtMallocCached pads like aclrtMalloc: 512M + 32 each
    expect_line "$out" "^alloc ok size=$((512 * MIB)) " "$via: first half"
    expect_line "$out" "^alloc fail code=207001 size=$((512 * MIB)) " "$via: padded second half"
  else
    [ "$(grep -c '^alloc ok size=536870912 ' <<<"$out")" = 2 ] || fail "$via: two halves: $out"
    expect_line "$out" "^alloc fail code=207001 size=1 " "$via: next byte"
    expect_line "$out" "^free ok size=$((512 * MIB)) " "$via: free"
    expect_line "$out" "^alloc ok size=1 " "$via: after free"
  fi
done

# real failures keep the real code and charge nothing; unknown pointer frees change nothing
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1048576 burn --alloc-via rt alloc 0 alloc 65G alloc 1G meminfo free-unknown meminfo 2>&1)
expect_line "$out" "^alloc fail code=107000 size=0 " "size 0: runtime's parameter error"
expect_line "$out" "^alloc fail code=207001 size=$((65 * GIB)) " "device OOM"
expect_line "$out" "^meminfo ok free=$((HBM - GIB)) total=$HBM " "quota above physical: physical numbers"
expect_line "$out" "^free fail code=107000 " "unknown pointer"
[ "$(grep -c "^meminfo ok free=$((HBM - GIB)) " <<<"$out")" = 2 ] || fail "unknown free changed memory info: $out"

# per-device limits, no aggregation; memory info min(limit, physical) and clamped free
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 VNPU_DEVICE_COUNT=2 burn --alloc-via rt alloc 768M meminfo \
      device 1 meminfo alloc 1G alloc 1 device 0 alloc 257M meminfo 2>&1)
expect_line "$out" "^meminfo ok free=$((256 * MIB)) total=$GIB attr=1 " "device 0 after 768M"
expect_line "$out" "^meminfo ok free=$GIB total=$GIB attr=1 " "device 1 untouched by device 0"
expect_line "$out" "^alloc ok size=$GIB " "device 1 full limit"
expect_line "$out" "^alloc fail code=207001 size=1 " "device 1 next byte"
expect_line "$out" "^alloc fail code=207001 size=$((257 * MIB)) " "device 0 over by 1M"

# fork: the child claims its own slot; both can use the rest of the limit independently of slots
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 600M fork alloc 200M sleep 300 2>&1)
[ "$(grep -c "^alloc ok size=$((200 * MIB)) " <<<"$out")" = 2 ] || fail "fork: 600 + 200 + 200 fits: $out"
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 600M fork alloc 300M sleep 300 2>&1)
[ "$(grep -c "^alloc ok size=$((300 * MIB)) " <<<"$out")" = 1 ] || fail "fork: 600 + 300 + 300 must not fit: $out"
expect_line "$out" "^alloc fail code=207001 size=$((300 * MIB)) " "fork: the second 300M is refused"

# SIGKILL: the dead process's bytes are reclaimed by the next admission that needs them
new_region
NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 900M kill-self >/dev/null 2>&1
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 1G 2>&1)
expect_line "$out" "^alloc ok size=$GIB " "allocation after a killed process"
# ... and memory info never reports the bytes of a process that is gone
NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 700M kill-self >/dev/null 2>&1
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn meminfo 2>&1)
expect_line "$out" "^meminfo ok free=$GIB total=$GIB " "memory info after a killed process"

# PID namespaces: a live process in another PID namespace (its recorded PID means nothing here) is
# never reaped; once it is gone its bytes come back
if unshare -p -f --mount-proc true 2>/dev/null; then
  new_region
  NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 LD_PRELOAD="$LIB" unshare -p -f --mount-proc \
    sh -c "'$BURN' --alloc-via rt alloc 600M sleep 3000; true" >"$TMP/ns.out" 2>&1 &
  nspid=$!
  for _ in $(seq 100); do grep -q '^alloc ok' "$TMP/ns.out" && break; sleep 0.1; done
  expect_line "$(cat "$TMP/ns.out")" "^alloc ok size=$((600 * MIB)) .*pid=2 " "namespaced process (pid 2 inside)"
  out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 600M 2>&1)
  expect_line "$out" "^alloc fail code=207001 size=$((600 * MIB)) " "live process in another PID namespace kept its bytes"
  wait $nspid
  out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 600M 2>&1)
  expect_line "$out" "^alloc ok size=$((600 * MIB)) " "namespaced process gone: bytes reclaimed"
else
  echo "note: unshare -p not permitted here; PID-namespace case covered by test_region's PID-reuse case only"
fi

# fail-open policy: exactly one line, the workload runs unlimited
new_region
out=$(NPU_LOCAL_SHM_PATH=$R burn --alloc-via rt alloc 40G alloc 20G 2>&1)
[ "$(grep -c '^alloc ok' <<<"$out")" = 2 ] || fail "missing region: unlimited: $out"
[ "$(grep -c '^vnpu: ' <<<"$out")" = 1 ] || fail "missing region: one line: $out"
expect_line "$out" "^vnpu: quota region $R: open: No such file or directory \(missing\); memory limits are not enforced$" "missing line"
new_region; head -c 6200 /dev/urandom >"$R"; sum=$(md5sum <"$R")
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 40G 2>&1)
[ "$(grep -c '^vnpu: ' <<<"$out")" = 1 ] || fail "bad magic: one line: $out"
expect_line "$out" "field magic = 0x" "bad magic line"
expect_line "$out" "^alloc ok size=$((40 * GIB)) " "bad magic: unlimited"
[ "$(md5sum <"$R")" = "$sum" ] || fail "bad magic: file modified"

# configuration grammar (config.h, README "Configuration"): a value outside it, where the region is
# built from it, refuses device memory with exactly one line naming the variable and the value;
# never "unlimited", never a second line, no region made
REFUSED='; device memory allocations of this process are refused \(207001\)$'
bad_env() { # VAR VALUE REASON-REGEX
  new_region
  out=$(env NPU_LOCAL_SHM_PATH="$R" NPU_MEM_QUOTA=1024 "$1=$2" LD_PRELOAD="$LIB" "$BURN" --alloc-via rt alloc 1M 2>&1)
  [ "$(grep -c '^vnpu: ' <<<"$out")" = 1 ] || fail "$1='$2': exactly one line: $out"
  q=$(printf '%s' "$2" | sed -e 's/[][\\.*^$+?(){}|]/\\&/g')
  expect_line "$out" "^vnpu: env: $1 = '$q': $3.*$REFUSED" "$1='$2' line"
  expect_line "$out" "^alloc fail code=207001 size=$MIB " "$1='$2' refused"
  [ -e "$R" ] && fail "$1='$2': a region was built"
  [ "$(wc -l <<<"$out")" = 2 ] || fail "$1='$2': output: $out"
}
for v in 10Gi 10240MB -5 abc " 10240 " "" +5 1e3 0x10 10240.0 17592186044416 18446744073709551616; do
  bad_env NPU_MEM_QUOTA "$v" "not a number of MiB"
done
for v in abc 0 -1 1e3 10001 " 50" nan inf 5. .5 0.4 12,5; do bad_env NPU_PRIORITY "$v" "not a weight 1..10000"; done
for v in 0 17 abc "2 " -1 2.0; do bad_env VNPU_DEVICE_COUNT "$v" "not a device count 1..16"; done
for v in 101 -1 50% " 5" 5.5; do bad_env VNPU_COMPUTE_CAP_PCT "$v" "not a percentage 0..100"; done
# a value cannot forge a second log line
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=$'10\nvnpu: forged' burn --alloc-via rt alloc 1M 2>&1)
[ "$(grep -c '^vnpu: ' <<<"$out")" = 1 ] || fail "newline in value: one line: $out"
grep -qF "vnpu: env: NPU_MEM_QUOTA = '10\\x0avnpu: forged': " <<<"$out" || fail "newline escaped: $out"
# the region path must be absolute and fit
for v in relative/vnpu_local_shmem "$(printf '/%.0s' $(seq 600))"; do
  out=$(NPU_LOCAL_SHM_PATH=$v NPU_MEM_QUOTA=1024 burn --alloc-via rt alloc 1M 2>&1)
  [ "$(grep -c '^vnpu: ' <<<"$out")" = 1 ] || fail "NPU_LOCAL_SHM_PATH: one line: $out"
  expect_line "$out" "^vnpu: env: NPU_LOCAL_SHM_PATH = '.*': (not an absolute path|longer than 511 bytes)$REFUSED" "bad path"
  expect_line "$out" "^alloc fail code=207001 " "bad path refused"
done
# accepted: 0 (no memory limit, HAMi's meaning), leading zeros, a weight with a fraction
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=0 NPU_PRIORITY=12.5 VNPU_DEVICE_COUNT=01 VNPU_COMPUTE_CAP_PCT=100 \
      burn --alloc-via rt alloc 40G 2>&1)
[ "$out" = "$(grep '^alloc ok size=42949672960 ' <<<"$out")" ] || fail "valid values: $out"
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=0001024 burn --alloc-via rt alloc 1G alloc 1 2>&1)
expect_line "$out" "^alloc fail code=207001 size=1 " "leading zeros: 1024 MiB"
# a malformed env does not matter where the region already exists (the region's limits apply)
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=10Gi burn --alloc-via rt alloc 1G alloc 1 2>&1)
expect_line "$out" "^alloc ok size=$GIB " "existing region: its limit"
[ "$(grep -c '^vnpu: ' <<<"$out")" = 0 ] || fail "existing region: no line: $out"

# inert: a process that never calls the runtime creates nothing and logs nothing
new_region
out=$(NPU_LOCAL_SHM_PATH=$R NPU_MEM_QUOTA=1024 LD_PRELOAD="$LIB" /bin/sh -c 'echo hello' 2>&1)
[ "$out" = hello ] || fail "inert process output: $out"
[ -e "$R" ] && fail "inert process created the region"

echo "test_limiter: $fails failure(s)"
[ "$fails" -eq 0 ]
