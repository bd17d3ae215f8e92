#!/usr/bin/env bash
# Accuracy suite of the compute limiter (issue 23), on the simulated CANN runtime.
#
# Every share is the simulator's ground truth: the device time each process's tasks occupied inside
# one window [t1, t2] (CLOCK_MONOTONIC), from the per-process task rings (VNPU_SIM_TASK_RING=1,
# `cann-sim-busy --window`), the same window for every party of a scenario and exact whatever work is
# still queued; never the limiter's own counters. Each scenario has its own simulated host (its own
# NPU), so scenarios run in parallel; each must be within TOL (5) pp of its target. A scenario that
# misses is measured once more before it fails (a loaded 2-core machine can starve a saturating
# workload of CPU); both results are printed.
#
# Scenarios: caps 10/25/50 %; weights 1:3; cap 50 % with 10 us kernels (the launch path's batches); weights 1:3 with an 8-stream weight-1 container, steady and
# its first 5 s after the weight-3 one was alone; 200 ms and 1 s graph executions under cap 10 % and
# under weights 1:3; a 1 ms-on/9 ms-off neighbour next to a saturating one (the saturating one gets
# what the other leaves); 2000 distinct kernel keys under cap 10 %; 2/4/8/16 equal slices on one NPU;
# a container forked mid-launch (its idle child must not keep it busy); four processes of one
# container at cap 10 % whose first launches stall on the host. Sharing policies
# (docs/sharing-policies.md): each alone; elastic 25 % next to fixed-share 50 %; best-effort next to two
# busy guaranteed slices that use everything, that leave 30 %, and next to two light ones; an elastic
# slice giving back what it borrowed (the give-back time is printed and bounded).
#
# Prints "result NAME share=S% target=T% error=Epp" per measurement (run-bench.sh collects them).
# VNPU_ACCURACY_PRELOAD runs the suite against another build of libvnpu.so (what it catches in an
# older limiter: docs/compute-registry.md, "Accuracy suite").
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
PRELOAD=${VNPU_ACCURACY_PRELOAD:-$B/libvnpu.so}
TOOL=$B/limiter/registry_tool
BURN=$B/npu-burn
BUSY=$B/cann-sim-busy
PAT=$B/limiter/compute_patterns
TOL=5
# Expected failures, one line each with the reason (issue 23): scenario name -> reason
declare -A XFAIL=(
)
export VNPU_SIM_TASK_RING=1 VNPU_SIM_QUIET=1
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT NPU_LOCAL_SHM_PATH LD_PRELOAD

now() { "$BUSY" --now; }
ms_after() { echo $(($1 + $2 * 1000000)); }

