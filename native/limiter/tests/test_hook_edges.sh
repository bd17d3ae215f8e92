#!/usr/bin/env bash
# The hooked rtMalloc/rtFree pair's rare paths, out of line since issue 23's straight-line hooks:
# unknown frees, an address handed out again while still held (replaced key), a failing real free,
# pointer-table growth (hook_edges.c, on the tenant-style runtime libhuge_runtime.so).
set -u
b=$VNPU_NATIVE_BUILD; t=$VNPU_TEST_TMP
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT LD_PRELOAD
out=$(LD_PRELOAD=$b/libvnpu.so:$b/limiter/libhuge_runtime.so NPU_LOCAL_SHM_PATH=$t/vnpu_local_shmem \
  NPU_MEM_QUOTA=4096 VNPU_DEVICE_COUNT=1 timeout 60 "$b/limiter/hook_edges" 2>&1)
rc=$?
echo "$out"
want="unknown ok
replaced ok
failed ok
growth ok"
if [ $rc -ne 0 ] || [ "$out" != "$want" ]; then
  echo "FAIL: test_hook_edges (exit $rc)"
  exit 1
fi
echo "test_hook_edges: ok"
