#!/usr/bin/env bash
# Reproducer 25 of issue 23 (copied from the shared reproducers; registry v3: the agent publisher runs).
# Expected now: A gets what B leaves (+-5 pp). Run from the project root after `make -C native`.
# N5 (turn 3): work conservation holds only against neighbours idle for a whole activity window
# (200 ms). A neighbour that launched anything within the window counts as busy and keeps its full
# weighted share reserved, used or not; the rest of the device idles. A (weight 1) saturates with 1 ms
# kernels; B (weight 3) either bursts 1 ms on / 9 ms off (a light inference server) or launches one
# 10 us kernel every 150 ms (costs B nothing). Expected for A: what B leaves (~90 % / ~100 %).
set -u; . "$(dirname "$0")/common.sh"
mk_registry
mk_region a 1 0 1 >/dev/null; mk_region b 3 0 1 >/dev/null
run() { local c=$1; shift; LD_PRELOAD=$LIB NPU_LOCAL_SHM_PATH=$T/c/$c/vnpu_local_shmem "$BURN" "$@" 2>/dev/null; }
a_share() { grep '^burn done' | sed -n 2p | awk '{for(i=1;i<=NF;i++){split($i,x,"=");v[x[1]]=x[2]}} END{printf "%.1f %%", 100*v["busy_ns"]/v["wall_ns"]}'; }
b_used() { awk '/^launch done/{for(i=1;i<=NF;i++){split($i,x,"=");v[x[1]]=x[2]} b+=v["busy_ns"]} END{printf "%.2f %%", 100*b/5e9}' "$T/b"; }
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A alone (B registered, idle):                 $(run a burn 1000 1 burn 1000 3 burn 1000 1 | a_share)"
for pat in "launch 1000 1 sleep 9" "launch 10 1 sleep 150"; do
  run b --seconds 5 $pat > "$T/b" & sleep 0.5
  a=$(run a burn 1000 1 burn 1000 3 burn 1000 1 | a_share); waitall
  printf 'B "%s": B used %s, A got %s (weighted share if B saturated: 25 %%)\n' "$pat" "$(b_used)" "$a"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