# --- per scenario: a fresh simulated host with its registry; containers are quota regions made and
# registered as the node agent would (registry_tool), and where the registry has an agent-side
# publisher of the containers' use (`registry_tool agent`), it runs for the scenario as the node
# agent's would ---
AGENTS=()
HAS_AGENT=0
"$TOOL" 2>&1 | grep -q ' agent PATH' && HAS_AGENT=1
# setup DIR: VNPU_SIM_ROOT and REG for the scenario in DIR
setup() {
  local d=$1
  rm -rf "$d/sim" "$d/reg" "$d/c"; mkdir -p "$d/sim" "$d/reg" "$d/c"
  "$TOOL" create "$d/reg/npu0.reg" 0 > /dev/null || { echo "cannot create registry in $d"; return 1; }
  if [ "$HAS_AGENT" = 1 ]; then
    "$TOOL" agent "$d/reg/npu0.reg" > "$d/agent.out" 2> "$d/agent.err" &
    AGENTS+=($!)
    for _ in $(seq 250); do grep -qs 'agent publishing' "$d/agent.out" && break; sleep 0.02; done
  fi
}
# waits for the scenario's workloads (never for its publishers)
waitall() {
  local p a skip
  for p in $(jobs -p); do
    skip=0; for a in "${AGENTS[@]}"; do [ "$p" = "$a" ] && skip=1; done
    [ "$skip" = 1 ] || wait "$p" 2> /dev/null
  done
}
stop_agents() { [ ${#AGENTS[@]} -eq 0 ] || kill "${AGENTS[@]}" 2> /dev/null; AGENTS=(); }
# container DIR NAME WEIGHT CAP PRIO [POLICY]: its region (logical device 0 = NPU 0), registered;
# POLICY fixed-share|elastic|best-effort (docs/sharing-policies.md), default none (weight and cap as given)
container() {
  local d=$1 name=$2
  mkdir -p "$d/c/$name"
  "$TOOL" region "$d/c/$name/vnpu_local_shmem" "$d/reg" 0 "$3" "$4" "$5" 0 "${6:-none}" > /dev/null &&
    "$TOOL" register "$d/reg/npu0.reg" "$d/c/$name/vnpu_local_shmem" > /dev/null
}
# in DIR NAME CMD...: runs CMD as container NAME (exec: $! of "in ... &" is the workload's PID)
in_c() {
  local d=$1 name=$2; shift 2
  VNPU_SIM_ROOT=$d/sim LD_PRELOAD=$PRELOAD NPU_LOCAL_SHM_PATH=$d/c/$name/vnpu_local_shmem exec "$@"
}
# used DIR T1 T2 PID...: device ns the PIDs used inside [T1, T2] (ground truth)
used() {
  local d=$1 t1=$2 t2=$3; shift 3
  local out
  out=$(VNPU_SIM_ROOT=$d/sim "$BUSY" --window "$t1" "$t2") || { echo "ERR"; echo "$out" >&2; return; }
  echo "$out" | awk -v pids=" $* " '$1 == "window" {
      for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (index(pids, " " v["pid"] " ")) s += v["busy_ns"] } END { printf "%.0f\n", s }'
}
pct() { awk -v b="$1" -v t1="$2" -v t2="$3" 'BEGIN { if (b == "ERR") print "nan"; else printf "%.2f", 100 * b / (t2 - t1) }'; }
# sleep_until T: sleeps until CLOCK_MONOTONIC ns T
sleep_until() { local n; n=$(now); [ "$1" -gt "$n" ] && sleep "$(awk -v a="$1" -v b="$n" 'BEGIN { printf "%.3f", (a - b) / 1e9 }')"; return 0; }

# A scenario writes "m NAME SHARE TARGET" lines to $d/out (one per measured party).
m() { echo "m $1 $2 $3" >> "$OUT"; }

# --- scenarios: sc_NAME DIR ---
sc_caps() {
  local d=$1 pids=() t1 t2 c
  for c in 10 25 50; do
    mkdir -p "$d/$c"; setup "$d/$c"; container "$d/$c" a 1 "$c" 1
    (in_c "$d/$c" a "$BURN" burn 1000 4 > /dev/null) & pids+=($!)
  done
  t1=$(ms_after "$(now)" 1000); t2=$(ms_after "$t1" 2000)
  sleep_until "$t2"
  for c in 10 25 50; do
    local p; p=$(VNPU_SIM_ROOT=$d/$c/sim "$BUSY" | sed -n 's/^busy pid=\([0-9]*\) .*/\1/p' | head -n1)
    m "cap$c" "$(pct "$(used "$d/$c" "$t1" "$t2" "$p")" "$t1" "$t2")" "$c"
  done
  kill "${pids[@]}" 2> /dev/null; waitall
}

# two containers of weights WA:WB saturating; A with THREADS streams
weights_pair() {
  local d=$1 name=$2 threads=$3
  setup "$d" || return
  container "$d" a 1 0 1; container "$d" b 3 0 1
  in_c "$d" a "$BURN" --threads "$threads" burn 1000 5 > /dev/null & local pa=$!
  in_c "$d" b "$BURN" burn 1000 5 > /dev/null & local pb=$!
  local t1 t2; t1=$(ms_after "$(now)" 1500); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  m "$name-w1" "$(pct "$(used "$d" "$t1" "$t2" "$pa")" "$t1" "$t2")" 25
  m "$name-w3" "$(pct "$(used "$d" "$t1" "$t2" "$pb")" "$t1" "$t2")" 75
  kill "$pa" "$pb" 2> /dev/null; waitall
}
sc_weights() { weights_pair "$1" weights 1; }

# kernels of a few microseconds: the launch path's batches (compute.c: charges below BATCH_CHARGE_NS
# are summed per thread, and launches the open batch admits are decided on the fast path without
# reading the clock or the container's word). Cap 50 % with 10 us kernels (charge 20 us each), from
# one thread and from four (whose batches see each other's late), each on its own simulated host. A
# 300 ms window, both read at once: the simulator's task ring (262,144 tasks per process, 5 s of
# these: 65,536 held 1.3 s, which a loaded host could take to start the reader) must still hold the
# window's first task when it is read
sc_small_kernels() {
  local d=$1
  mkdir -p "$d/cap" "$d/cap4"
  setup "$d/cap" || return; setup "$d/cap4" || return
  container "$d/cap" a 1 50 1; container "$d/cap4" a 1 50 1
  in_c "$d/cap" a "$BURN" burn 10 4 > /dev/null & local pc=$!
  in_c "$d/cap4" a "$BURN" --threads 4 burn 10 4 > /dev/null & local pc4=$!
  local t1 t2; t1=$(ms_after "$(now)" 1500); t2=$(ms_after "$t1" 300)
  sleep_until "$t2"
  local r=()
  used "$d/cap" "$t1" "$t2" "$pc" > "$d/u.cap" & r+=($!)
  used "$d/cap4" "$t1" "$t2" "$pc4" > "$d/u.cap4" & r+=($!)
  wait "${r[@]}"
  m small-cap50 "$(pct "$(cat "$d/u.cap")" "$t1" "$t2")" 50
  m small-cap50-4threads "$(pct "$(cat "$d/u.cap4")" "$t1" "$t2")" 50
  kill "$pc" "$pc4" 2> /dev/null; waitall
}
sc_streams8() { weights_pair "$1" streams8 8; }

# four processes of one container (one quota region, one GCRA word per device) at cap 10 %, 1 ms
# kernels: together they get the cap, as one process would. Each process's first launch spends 30 ms
# on the host before its kernel is queued (VNPU_SIM_FIRST_LAUNCH_NS: a runtime's lazy set-up, or a
# loaded host preempting the launching thread): a measurement bracket around it must not be taken
# as the kernel's cost (it was: 0.1-6 % on a loaded host, compute.c bracket_stalled)
sc_procs4_cap() {
  local d=$1
  setup "$d" || return
  container "$d" a 1 10 1
  VNPU_SIM_FIRST_LAUNCH_NS=30000000 in_c "$d" a "$BURN" --procs 4 burn 1000 5 > "$d/a.out" & local pa=$!
  local t1 t2; t1=$(ms_after "$(now)" 1500); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  local pids; pids=$(VNPU_SIM_ROOT=$d/sim "$BUSY" | sed -n 's/^busy pid=\([0-9]*\) .*/\1/p' | sort -u | tr '\n' ' ')
  local all="" p
  for p in $pids; do all="$all $(pct "$(used "$d" "$t1" "$t2" "$p")" "$t1" "$t2")"; done
  echo "result procs4-cap10 each=[${all# }]"
  # shellcheck disable=SC2086
  m procs4-cap10 "$(pct "$(used "$d" "$t1" "$t2" $pids)" "$t1" "$t2")" 10
  kill "$pa" 2> /dev/null; waitall
}

# the 8-stream weight-1 container alone for 1 s (without a queue bound it would queue 8 x 64 kernels),
# then the weight-3 container wakes up: the first 5 s of both, and how long the waking container's
# first kernel waited behind what the other had queued
sc_streams8_first() {
  local d=$1
  setup "$d" || return
  container "$d" a 1 0 1; container "$d" b 3 0 1
  in_c "$d" a "$BURN" --threads 8 burn 1000 7 > /dev/null & local pa=$!
  sleep 1
  local t1; t1=$(now)
  in_c "$d" b "$BURN" launch 1000 1 burn 1000 5 > "$d/b.out" & local pb=$!
  local t2; t2=$(ms_after "$t1" 5000)
  sleep_until "$t2"
  m streams8-first5s-w1 "$(pct "$(used "$d" "$t1" "$t2" "$pa")" "$t1" "$t2")" 25
  m streams8-first5s-w3 "$(pct "$(used "$d" "$t1" "$t2" "$pb")" "$t1" "$t2")" 75
  wait "$pb"; kill "$pa" 2> /dev/null; waitall
  # the waking container's first kernel (1 ms) waited behind the other's queue: at most the burst
  # (20 ms) plus a kernel or two, with slack for a loaded host (without the bound: 0.5 s and more)
  local w; w=$(sed -n 's/^launch done .*event_ns=\([0-9]*\).*/\1/p' "$d/b.out" | head -n1)
  echo "result streams8-first-kernel-wait ms=$(awk -v w="${w:-0}" 'BEGIN { printf "%.1f", w / 1e6 }') max=60"
  [ -n "$w" ] && [ "$w" -le 60000000 ] || echo "m streams8-first-kernel-wait 100 0" >> "$OUT"
}

# nth_task DIR PID N: start (ns) of the process's N-th task (1 = first), waiting for it up to 30 s
nth_task() {
  local t=""
  for _ in $(seq 600); do
    t=$(VNPU_SIM_ROOT=$1/sim "$BUSY" --pid "$2" --tasks | sed -n "${3}s/.* start_ns=\([0-9]*\).*/\1/p")
    [ -n "$t" ] && break; sleep 0.05
  done
  echo "${t:-0}"
}

# cap 10 % with graph executions of MS ms (10 tasks each; one device task per execution). The window
# starts with the first execution and lasts PERIODS of the charge (execution / 10 %): a periodic
# signal, so it holds PERIODS executions exactly when each is charged in full. (The first execution's
# cost is measured when it completes; a second one admitted before that is charged then: the wait
# after it is twice as long, and PERIODS >= 2 covers it.)
graph_cap() {
  local d=$1 ms=$2 periods=$3
  setup "$d" || return
  container "$d" g 1 10 1
  local period=$((ms * 10)) n=$((periods + 2))
  in_c "$d" g "$BURN" model 10 $((ms * 100)) "$n" > /dev/null & local pg=$!
  local t1 t2; t1=$(( $(nth_task "$d" "$pg" 1) - 1000000 )); t2=$(ms_after "$t1" $((period * periods)))
  sleep_until "$t2"
  m "graph${ms}ms-cap10" "$(pct "$(used "$d" "$t1" "$t2" "$pg")" "$t1" "$t2")" 10
  echo "execution starts (ms after the first): $(VNPU_SIM_ROOT=$d/sim "$BUSY" --pid "$pg" --tasks |
    awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } if (!t0) t0 = v["start_ns"]
           printf "%d ", (v["start_ns"] - t0) / 1e6 }')"
  kill "$pg" 2> /dev/null; waitall
}
sc_graph200_cap() { graph_cap "$1" 200 3; }
sc_graph1000_cap() { graph_cap "$1" 1000 2; }

