#!/usr/bin/env bash
# NodePrepareResources against DraPrepareBenchmark's plugin (DraPrepareServe: the same set-up) with the
# kubelet's side outside the JVM: benchmarks/dra-prepare-h2.py, HTTP/2 with prior knowledge over the
# plugin's unix socket, one connection, a new claim per round (prepared, then unprepared; the prepares
# timed). Prints p50 / p90 / p99 of the prepares and of an empty NodePrepareResources (gRPC alone) after
# WARM rounds of warm-up. VNPU_SERVE_JVM_FLAGS: the plugin JVM's flags (e.g. "$(benchmarks/chart-jvm-flags.sh)").
# Usage: benchmarks/dra-prepare-h2.sh [disk|tmpfs] [whole|soft] [ROUNDS] [WARM]   (default tmpfs whole 3000 20000)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
on=${1:-tmpfs} share=${2:-whole} rounds=${3:-3000} warm=${4:-20000}
jar="$root/benchmarks/target/benchmarks.jar"
[ -f "$jar" ] || { echo "dra-prepare-h2.sh: $jar missing: mvn -B -DskipTests package -pl benchmarks -am" >&2; exit 2; }
work=$(mktemp -d)
# shellcheck disable=SC2086 # the flags are words
java ${VNPU_SERVE_JVM_FLAGS:-} -cp "$jar" io.vnpu.benchmarks.dra.DraPrepareServe "$on" "$share" \
  > "$work/serve.out" 2> "$work/serve.err" &
serve=$!
trap 'kill $serve 2>/dev/null; wait $serve 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 600); do [ -s "$work/serve.out" ] && break; sleep 0.1; done
sock=$(head -n 1 "$work/serve.out")
[ -S "$sock" ] || { echo "dra-prepare-h2.sh: no socket: $(cat "$work/serve.out" "$work/serve.err")" >&2; exit 1; }
echo "plugin: DraPrepareServe $on $share, JVM flags: ${VNPU_SERVE_JVM_FLAGS:-(none)}; load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$root/benchmarks/dra-prepare-h2.py" "$sock" "$rounds" "$warm"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
