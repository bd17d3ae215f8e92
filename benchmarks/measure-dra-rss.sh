#!/usr/bin/env bash
# RSS of the DRA kubelet plugin (`vnpu dra --simulate A3x8`: 16 NPUs) after it registered,
# published its ResourceSlice and prepared and unprepared a claim through the stand-in
# (io.vnpu.benchmarks.dra.DraStandIn: mock API server + kubelet stand-in). The JVM runs with the
# JVM flags of the chart (benchmarks/chart-jvm-flags.sh: deploy/helm/vnpu/values.yaml, which
# deploy/dra/daemonset.yaml repeats), or VNPU_JVM_FLAGS when set, and its MALLOC_ARENA_MAX
# (chart-jvm-flags.sh --env), or VNPU_JVM_ENV when set; VNPU_RSS_NMT=1 adds the native
# memory summary; VNPU_RSS_CLASSES=1 logs class loading (-Xlog:class+load) and prints the loaded
# classes by package (benchmarks/classes-by-package.sh; VNPU_RSS_CLASSES_LOG=FILE keeps the log).
# VNPU_DRA_RSS_FLOOR=1 measures the floor instead (io.vnpu.benchmarks.dra.DraRssFloor: the fabric8
# client and grpc-java doing the plugin's API and socket work, from the same jar with the same flags).
# Prints "dra_rss_kib=N dra_peak_rss_kib=M threads=T cpu_ms=C settle_s=S".
# Usage: benchmarks/measure-dra-rss.sh [SETTLE_SECONDS]   (needs benchmarks/target/benchmarks.jar
#        and the CLI jar; ./vnpu builds the latter)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
settle=${1:-20}
dir=$(mktemp -d)
spid=""; apid=""
cleanup() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && { wait "$apid" 2>/dev/null || true; }
  [ -n "$spid" ] && kill "$spid" 2>/dev/null && { wait "$spid" 2>/dev/null || true; }
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
flags=${VNPU_JVM_FLAGS:-$("$root/benchmarks/chart-jvm-flags.sh")}
[ "${VNPU_RSS_NMT:-0}" = 1 ] && flags="$flags -XX:NativeMemoryTracking=summary"
[ "${VNPU_RSS_CLASSES:-0}" = 1 ] && flags="$flags -Xlog:class+load=info:file=$dir/classes.log"
jvm_env=${VNPU_JVM_ENV:-$("$root/benchmarks/chart-jvm-flags.sh" --env)}
echo "jvm flags: $flags; env: $jvm_env"
if [ "${VNPU_DRA_RSS_FLOOR:-0}" = 1 ]; then
  # the floor: the same jar and flags, only the fabric8 client and grpc-java doing the plugin's
  # API and socket work (io.vnpu.benchmarks.dra.DraRssFloor), none of the plugin's own parts
  thin="$root/benchmarks/target/benchmarks-0.1.0-SNAPSHOT.jar"
  JAVA_TOOL_OPTIONS="$flags" env $jvm_env java -cp "$jar:$thin" io.vnpu.benchmarks.dra.DraRssFloor \
    "$c/kubeconfig" "$c/plugins_registry" "$c/plugins" "$c/cdi" bench-node > "$dir/agent.log" 2>&1 &
else
  JAVA_TOOL_OPTIONS="$flags" env $jvm_env VNPU_SIM_ROOT="$dir/sim" java -Dvnpu.native.dir="$root/native/build" -jar "$jar" dra --simulate A3x8 \
    --node-name bench-node --kubeconfig "$c/kubeconfig" --kubelet-registrar-directory-path "$c/plugins_registry" \
    --kubelet-plugins-directory-path "$c/plugins" --cdi-root "$c/cdi" > "$dir/agent.log" 2>&1 &
fi
apid=$!
for _ in $(seq 1 600); do grep -q '^done' "$dir/standin.log" && break; sleep 0.1; done
grep -q '^done' "$dir/standin.log" || { echo "the stand-in did not finish"; cat "$dir/standin.log" "$dir/agent.log"; exit 1; }
sleep "$settle"
kill -0 "$apid" 2>/dev/null || { echo "plugin exited"; cat "$dir/agent.log"; exit 1; }
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$apid/status")
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$apid/status")
threads=$(awk '/^Threads/ {print $2}' "/proc/$apid/status")
# CPU the plugin used up to here (user + system, from /proc/PID/stat)
cpu_ms=$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%d", ($12 + $13) * 1000 / hz }' "/proc/$apid/stat")
if [ "${VNPU_RSS_NMT:-0}" = 1 ]; then
  jcmd "$apid" VM.native_memory summary | grep -E '^(Total|-  *[A-Za-z ]+ \(reserved)|^ *\(threads? ' | sed 's/^/  nmt: /'
  echo "  largest mappings by RSS (KiB):"
  awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 == "" ? "[anon]" : $6) } /^Rss:/ { rss[name] += $2 }
       END { for (n in rss) printf "%8d %s\n", rss[n], n }' "/proc/$apid/smaps" | sort -rn | head -n 8 | sed 's/^/    /'
  echo "  threads:"; jcmd "$apid" Thread.print | grep '^"' | sed -E 's/^"([^"]*)".*/\1/; s/[0-9]+/N/g' | sort | uniq -c | sort -rn | sed 's/^/    /'
fi
if [ "${VNPU_RSS_CLASSES:-0}" = 1 ]; then
  "$root/benchmarks/classes-by-package.sh" "$dir/classes.log"
  [ -n "${VNPU_RSS_CLASSES_LOG:-}" ] && cp "$dir/classes.log" "$VNPU_RSS_CLASSES_LOG"
fi
echo "dra_rss_kib=$rss dra_peak_rss_kib=$hwm threads=$threads cpu_ms=$cpu_ms settle_s=$settle"
grep '^kubelet\|^ResourceSlice' "$dir/standin.log" | sed 's/^/  /'
