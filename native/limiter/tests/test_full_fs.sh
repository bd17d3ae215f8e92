#!/usr/bin/env bash
# Issue 23, full file system: every container directory lies on one host file system, and a tenant
# can fill it from its own directory. A region the agent or the limiter made has a block for every
# byte, so its processes keep their quota while the tenant fills the file system; a region that cannot
# get its blocks (the limiter building one on a full file system, a sparse legacy region) is refused
# with one line — never a SIGBUS. Needs root for a private mount namespace with a 4 MiB tmpfs.
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
  echo "skipped: needs root and unshare -m (private mount namespace for a small tmpfs)"
  exit 0
fi
export VNPU_SIM_ROOT="$TMP/sim" VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT NPU_LOCAL_SHM_PATH LD_PRELOAD
mkdir -p "$VNPU_SIM_ROOT" "$TMP/fs"
cat > "$TMP/inner.sh" <<'INNER'
set -u
fs=$TMP/fs; lib=$B/libvnpu.so; burn=$B/npu-burn
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
blocks() { echo $(( $(stat -c '%b * %B' "$1") )); }
mount -t tmpfs -o size=4M tmpfs "$fs" || { echo "FAIL: mount tmpfs"; exit 1; }
mkdir -p "$fs/c/agent" "$fs/c/self" "$fs/c/late" "$fs/c/legacy" "$fs/c/attacker"
# a region as the agent writes it (C agent tooling; the Java agent's is RegionAllocationTest) and
# one the limiter builds from the env on a process's first call
"$B/limiter/registry_tool" region "$fs/c/agent/r" "$fs" 0 100 0 1 1024 >/dev/null || fail "agent region"
LD_PRELOAD=$lib NPU_LOCAL_SHM_PATH=$fs/c/self/r NPU_MEM_QUOTA=1024 "$burn" --alloc-via rt alloc 1M >/dev/null 2>&1
for r in agent self; do
  [ "$(blocks "$fs/c/$r/r")" -ge 139264 ] || fail "$r region is sparse: $(blocks "$fs/c/$r/r") bytes allocated"
done
# a legacy sparse region (what an older agent left: header and last page only)
"$B/limiter/registry_tool" region "$fs/c/legacy/r" "$fs" 0 100 0 1 1024 >/dev/null
fallocate -p -o 4096 -l $((139264 - 8192)) "$fs/c/legacy/r"
# a neighbour keeps allocating, freeing and launching while the tenant fills the file system
LD_PRELOAD=$lib NPU_LOCAL_SHM_PATH=$fs/c/agent/r "$burn" --alloc-via rt --seconds 3 churn 1 1M 64M launch 100 20 \
  >"$TMP/neighbour.out" 2>&1 &
nb=$!
sleep 0.5
dd if=/dev/zero of="$fs/c/attacker/fill" bs=64k 2>/dev/null
[ "$(df -k --output=avail "$fs" | tail -1 | tr -d ' ')" = 0 ] || fail "file system not full"
wait $nb; rc=$?
[ $rc = 0 ] || fail "neighbour exit status $rc (135 = SIGBUS): $(tail -3 "$TMP/neighbour.out")"
grep -q '^churn done' "$TMP/neighbour.out" || fail "neighbour churn: $(cat "$TMP/neighbour.out")"
# (the compute part may say it coordinates with nobody: no registry here; that is not about the region)
grep -q '^vnpu: quota region' "$TMP/neighbour.out" && fail "neighbour logged: $(grep '^vnpu: ' "$TMP/neighbour.out")"
# new processes of both containers: their whole quota, no line
for r in agent self; do
  out=$(LD_PRELOAD=$lib NPU_LOCAL_SHM_PATH=$fs/c/$r/r "$burn" --alloc-via rt alloc 1G alloc 1 2>&1); rc=$?
  [ $rc = 0 ] || fail "$r: exit status $rc (135 = SIGBUS): $out"
  grep -q '^alloc ok size=1073741824 ' <<<"$out" || fail "$r: quota after the fill: $out"
  grep -q '^alloc fail code=207001 size=1 ' <<<"$out" || fail "$r: limit after the fill: $out"
  grep -q '^vnpu: quota region' <<<"$out" && fail "$r: logged: $out"
done
# the limiter cannot build a region on the full file system: one line, device memory refused
out=$(LD_PRELOAD=$lib NPU_LOCAL_SHM_PATH=$fs/c/late/r NPU_MEM_QUOTA=1024 "$burn" --alloc-via rt alloc 1M 2>&1); rc=$?
[ $rc = 0 ] || fail "late: exit status $rc: $out"
[ "$(grep -c '^vnpu: ' <<<"$out")" = 1 ] || fail "late: one line: $out"
grep -q "^vnpu: quota region $fs/c/late/r: allocate 139264 bytes: No space left on device (no space); device memory allocations of this process are refused (207001)$" <<<"$out" ||
  fail "late: line: $out"
grep -q '^alloc fail code=207001 ' <<<"$out" || fail "late: refused: $out"
# the legacy sparse region cannot be completed: refused with one line, no SIGBUS
out=$(LD_PRELOAD=$lib NPU_LOCAL_SHM_PATH=$fs/c/legacy/r "$burn" --alloc-via rt alloc 1M 2>&1); rc=$?
[ $rc = 0 ] || fail "legacy: exit status $rc (135 = SIGBUS): $out"
grep -q "^vnpu: quota region $fs/c/legacy/r: allocate 139264 bytes: No space left on device (no space); device memory allocations of this process are refused (207001)$" <<<"$out" ||
  fail "legacy: line: $out"
# once there is room again, the legacy region is completed on open and used
rm -f "$fs/c/attacker/fill"
out=$(LD_PRELOAD=$lib NPU_LOCAL_SHM_PATH=$fs/c/legacy/r "$burn" --alloc-via rt alloc 1G alloc 1 2>&1)
grep -q '^alloc ok size=1073741824 ' <<<"$out" && grep -q '^alloc fail code=207001 size=1 ' <<<"$out" || fail "legacy completed: $out"
[ "$(blocks "$fs/c/legacy/r")" -ge 139264 ] || fail "legacy region still sparse"
umount "$fs"
echo "test_full_fs: $fails failure(s)"
[ "$fails" = 0 ]
INNER
B=$B TMP=$TMP unshare -m --propagation private bash "$TMP/inner.sh"
