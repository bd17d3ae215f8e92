#!/usr/bin/env bash
# RSS of the node agent (`vnpu plugin --simulate`) after startup, registered with a kubelet
# Registration stand-in. Prints "agent_rss_kib=N registered=K settle_s=S" (VmRSS from /proc after
# the settle time) and the agent's VmHWM (peak RSS).
# The JVM runs with the chart's JVM flags (benchmarks/chart-jvm-flags.sh: deploy/helm/vnpu/values.yaml),
# or with VNPU_JVM_FLAGS when set; and in the chart's environment for the JVM (MALLOC_ARENA_MAX,
# benchmarks/chart-jvm-flags.sh --env), or VNPU_JVM_ENV when set. VNPU_RSS_NMT=1 adds
# -XX:NativeMemoryTracking=summary and prints where the memory goes (jcmd VM.native_memory summary). VNPU_RSS_CLASSES=1 logs class loading
# (-Xlog:class+load) and prints the loaded classes counted by package prefix.
# Usage: benchmarks/measure-agent-rss.sh [SETTLE_SECONDS]   (needs benchmarks/target/benchmarks.jar
#        and the CLI jar; ./vnpu builds the latter)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
settle=${1:-20}
dir=$(mktemp -d)
kpid=""; apid=""
cleanup() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && { wait "$apid" 2>/dev/null || true; }
  [ -n "$kpid" ] && kill "$kpid" 2>/dev/null && { wait "$kpid" 2>/dev/null || true; }
  rm -rf "$dir"
}
trap cleanup EXIT
mkdir -p "$dir/kubelet"
java -cp "$root/benchmarks/target/benchmarks.jar" io.vnpu.benchmarks.deviceplugin.KubeletRegistrationStandIn \
  "$dir/kubelet" > "$dir/kubelet.log" 2>&1 &
kpid=$!
for _ in $(seq 1 300); do grep -q '^serving' "$dir/kubelet.log" && break; sleep 0.1; done
grep -q '^serving' "$dir/kubelet.log" || { echo "kubelet stand-in did not start"; cat "$dir/kubelet.log"; exit 1; }
jar="$root/vnpu-kube-adapter/cli/target/vnpu-cli-0.1.0-SNAPSHOT-all.jar"
[ -f "$jar" ] || "$root/vnpu" --version > /dev/null
flags=${VNPU_JVM_FLAGS:-$("$root/benchmarks/chart-jvm-flags.sh")}
[ "${VNPU_RSS_NMT:-0}" = 1 ] && flags="$flags -XX:NativeMemoryTracking=summary"
[ "${VNPU_RSS_CLASSES:-0}" = 1 ] && flags="$flags -Xlog:class+load=info:file=$dir/classes.log"
jvm_env=${VNPU_JVM_ENV:-$("$root/benchmarks/chart-jvm-flags.sh" --env)}
echo "jvm flags: $flags; env: $jvm_env"
JAVA_TOOL_OPTIONS="$flags" env $jvm_env java -Dvnpu.native.dir="$root/native/build" -Dvnpu.repo.dir="$root" -jar "$jar" plugin --simulate \
  --config_file "$root/config/device-config.yaml" --node_config_file "$root/config/node-config.yaml" \
  --node_name bench-node --kubelet-dir "$dir/kubelet" > "$dir/agent.log" 2>&1 &
apid=$!
for _ in $(seq 1 600); do grep -q '^registered' "$dir/kubelet.log" && break; sleep 0.1; done
sleep "$settle"
kill -0 "$apid" 2>/dev/null || { echo "agent exited"; cat "$dir/agent.log"; exit 1; }
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$apid/status")
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$apid/status")
threads=$(awk '/^Threads/ {print $2}' "/proc/$apid/status")
# CPU the agent used up to here (user + system, from /proc/PID/stat), and how long it took from
# its start to the kubelet's Registration call
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
echo "agent_rss_kib=$rss agent_peak_rss_kib=$hwm registered=$(grep -c '^registered' "$dir/kubelet.log") threads=$threads cpu_ms=$cpu_ms settle_s=$settle"
grep '^registered' "$dir/kubelet.log" | sed 's/^/  /'
echo "agent log (first lines):"; head -n 15 "$dir/agent.log" | sed 's/^/  /'