# weights 1:3: the weight-1 container executes MS ms graphs, the weight-3 one saturates with 1 ms kernels
graph_weights() {
  local d=$1 ms=$2 window=$3
  setup "$d" || return
  container "$d" g 1 0 1; container "$d" k 3 0 1
  in_c "$d" k "$BURN" burn 1000 $(((window + ms * 4) / 1000 + 3)) > /dev/null & local pk=$!
  in_c "$d" g "$BURN" model 10 $((ms * 100)) 100 > /dev/null & local pg=$!
  local t1 t2; t1=$(ms_after "$(now)" $((ms * 4 + 300))); t2=$(ms_after "$t1" "$window")
  sleep_until "$t2"
  m "graph${ms}ms-w1" "$(pct "$(used "$d" "$t1" "$t2" "$pg")" "$t1" "$t2")" 25
  m "graph${ms}ms-w3" "$(pct "$(used "$d" "$t1" "$t2" "$pk")" "$t1" "$t2")" 75
  kill "$pg" "$pk" 2> /dev/null; waitall
}
sc_graph200_weights() { graph_weights "$1" 200 4000; }
sc_graph1000_weights() { graph_weights "$1" 1000 8000; }

# a light neighbour (weight 3, 1 ms on / 9 ms off) next to a saturating weight-1 container: the
# saturating one gets what the light one leaves
sc_light_neighbour() {
  local d=$1
  setup "$d" || return
  container "$d" a 1 0 1; container "$d" b 3 0 1
  in_c "$d" b "$BURN" --seconds 5 launch 1000 1 sleep 9 > /dev/null & local pb=$!
  in_c "$d" a "$BURN" burn 1000 5 > /dev/null & local pa=$!
  local t1 t2; t1=$(ms_after "$(now)" 1000); t2=$(ms_after "$t1" 3000)
  sleep_until "$t2"
  local ua ub; ua=$(used "$d" "$t1" "$t2" "$pa"); ub=$(used "$d" "$t1" "$t2" "$pb")
  local left; left=$(awk -v b="$(pct "$ub" "$t1" "$t2")" 'BEGIN { printf "%.2f", 100 - b }')
  m light-neighbour "$(pct "$ua" "$t1" "$t2")" "$left"
  kill "$pa" "$pb" 2> /dev/null; waitall
}

