#!/usr/bin/env bash
# Reproducer 19 of issue 23, adapted to registry v3 (prints the fixed behaviour; the assertions are
# ../test_tenant_isolation.sh). Before: the registry directory, which every container mounts
# read-only, held a hard link to every neighbour's quota region ("activity link"); a uid-65534
# process read-locked the victim's slot lock bytes through it: the victim's new processes were
# refused all memory, a killed process's charge was never reclaimed, the agent's config write failed.
# Now the directory holds the agent's registries only. The attacker opens everything it can see
# there, read-locks all of it and tries leases; the victim and the agent are not affected.
set -u; . "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || { echo "needs root (mount namespace, setpriv)"; exit 2; }
cc -std=c11 -O1 -g -Wall -D_GNU_SOURCE -o "$T/tenant_lock" "$HERE/tenant_lock.c"
mk_registry
key=$(mk_region victim 100 0 1 1024)            # victim: 1 GiB quota, registered on NPU 0
R=$T/c/victim/vnpu_local_shmem
echo "--- what every container sees of its neighbours (the registry directory):"; ls "$T/reg"
chmod 0755 "$T" "$T/reg" "$T/tenant_lock"; mkdir -p "$T/ro"
attacker() { unshare -m bash -c "mount --make-rprivate / && mount --bind -o ro '$T/reg' '$T/ro' && exec setpriv \
  --reuid=65534 --regid=65534 --clear-groups '$T/tenant_lock' '$T/ro' $1"; }
vburn() { LD_PRELOAD=$LIB NPU_LOCAL_SHM_PATH=$R "$BURN" --alloc-via rt --meminfo-via rtMemGetInfoEx "$@" 2>&1 | sed "s|$T|<tmp>|g"; }
echo "--- control: victim: meminfo, alloc 512 MiB"; vburn meminfo alloc 512M

echo "=== the attacker opens and read-locks everything in the registry directory"
attacker 6 > "$T/att.out" 2>&1 & att=$!
sleep 0.5; cat "$T/att.out"
echo "--- a new victim process: meminfo, alloc 512 MiB"
vburn meminfo alloc 512M
LD_PRELOAD=$LIB NPU_LOCAL_SHM_PATH=$R "$BURN" --alloc-via rt alloc 800M sleep 60000 > "$T/a.out" 2>&1 & a=$!
for _ in $(seq 100); do grep -q 'alloc ok' "$T/a.out" && break; sleep 0.05; done
head -1 "$T/a.out" | sed 's/ ptr=.*//'
kill -9 $a; wait $a 2>/dev/null; echo "victim process A (800 MiB) killed -9"
echo "--- victim process B: meminfo, alloc 512 MiB (A's 800 MiB reclaimed)"
vburn meminfo alloc 512M
python3 - "$R" <<'PY'
import fcntl, os, sys, errno
fd = os.open(sys.argv[1], os.O_RDWR)   # the node agent's QuotaRegion.updateConfig: exclusive LOCK_CONFIG first
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, (1 << 30) + 1); print("agent LOCK_CONFIG (exclusive): acquired")
except OSError as e:
    print("agent LOCK_CONFIG (exclusive): refused (%s)" % errno.errorcode[e.errno])
PY
"$TOOL" register "$T/reg/npu0.reg" "$R" > /dev/null && echo "agent registration while locked: ok"
c=$("$TOOL" dump "$T/reg/npu0.reg" | sed -n 's/^pub_count=//p'); sleep 0.2
c2=$("$TOOL" dump "$T/reg/npu0.reg" | sed -n 's/^pub_count=//p')
echo "agent publications while locked: $((c2 - c)) in 0.2 s"
waitall
