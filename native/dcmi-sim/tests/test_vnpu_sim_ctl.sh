#!/usr/bin/env bash
# vnpu-sim-ctl and a second process agree on the shared simulated host state.
set -euo pipefail
export VNPU_SIM_ROOT="$VNPU_TEST_TMP/root" VNPU_SIM_PROFILE=910B3x8
ctl="$VNPU_NATIVE_BUILD/vnpu-sim-ctl"
[ "$("$ctl" create 1 vir10_3c_32g)" = 116 ]
[ "$("$ctl" create 1 vir10_3c_32g)" = 117 ]
if "$ctl" create 1 vir05_1c_16g 2>/dev/null; then echo "exhausted chip accepted a vNPU"; exit 1; fi
"$ctl" fault 1 0x80E01801 3
"$ctl" show | grep -q '^logic=1 phy=1 card=1 device=0 chip=910B3 health=3 dropped=0 util=0 faults=0x80E01801 vnpus=116:vir10_3c_32g:free,117:vir10_3c_32g:free$'
"$ctl" use 1 117 1
if "$ctl" destroy 1 117 2>/dev/null; then echo "destroyed an in-use vNPU"; exit 1; fi
"$ctl" destroy 1 116
"$ctl" reset
"$ctl" show | grep -q '^logic=1 .* health=0 dropped=0 util=0 faults= vnpus=$'
set +e; "$ctl" health 1 2>/dev/null; rc=$?; set -e
[ "$rc" = 2 ]
"$ctl" link 3 down
"$ctl" proc 3 77 4096
"$ctl" event 3 0x80e18005 1 3
"$ctl" show-faults | grep -q '^logic=3 link=down boot=16 resets=0 procs=77:4096 faults=0x80E18005$'
"$ctl" event 3 0x80E18005 0
"$ctl" show-faults | grep -q '^logic=3 link=down boot=16 resets=0 procs=77:4096 faults=$'
set +e; "$ctl" event 3 0x1 5 2>/dev/null; rc=$?; set -e
[ "$rc" = 2 ]
echo "vnpu-sim-ctl: ok"