# 2000 distinct kernel keys (10 us), then 1 ms kernels under 2000 further keys, cap 10 %
sc_keys() {
  local d=$1
  setup "$d" || return
  container "$d" k 1 10 1
  (in_c "$d" k "$PAT" keys 3 > "$d/k.out")
  local line p t1 t2; line=$(grep '^pattern done' "$d/k.out")
  p=$(echo "$line" | sed -n 's/.* pid=\([0-9]*\).*/\1/p')
  t1=$(echo "$line" | sed -n 's/.* phase2_start_ns=\([0-9]*\).*/\1/p')
  t2=$(echo "$line" | sed -n 's/.* phase2_end_ns=\([0-9]*\).*/\1/p')
  [ -n "$t1" ] || { m keys2000-cap10 nan 10; return; }
  t1=$(ms_after "$t1" 500) # past the 20 ms burst and the first measurements
  m keys2000-cap10 "$(pct "$(used "$d" "$t1" "$t2" "$p")" "$t1" "$t2")" 10
}

# N equal slices (weight 1 each, saturating) on one NPU: 100 / N % each
slices() {
  local d=$1 n=$2 pids=() i
  setup "$d" || return
  for i in $(seq "$n"); do container "$d" "s$i" 1 0 1; done
  for i in $(seq "$n"); do (in_c "$d" "s$i" "$BURN" burn 1000 7 > /dev/null) & pids+=($!); done
  # a loaded host takes a while to start 16 processes: the window opens 2 s after the last one
  # launched (a late starter's first spans queue behind everybody's work: its estimate settles)
  for p in "${pids[@]}"; do nth_task "$d" "$p" 1 > /dev/null; done
  local t1 t2; t1=$(ms_after "$(now)" 2000); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  local target; target=$(awk -v n="$n" 'BEGIN { printf "%.2f", 100 / n }')
  # every slice's share; the worst one is judged, the spread printed
  local all="" worst="" werr=-1
  for p in "${pids[@]}"; do
    local s; s=$(pct "$(used "$d" "$t1" "$t2" "$p")" "$t1" "$t2")
    all="$all $s"
    local e; e=$(awk -v a="$s" -v t="$target" 'BEGIN { d = a - t; if (d < 0) d = -d; print (a == "nan") ? 1000 : d }')
    if awk -v e="$e" -v w="$werr" 'BEGIN { exit !(e > w) }'; then werr=$e; worst=$s; fi
  done
  echo "result slices$n all=[${all# }]"
  m "slices$n-worst" "$worst" "$target"
  kill "${pids[@]}" 2> /dev/null; waitall
}
sc_slices2() { slices "$1" 2; }
sc_slices4() { slices "$1" 4; }
sc_slices8() { slices "$1" 8; }
sc_slices16() { slices "$1" 16; }

