#!/usr/bin/env bash
# Copied from the shared reproducers (registry v3). The registry is read-only in containers now; even
# truncated by its owner under a running agent, the victim keeps running at its own cap.
# D1a: any container truncates the shared per-NPU compute registry (/hami-shared-region/npuN.reg,
# mounted read-write into every container, mode 0666) -> every other container launching on that
# NPU dies of SIGBUS (launch hook writes gcra_tat/last_launch; measurement thread publishes).
set -u; . "$(dirname "$0")/common.sh"
mk_registry
mk_region victim 1 50 1 >/dev/null           # victim: cap 50 %, so every launch touches the registry
ls -l "$T/reg/npu0.reg"
LD_PRELOAD=$LIB NPU_LOCAL_SHM_PATH=$T/c/victim/vnpu_local_shmem "$BURN" burn 1000 4 > "$T/victim.out" 2>&1 &
v=$!
sleep 1
truncate -s 0 "$T/reg/npu0.reg"              # the "attacker": any process of any container on the node
wait $v; rc=$?
echo "victim exit status: $rc $( [ $rc -eq 135 ] && echo '(= 128+SIGBUS)')"
cat "$T/victim.out"
