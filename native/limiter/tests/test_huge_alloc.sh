#!/usr/bin/env bash
# An allocation the pointer table cannot record (2^56 bytes or more: its entries are packed into 16
# bytes) under a limit that admits it (2^57 bytes) and from a tenant's own runtime that grants it
# (huge_runtime.c): it must be refused before the runtime sees it, never run uncounted (the limiter
# would otherwise release its charge and the tenant would hold bytes its quota never sees). Sizes
# just below the bound are charged and released exactly.
set -u
b=$VNPU_NATIVE_BUILD; t=$VNPU_TEST_TMP
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT LD_PRELOAD
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
limit=$((1 << 57))
run() {
  mkdir -p "$t/r$1"
  LD_PRELOAD=$b/libvnpu.so:$b/limiter/libhuge_runtime.so NPU_LOCAL_SHM_PATH=$t/r$1/vnpu_local_shmem \
    NPU_MEM_QUOTA=$((limit >> 20)) VNPU_DEVICE_COUNT=1 timeout 60 "$b/limiter/huge_alloc" "$2" 2>&1
}
# the largest size the table records: charged while it lives, released by the free
big=$(((1 << 56) - 1))
out=$(run 1 $big)
[ "$out" = "alloc rc=0 free=$((limit - big)) total=$limit
after free free=$limit" ] || fail "$big bytes: $out"
for bytes in $((1 << 56)) $(((1 << 56) + 4096)) $((limit)); do
  out=$(run 2 $bytes)
  [ "$out" = "alloc rc=207001 free=$limit total=$limit
after free free=$limit" ] || fail "$bytes bytes (not recordable): expected a refusal, got: $out"
done
[ "$fails" -eq 0 ] && echo "test_huge_alloc: ok"
[ "$fails" -eq 0 ]