# a container (weight 1) forks while one of its threads is inside a launch; the parent exits, the
# child launched once and then idles: the other container (weight 1) must get the whole device, and
# the forked container's activity time must stop moving
sc_fork() {
  local d=$1
  setup "$d" || return
  container "$d" a 1 0 1; container "$d" b 1 0 1
  VNPU_SIM_STREAM_DEPTH=1 in_c "$d" a "$PAT" fork-mid-launch 5 > "$d/a.out" & local pa=$!
  sleep 1
  in_c "$d" b "$BURN" burn 1000 4 > /dev/null & local pb=$!
  local t1 t2; t1=$(ms_after "$(now)" 800); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  m fork-mid-launch-neighbour "$(pct "$(used "$d" "$t1" "$t2" "$pb")" "$t1" "$t2")" 100
  # the forked container's activity time (what neighbours read: device 0's last_launch_ns, region
  # offset 4096 + 88) must be older than the activity window
  local act nw; act=$(od -An -tu8 -j4184 -N8 "$d/c/a/vnpu_local_shmem" | tr -d ' ')
  nw=$(now)
  local age=$(( (nw - ${act:-0}) / 1000000 ))
  echo "result fork-mid-launch activity-age-ms=$age (child idle; must be > 1000)"
  [ "$age" -gt 1000 ] || echo "m fork-mid-launch-activity-age 0 100" >> "$OUT"
  kill "$pb" 2> /dev/null; waitall
}

