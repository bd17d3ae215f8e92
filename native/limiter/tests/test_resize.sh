#!/usr/bin/env bash
# Live resize (issue 28): test_resize (limiter compiled in) against a quota region with compute on
# (cap 50 %) and a 64 MiB memory quota, rewritten under config_seq while the workload runs.
set -euo pipefail
b=$VNPU_NATIVE_BUILD; t=$VNPU_TEST_TMP
export VNPU_SIM_ROOT=$t/sim VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
mkdir -p "$VNPU_SIM_ROOT" "$t/reg" "$t/c"
unset LD_PRELOAD NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT
"$b/limiter/registry_tool" create "$t/reg/npu0.reg" 0
"$b/limiter/registry_tool" region "$t/c/region" "$t/reg" 0 50 50 1 64 >/dev/null
export NPU_LOCAL_SHM_PATH=$t/c/region
"$b/limiter/test_resize" "${VNPU_RESIZE_RACE_SECONDS:-2}"
