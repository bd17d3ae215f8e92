#!/usr/bin/env bash
# Copied from the shared reproducers (registry v3: the agent publisher runs). Expected: 25 / 75 % +-5 pp.
# D15: weights 1:3 (target 25 / 75 %). The weight-1 container runs N launcher threads (one stream
# each), the weight-3 container one. A container counts as busy only if its hook refreshed
# last_launch_ns in the last 200 ms; while its launcher is blocked inside the runtime (stream queue
# full because the neighbour's flood sits ahead on the device), it looks idle, so the neighbour's
# share jumps to 100 % (unthrottled) and it floods again. Also prints how often the weight-1
# container's limiter saw share_ppm = 1000000 (sampled every 20 ms).
set -u; . "$(dirname "$0")/common.sh"
share() { awk '{for(i=1;i<=NF;i++){split($i,x,"=");v[x[1]]=x[2]} b+=v["busy_ns"]; if(v["wall_ns"]>w)w=v["wall_ns"]} END{printf "%.1f%%", 100*b/w}'; }
for ta in 1 4 8; do
  rm -rf "$T/reg" "$T/c"; mk_registry
  ka=$(mk_region a 1 0 1); mk_region b 3 0 1 >/dev/null
  LD_PRELOAD=$LIB NPU_LOCAL_SHM_PATH=$T/c/a/vnpu_local_shmem "$BURN" --threads $ta burn 1000 5 2>/dev/null | grep '^burn done' > "$T/a" &
  LD_PRELOAD=$LIB NPU_LOCAL_SHM_PATH=$T/c/b/vnpu_local_shmem "$BURN" --threads 1 burn 1000 5 2>/dev/null | grep '^burn done' > "$T/b" &
  full=0; n=0
  for i in $(seq 200); do
    "$TOOL" dump "$T/reg/npu0.reg" 2>/dev/null | grep -q "key=$ka .*share_ppm=1000000" && full=$((full+1)); n=$((n+1)); sleep 0.02
  done
  waitall
  echo "weight 1 x $ta stream(s): $(share < "$T/a")   weight 3 x 1 stream: $(share < "$T/b")   (target 25 / 75)   weight-1 unthrottled in $full/$n samples"
done