# --- sharing policies (issue 28, docs/sharing-policies.md): shares are percent, the weight is the share;
# a fixed-share slice's region has no cap of its own (the policy makes its share the cap) ---
# each policy alone on its own NPU: fixed-share 25 % stays at 25 %; elastic 25 % and best-effort get the chip
sc_policy_alone() {
  local d=$1 pids=() t1 t2 pol
  for pol in fixed-share elastic best-effort; do
    mkdir -p "$d/$pol"; setup "$d/$pol" || return; container "$d/$pol" a 25 0 1 "$pol"
    (in_c "$d/$pol" a "$BURN" burn 1000 4 > /dev/null) & pids+=($!)
  done
  t1=$(ms_after "$(now)" 1000); t2=$(ms_after "$t1" 2000)
  sleep_until "$t2"
  for pol in fixed-share elastic best-effort; do
    local p target=100; [ "$pol" = fixed-share ] && target=25
    p=$(VNPU_SIM_ROOT=$d/$pol/sim "$BUSY" | sed -n 's/^busy pid=\([0-9]*\) .*/\1/p' | head -n1)
    m "$pol-25-alone" "$(pct "$(used "$d/$pol" "$t1" "$t2" "$p")" "$t1" "$t2")" "$target"
  done
  kill "${pids[@]}" 2> /dev/null; waitall
}

# elastic 25 % next to a busy fixed-share 50 %: 50 / 50
sc_policy_elastic_fixed() {
  local d=$1
  setup "$d" || return
  container "$d" e 25 0 1 elastic; container "$d" f 50 0 1 fixed-share
  in_c "$d" e "$BURN" burn 1000 5 > /dev/null & local pe=$!
  in_c "$d" f "$BURN" burn 1000 5 > /dev/null & local pf=$!
  local t1 t2; t1=$(ms_after "$(now)" 1500); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  m elastic25-next-to-fixed50 "$(pct "$(used "$d" "$t1" "$t2" "$pe")" "$t1" "$t2")" 50
  m fixed50-next-to-elastic25 "$(pct "$(used "$d" "$t1" "$t2" "$pf")" "$t1" "$t2")" 50
  kill "$pe" "$pf" 2> /dev/null; waitall
}

