#!/usr/bin/env bash
# Reproducer 20 of issue 23 (shared reproducers, adapted to the fixed design; prints, asserts nothing:
# the assertions are ../test_full_fs.sh). Every container's region lies on one host file system that
# every tenant can write to; a tenant fills it from its own directory. Regions are now fully
# allocated when created (the agent writes every byte; the limiter fallocates), so the victim keeps
# its quota; a legacy sparse region is completed on open or, on a full file system, refused with one
# line instead of SIGBUS. Run as root from the project root after `make -C native`:
#   native/limiter/tests/repro/20_shared_fs_full_sigbus.sh
set -u
N=${NATIVE:-$PWD/native}; B=$N/build
[ "$(id -u)" = 0 ] || { echo "needs root (private mount namespace + tmpfs)"; exit 2; }
T=$(mktemp -d /tmp/limrepro.XXXXXX)
export VNPU_SIM_ROOT=$T/sim VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT NPU_LOCAL_SHM_PATH LD_PRELOAD
mkdir -p "$VNPU_SIM_ROOT" "$T/fs"
cat > "$T/inner.sh" <<EOF2
set -u
LIB=$B/libvnpu.so; BURN=$B/npu-burn; TOOL=$B/limiter/registry_tool
mount -t tmpfs -o size=4M tmpfs "$T/fs"
mkdir -p "$T/fs/c/victim" "$T/fs/c/legacy" "$T/fs/c/attacker"
"\$TOOL" region "$T/fs/c/victim/r" "$T/fs" 0 1 0 1 1024 >/dev/null
"\$TOOL" region "$T/fs/c/legacy/r" "$T/fs" 0 1 0 1 1024 >/dev/null
fallocate -p -o 4096 -l \$((139264 - 8192)) "$T/fs/c/legacy/r"   # what an older agent left unallocated
for c in victim legacy; do
  echo "\$c region: \$(stat -c %s "$T/fs/c/\$c/r") bytes, \$(du -k "$T/fs/c/\$c/r" | cut -f1) KiB allocated"
done
echo "--- attacker fills the file system from its own directory"
dd if=/dev/zero of="$T/fs/c/attacker/fill" bs=64k 2>&1 | tail -1
df -k "$T/fs" | tail -1 | awk '{print "file system: " \$3 " of " \$2 " KiB used"}'
for c in victim legacy; do
  echo "--- \$c process allocates 1 MiB"
  LD_PRELOAD=\$LIB NPU_LOCAL_SHM_PATH="$T/fs/c/\$c/r" "\$BURN" --alloc-via rt alloc 1M 2>&1 | sed 's/ ptr=.*//; s|$T|<tmp>|g' | grep -v 'vnpu: compute'
  echo "\$c npu-burn exit status \${PIPESTATUS[0]} (135 = SIGBUS)"
done
umount "$T/fs"
EOF2
unshare -m --propagation private bash "$T/inner.sh"
rm -rf "$T"
