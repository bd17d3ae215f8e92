# Sourced by every reproducer (copied from the shared reproducers and adapted to registry v3: the
# agent's publisher runs as `registry_tool agent`). NATIVE = a built native/ (default: ./native, run
# from the project root after `make -C native`).
N=${NATIVE:-$PWD/native}; B=${BUILD:-$N/build}
LIB=$B/libvnpu.so; TOOL=$B/limiter/registry_tool; BURN=$B/npu-burn
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=$(mktemp -d /tmp/limrepro.XXXXXX)
export VNPU_SIM_ROOT=$T/sim VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
mkdir -p "$VNPU_SIM_ROOT"
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT NPU_LOCAL_SHM_PATH LD_PRELOAD
# cc_rt NAME [extra flags]: builds $HERE/NAME.c against the simulated libruntime.so into $T/NAME
cc_rt() { cc -std=c11 -O1 -g -Wall -D_GNU_SOURCE -I"$N/include" -I"$N/limiter" -o "$T/$1" "$HERE/$1.c" \
            -L"$B" -lruntime -Wl,-rpath,"$B" -lpthread "${@:2}"; }
# registry + its publishing agent (the node agent's publisher; stopped when the script exits)
AGENT=
mk_registry() { mkdir -p "$T/reg"; "$TOOL" create "$T/reg/npu0.reg" 0
                "$TOOL" agent "$T/reg/npu0.reg" > "$T/agent.out" 2> "$T/agent.err" & AGENT=$!
                trap 'kill $AGENT 2>/dev/null' EXIT
                for _ in $(seq 100); do grep -qs 'agent publishing' "$T/agent.out" && break; sleep 0.02; done; }
# waits for every background job but the agent
waitall() { local p; for p in $(jobs -p); do [ "$p" = "$AGENT" ] || wait "$p"; done; }
# a quota region whose logical device 0 is NPU 0, registered by the agent (entry + member table)
mk_region() { mkdir -p "$T/c/$1"; "$TOOL" region "$T/c/$1/vnpu_local_shmem" "$T/reg" 0 "$2" "$3" "$4" ${5:+"$5"} | sed -n 's/^key=//p'
              "$TOOL" register "$T/reg/npu0.reg" "$T/c/$1/vnpu_local_shmem" >/dev/null; }