# best-effort next to two busy guaranteed slices: G1 G2 are "POLICY:SHARE"; its target is what they
# leave (100 - their shares, at least 0)
policy_best_effort() {
  local d=$1 name=$2 g1=$3 g2=$4
  setup "$d" || return
  container "$d" b 100 0 1 best-effort
  container "$d" g1 "${g1#*:}" 0 1 "${g1%%:*}"; container "$d" g2 "${g2#*:}" 0 1 "${g2%%:*}"
  in_c "$d" g1 "$BURN" burn 1000 5 > /dev/null & local p1=$!
  in_c "$d" g2 "$BURN" burn 1000 5 > /dev/null & local p2=$!
  in_c "$d" b "$BURN" burn 1000 5 > /dev/null & local pb=$!
  local t1 t2; t1=$(ms_after "$(now)" 1500); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  local s1=${g1#*:} s2=${g2#*:} left
  left=$(( 100 - s1 - s2 )); [ "$left" -lt 0 ] && left=0
  m "$name-best-effort" "$(pct "$(used "$d" "$t1" "$t2" "$pb")" "$t1" "$t2")" "$left"
  m "$name-${g1%%:*}$s1" "$(pct "$(used "$d" "$t1" "$t2" "$p1")" "$t1" "$t2")" "$s1"
  m "$name-${g2%%:*}$s2" "$(pct "$(used "$d" "$t1" "$t2" "$p2")" "$t1" "$t2")" "$s2"
  kill "$p1" "$p2" "$pb" 2> /dev/null; waitall
}
# they use everything (elastic 25 + 75): nothing left; they do not (fixed 30 + 40): the 30 % they leave
sc_policy_be_full() { policy_best_effort "$1" be-full elastic:25 elastic:75; }
sc_policy_be_left() { policy_best_effort "$1" be-left fixed-share:30 fixed-share:40; }

# best-effort next to two light elastic slices (1 ms on / 9 ms off each): what they leave unused
sc_policy_be_light() {
  local d=$1
  setup "$d" || return
  container "$d" b 100 0 1 best-effort; container "$d" l1 25 0 1 elastic; container "$d" l2 25 0 1 elastic
  in_c "$d" l1 "$BURN" --seconds 5 launch 1000 1 sleep 9 > /dev/null & local p1=$!
  in_c "$d" l2 "$BURN" --seconds 5 launch 1000 1 sleep 9 > /dev/null & local p2=$!
  in_c "$d" b "$BURN" burn 1000 5 > /dev/null & local pb=$!
  local t1 t2; t1=$(ms_after "$(now)" 1500); t2=$(ms_after "$t1" 2500)
  sleep_until "$t2"
  local ul; ul=$(used "$d" "$t1" "$t2" "$p1" "$p2")
  local left; left=$(awk -v b="$(pct "$ul" "$t1" "$t2")" 'BEGIN { printf "%.2f", 100 - b }')
  echo "result be-light lights-used=$(pct "$ul" "$t1" "$t2")%"
  m be-light-best-effort "$(pct "$(used "$d" "$t1" "$t2" "$pb")" "$t1" "$t2")" "$left"
  kill "$p1" "$p2" "$pb" 2> /dev/null; waitall
}

# elastic gives back: an elastic 25 % slice has the chip alone (borrowing), then a fixed-share 50 %
# slice starts. Give-back time: from the fixed slice's first task to the start of the first 100 ms
# window (20 ms steps) in which it has its share (>= 50 - TOL %); bounded by GIVE_BACK_MAX_MS. Then
# both must hold 50 % over 2 s (a loaded host's later dips of single windows show in the series only)
GIVE_BACK_MAX_MS=200
sc_policy_reclaim() {
  local d=$1
  setup "$d" || return
  container "$d" e 25 0 1 elastic; container "$d" f 50 0 1 fixed-share
  in_c "$d" e "$BURN" burn 1000 6 > /dev/null & local pe=$!
  local t0 tb; t0=$(ms_after "$(now)" 500)
  sleep 1.5
  tb=$(now)
  in_c "$d" f "$BURN" burn 1000 4 > /dev/null & local pf=$!
  m elastic25-alone-borrows "$(pct "$(used "$d" "$t0" "$tb" "$pe")" "$t0" "$tb")" 100
  local f1; f1=$(nth_task "$d" "$pf" 1)
  local t1 t2; t1=$(ms_after "$f1" 1000); t2=$(ms_after "$t1" 2000)
  sleep_until "$t2"
  local back=-1 w s series=""
  for w in $(seq 0 20 600); do
    s=$(pct "$(used "$d" "$(ms_after "$f1" "$w")" "$(ms_after "$f1" $((w + 100)))" "$pf")" 0 100000000)
    series="$series $s"
    if [ "$back" -lt 0 ] && awk -v s="$s" -v t=$((50 - TOL)) 'BEGIN { exit !(s >= t) }'; then back=$w; fi
  done
  echo "fixed 50 % share per 100 ms window, every 20 ms from its first task:$series"
  echo "result elastic-give-back ms=$back max=$GIVE_BACK_MAX_MS (first 100 ms window with the fixed slice at 50 % - $TOL pp)"
  [ "$back" -ge 0 ] && [ "$back" -le "$GIVE_BACK_MAX_MS" ] || echo "m elastic-give-back-ms 100 0" >> "$OUT"
  m elastic25-after-give-back "$(pct "$(used "$d" "$t1" "$t2" "$pe")" "$t1" "$t2")" 50
  m fixed50-after-give-back "$(pct "$(used "$d" "$t1" "$t2" "$pf")" "$t1" "$t2")" 50
  kill "$pe" "$pf" 2> /dev/null; waitall
}

# --- run: groups in parallel (each scenario on its own simulated NPU), then judge ---
run_scenario() { # NAME -> $TMP/NAME/out
  local name=$1 try=$2 d=$TMP/$1.$2
  mkdir -p "$d"
  OUT=$d/out; : > "$OUT"
  "sc_$name" "$d" > "$d/log" 2>&1
  stop_agents
  cat "$d/log" | grep '^result ' || true
}

ALL=(graph1000_cap graph1000_weights caps weights streams8 streams8_first graph200_cap graph200_weights
     light_neighbour keys small_kernels slices2 slices4 slices8 slices16 fork procs4_cap
     policy_alone policy_elastic_fixed policy_be_full policy_be_left policy_be_light policy_reclaim)
# long ones first; at most 4 scenarios at once (2 CPUs; most of their time is spent waiting)
GROUPS_=("graph1000_cap graph1000_weights caps weights" "streams8 streams8_first"
         "graph200_cap graph200_weights light_neighbour" "keys slices2 slices4 procs4_cap" "small_kernels" "slices8 fork" "slices16"
         "policy_alone policy_elastic_fixed policy_reclaim" "policy_be_full policy_be_left policy_be_light")
# VNPU_ACCURACY_ONLY="name ...": only these scenarios, all at once (development)
if [ -n "${VNPU_ACCURACY_ONLY:-}" ]; then
  read -r -a ALL <<< "$VNPU_ACCURACY_ONLY"; GROUPS_=("$VNPU_ACCURACY_ONLY")
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
run_group() { # scenarios run in parallel; the long ones of group 1 overlap the next groups
  for s in $1; do run_scenario "$s" "$2" & done
}
run_group "${GROUPS_[0]}" 1
for g in "${GROUPS_[@]:1}"; do
  # wait for everything but the two long scenarios of group 1
  while [ "$(jobs -rp | wc -l)" -gt 2 ]; do sleep 0.2; done
  run_group "$g" 1
done
wait

judge() { # FILE -> lines "NAME SHARE TARGET ERR OK"
  awk -v tol="$TOL" '$1 == "m" { d = $3 - $4; if ($3 == "nan") d = 1000; ad = d < 0 ? -d : d
      printf "%s %s %s %+.2f %d\n", $2, $3, $4, d, ad <= tol }' "$1"
}
fails=0
for s in "${ALL[@]}"; do
  res=$(judge "$TMP/$s.1/out")
  if [ -z "$res" ] || echo "$res" | grep -q ' 0$'; then
    echo "retry $s: $(echo "$res" | awk '!$5 { printf "%s=%s%% (target %s%%) ", $1, $2, $3 }')(load $(cut -d' ' -f1 /proc/loadavg))"
    run_scenario "$s" 2
    res=$(judge "$TMP/$s.2/out")
  fi
  [ -n "$res" ] || { echo "FAIL: $s produced no measurement: $(tail -n 5 "$TMP/$s."*/log)"; fails=$((fails + 1)); continue; }
  while read -r name share target err ok; do
    echo "result $name share=$share% target=$target% error=${err}pp"
    key=${s}
    if [ "$ok" != 1 ]; then
      if [ -n "${XFAIL[$key]:-}" ]; then
        echo "XFAIL $name: ${XFAIL[$key]}"
      else
        echo "FAIL: $name: $share% not within $TOL pp of $target%"; fails=$((fails + 1))
      fi
    elif [ -n "${XFAIL[$key]:-}" ]; then
      echo "XPASS $name: expected to fail (${XFAIL[$key]}) but passed: remove it from XFAIL"
    fi
  done <<< "$res"
done
echo "wall: $(( $(date +%s) - start )) s, load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "test_compute_accuracy: ok"
