#!/usr/bin/env bash
# fork() never hangs with the limiter active (issue 12): test_fork_stress (limiter compiled in) for a
# few seconds against a quota region with compute limiting on (cap 50 %, so the measurement thread
# publishes) and a memory quota.
set -euo pipefail
b=$VNPU_NATIVE_BUILD; t=$VNPU_TEST_TMP
export VNPU_SIM_ROOT=$t/sim VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
mkdir -p "$VNPU_SIM_ROOT" "$t/reg" "$t/c"
unset LD_PRELOAD NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT
"$b/limiter/registry_tool" create "$t/reg/npu0.reg" 0
"$b/limiter/registry_tool" region "$t/c/region" "$t/reg" 0 100 50 1 >/dev/null
export NPU_LOCAL_SHM_PATH=$t/c/region
"$b/limiter/test_fork_stress" "${VNPU_FORK_STRESS_SECONDS:-3}"
echo "test_fork: ok"
