#!/usr/bin/env bash
# Issue 23: what containers on one NPU know of each other is the agent's registry, read-only, and
# nothing in it can be locked or leased into hurting a neighbour.
#  1. reproducer 19 (repro/19_registry_dir_lock_dos.sh): a uid-65534 process with only the read-only
#     registry mount opens and read-locks everything it sees there: the registry directory holds the
#     registry alone; the victim still gets all its memory, a killed process's charge is reclaimed,
#     the agent's exclusive config lock, registrations and publications all go through.
#  2. root in its own mount namespace (no user namespace: it owns root's files) tries a file lease on
#     the registry through its read-only mount: refused while the agent holds it open; a neighbour's
#     limiter opens it and runs at its share meanwhile.
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
HERE=$(cd "$(dirname "$0")" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if [ "$(id -u)" != 0 ] || ! command -v unshare > /dev/null || ! command -v setpriv > /dev/null; then
  echo "test_tenant_isolation: skipped: needs root, unshare(1) and setpriv(1) for the tenant's mount namespace"
  exit 0
fi
out=$(NATIVE="$HERE/../.." BUILD=$(cd "$B" && pwd) bash "$HERE/repro/19_registry_dir_lock_dos.sh" 2>&1)
echo "$out" | sed 's/^/  19| /'
[ "$(echo "$out" | sed -n '/^--- what every container sees/{n;p}')" = npu0.reg ] || fail "the registry directory holds more than the registry"
echo "$out" | grep -q 'whole-file read lock held' || fail "the attacker did not even get its read lock (test broken)"
[ "$(echo "$out" | grep -c '^alloc ok size=536870912')" = 3 ] || fail "a victim process was refused memory"
echo "$out" | grep -q '^alloc ok size=838860800' || fail "victim process A was refused its 800 MiB"
echo "$out" | grep -q 'agent LOCK_CONFIG (exclusive): acquired' || fail "the agent's config lock was blocked"
echo "$out" | grep -q 'agent registration while locked: ok' || fail "registration was blocked"
pubs=$(echo "$out" | sed -n 's/^agent publications while locked: \([0-9]*\).*/\1/p')
[ "${pubs:-0}" -gt 0 ] || fail "the agent stopped publishing under the tenant's locks"

# --- 2: a root tenant's lease on the registry, a neighbour starting meanwhile ---
export VNPU_SIM_ROOT=$TMP/lease/sim VNPU_SIM_QUIET=1
REG=$TMP/lease/reg
mkdir -p "$REG" "$VNPU_SIM_ROOT" "$TMP/lease/ro" "$TMP/lease/c"
"$B/limiter/registry_tool" create "$REG/npu0.reg" 0
"$B/limiter/registry_tool" agent "$REG/npu0.reg" > "$TMP/lease/agent.out" &
agent=$!
trap 'kill $agent 2>/dev/null' EXIT
for _ in $(seq 100); do grep -qs 'agent publishing' "$TMP/lease/agent.out" && break; sleep 0.02; done
"$B/limiter/registry_tool" region "$TMP/lease/c/n" "$REG" 0 1 50 1 > /dev/null
"$B/limiter/registry_tool" register "$REG/npu0.reg" "$TMP/lease/c/n" > /dev/null
lease=$(unshare -m sh -c "mount --make-rprivate / && mount --bind -o ro '$REG' '$TMP/lease/ro' && exec python3 -c '
import errno, fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
for kind, name in ((fcntl.F_WRLCK, \"write\"), (fcntl.F_RDLCK, \"read\")):
    try:
        fcntl.fcntl(fd, 1024, kind); print(name + \" lease held\")
    except OSError as e:
        print(name + \" lease refused (\" + errno.errorcode[e.errno] + \")\")
' '$TMP/lease/ro/npu0.reg'" 2>&1)
echo "$lease" | sed 's/^/  lease| /'
echo "$lease" | grep -q 'lease held' && fail "a tenant holds a lease on the registry: $lease"
echo "$lease" | grep -q 'write lease refused' || fail "the lease attempt did not run: $lease"
start=$(date +%s%N)
line=$(LD_PRELOAD=$B/libvnpu.so NPU_LOCAL_SHM_PATH=$TMP/lease/c/n "$B/npu-burn" launch 1000 300 2>&1 | grep '^launch done')
ms=$((($(date +%s%N) - start) / 1000000))
busy=$(echo "$line" | sed -n 's/.* busy_ns=\([0-9]*\).*/\1/p'); wall=$(echo "$line" | sed -n 's/.* wall_ns=\([0-9]*\).*/\1/p')
share=$(awk -v b="${busy:-0}" -v w="${wall:-1}" 'BEGIN { printf "%.1f", 100 * b / w }')
echo "result neighbour-after-lease-attempt share=$share% target=50% wall=${ms}ms"
awk -v s="$share" 'BEGIN { exit !(s >= 42 && s <= 58) }' || fail "neighbour share $share% not 50 +- 8 %"
[ "$ms" -lt 20000 ] || fail "the neighbour took ${ms} ms"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "test_tenant_isolation: ok"
