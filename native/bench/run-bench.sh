#!/usr/bin/env bash
# Every native row of docs/benchmarks.md in one run (about 3 minutes on 2 CPUs): builds native/, then
# writes into OUT_DIR (default native/build/bench-results)
#   limiter.json        vnpu-bench: per-call cost hooked vs plain (interleaved in one process: the
#                       judged figures; and per process, with the HAMi-style baselines), compute
#                       limiting off and on (two slices on one registry), 8-process admission
#   usage-scan.txt      the floor under the Java 256-slot usage snapshot (bench_usage_scan)
#   compute-share.json  achieved AI-core shares (absolute error, pp) from the compute limiter's scenario
#                       script and its accuracy suite (issue 23) on the simulated runtime
#   machine.txt         nproc, lscpu, free -h, load average before and after, compiler
#   summary.txt         the figures each goal is judged by (also printed at the end)
# Usage: native/bench/run-bench.sh [OUT_DIR] [vnpu-bench args...]   (default args: --rounds 5)
#        native/bench/run-bench.sh --rounds 5                       (OUT_DIR may be left out)
set -eu
command -v jq >/dev/null || { echo "run-bench.sh: jq not found: install jq (apt-get install jq)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/build/bench-results
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then out=$1; shift; fi
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--rounds 5)
mkdir -p "$out"
out=$(cd "$out" && pwd)
start=$(date +%s)
make -s -C "$here" all
build=$here/build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{ echo "date: $(date -u +%FT%TZ)"; echo "nproc: $(nproc)"; echo "load before: $(cat /proc/loadavg)"; lscpu; free -h;
  cc --version | head -n1; uname -r; } > "$out/machine.txt"

VNPU_NATIVE_BUILD=$build VNPU_TEST_TMP=$tmp "$build/bench/vnpu-bench" "${args[@]}" > "$out/limiter.json"
echo "limiter: $out/limiter.json"

"$build/limiter/bench_usage_scan" > "$out/usage-scan.txt"
echo "usage scan floor: $out/usage-scan.txt"

mkdir -p "$tmp/compute"
VNPU_NATIVE_BUILD=$build VNPU_TEST_TMP=$tmp/compute "$here/limiter/tests/test_compute_sim.sh" > "$tmp/compute.log" 2>&1 ||
  echo "note: test_compute_sim.sh reported failures (see below); shares are still recorded" >&2
mkdir -p "$tmp/accuracy"
VNPU_NATIVE_BUILD=$build VNPU_TEST_TMP=$tmp/accuracy "$here/limiter/tests/test_compute_accuracy.sh" >> "$tmp/compute.log" 2>&1 ||
  echo "note: test_compute_accuracy.sh reported failures; shares are still recorded" >&2
cp "$tmp/compute.log" "$out/compute.log"
# "result NAME share=S% target=T% error=Epp" lines (NAME may hold spaces and quotes; the equal-slices
# scenarios report their worst slice so) -> JSON; scenarios marked expected-fail
# ("XFAIL NAME: reason") are left out of the error figure (their reason is in the suite's log)
xfail=$(sed -n 's/^XFAIL \([^:]*\):.*/\1/p' "$tmp/compute.log" | sort -u)
grep '^result ' "$tmp/compute.log" | { if [ -n "$xfail" ]; then grep -v -F -w -e "$xfail"; else cat; fi; } |
  jq -R -s '
    [split("\n")[] | select(test("^result .+ share=[-0-9.na]+% target=[0-9.]+% error=")) |
      capture("^result (?<n>.+) share=(?<s>[-0-9.na]+)% target=(?<t>[0-9.]+)% error=(?<e>[-+0-9.na]+)pp") |
      {scenario: .n, share_pct: (.s | tonumber? // null), target_pct: (.t | tonumber),
       error_pp: (.e | ltrimstr("+") | tonumber? // null)}] as $one |
    {scenarios: $one, max_abs_error_pp: ([$one[].error_pp | select(. != null) | if . < 0 then -. else . end] | max)}
  ' > "$out/compute-share.json"
echo "compute share: $out/compute-share.json"
echo "load after: $(cat /proc/loadavg)" >> "$out/machine.txt"

# the figures the goals are judged by (issue 29, issue 23); medians over the rounds
jq -r --slurpfile cs "$out/compute-share.json" '
  .interleaved as $i | .contention.quota_region as $q |
  "launch hook, compute off:  \($i.launch_off_ratio.median)x plain, \($i.launch_off_added_ns.median) ns added (goal <= 1.05x and <= +10 ns)",
  "launch hook, compute on:   \($i.launch_on_ratio.median)x plain, \($i.launch_on_added_ns.median) ns added (goal <= 1.3x; two slices on one registry)",
  "alloc+free pair:           \($i.alloc_free_added_ns.median) ns added, \($i.alloc_free_ratio.median)x plain (goal <= +50 ns); floor: its 7 atomic read-modify-writes alone \($i.alloc_free_atomics_floor_ns.median) ns",
  "admission, 8 processes:    admit p50 \($q.admit_p50_ns) ns / p99 \($q.admit_p99_ns) ns, refusal (over the limit, no wait) p50 \($q.refuse_p50_ns) ns / p99 \($q.refuse_p99_ns) ns (goal p99 <= 50000 ns)",
  "                           refused \($q.refused): over the limit \($q.refused_over_limit), false (pending bytes still in the way at the wait bound: contended-timeout) \($q.refused_contended_timeout) (goal 0); reaped \($q.reaped); over-commit \($q.over_commit_bytes) B (goal 0 B)",
  "                           waited for pending charges \($q.waited) (then admitted \($q.waited_admitted), refused over the limit \($q.waited_refused - $q.refused_contended_timeout), timed out \($q.refused_contended_timeout)), contended wait p50 \($q.contended_wait_p50_ns) ns / p99 \($q.contended_wait_p99_ns) ns / max \($q.contended_wait_max_ns) ns",
  "compute share accuracy:    max |error| \($cs[0].max_abs_error_pp) pp over \($cs[0].scenarios | length) scenarios (goal <= 5 pp)"
' "$out/limiter.json" > "$out/summary.txt"
sed 's/^/  /' "$out/usage-scan.txt" >> "$out/summary.txt"
echo "machine: $(nproc) CPUs; $(grep '^load' "$out/machine.txt" | tr '\n' ';') run took $(( $(date +%s) - start )) s" >> "$out/summary.txt"
cat "$out/summary.txt"
