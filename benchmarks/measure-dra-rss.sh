#!/usr/bin/env bash
# RSS of the DRA kubelet plugin (`vnpu dra --simulate A3x8`: 16 NPUs) after it registered,
# published its ResourceSlice and prepared and unprepared a claim through the stand-in
# (io.vnpu.benchmarks.dra.DraStandIn: mock API server + kubelet stand-in). The JVM runs with the
# JAVA_TOOL_OPTIONS of deploy/dra/daemonset.yaml. Prints "dra_rss_kib=N dra_peak_rss_kib=M settle_s=S".
# Usage: benchmarks/measure-dra-rss.sh [SETTLE_SECONDS]   (needs benchmarks/target/benchmarks.jar
#        and the CLI jar; ./vnpu builds the latter)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
settle=${1:-20}
dir=$(mktemp -d)
spid=""; apid=""
cleanup() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid" 2>/dev/null
  [ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
java -cp "$root/benchmarks/target/benchmarks.jar" io.vnpu.benchmarks.dra.DraStandIn \
  "$dir/cluster" bench-node > "$dir/standin.log" 2>&1 &
spid=$!
for _ in $(seq 1 300); do grep -q '^API server stand-in' "$dir/standin.log" && break; sleep 0.1; done
grep -q '^API server stand-in' "$dir/standin.log" || { echo "stand-in did not start"; cat "$dir/standin.log"; exit 1; }
jar="$root/vnpu-kube-adapter/cli/target/vnpu-cli-0.1.0-SNAPSHOT-all.jar"
[ -f "$jar" ] || "$root/vnpu" --version > /dev/null
c="$dir/cluster"
JAVA_TOOL_OPTIONS="-Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=32m -XX:MaxMetaspaceSize=96m" \
VNPU_SIM_ROOT="$dir/sim" java -Dvnpu.native.dir="$root/native/build" -jar "$jar" dra --simulate A3x8 \
  --node-name bench-node --kubeconfig "$c/kubeconfig" --kubelet-registrar-directory-path "$c/plugins_registry" \
  --kubelet-plugins-directory-path "$c/plugins" --cdi-root "$c/cdi" > "$dir/agent.log" 2>&1 &
apid=$!
for _ in $(seq 1 600); do grep -q '^done' "$dir/standin.log" && break; sleep 0.1; done
grep -q '^done' "$dir/standin.log" || { echo "the stand-in did not finish"; cat "$dir/standin.log" "$dir/agent.log"; exit 1; }
sleep "$settle"
kill -0 "$apid" 2>/dev/null || { echo "plugin exited"; cat "$dir/agent.log"; exit 1; }
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$apid/status")
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$apid/status")
echo "dra_rss_kib=$rss dra_peak_rss_kib=$hwm settle_s=$settle"
grep '^kubelet\|^ResourceSlice' "$dir/standin.log" | sed 's/^/  /'
