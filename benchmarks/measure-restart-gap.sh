#!/usr/bin/env bash
# The gap a device-plugin upgrade leaves on a node (maxSurge 0: old plugin stopped, then the new
# one started): the node agent (`vnpu plugin --simulate`) is started against a kubelet Registration
# stand-in, stopped with SIGTERM and started again, ROUNDS times. Prints per round the time from
# SIGTERM to exit (stop_ms) and from exec to the kubelet's first Register call (start_ms), and
# their sum (gap_ms): the plugin's own share of the gap, without the pod's termination and
# creation by the kubelet and the container runtime.
# Usage: benchmarks/measure-restart-gap.sh [ROUNDS]   (needs benchmarks/target/benchmarks.jar and
#        the CLI jar; ./vnpu builds the latter)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
dir=$(mktemp -d)
kpid=""; apid=""
cleanup() {
  [ -n "$apid" ] && kill "$apid" 2>/dev/null && wait "$apid" 2>/dev/null
  [ -n "$kpid" ] && kill "$kpid" 2>/dev/null && wait "$kpid" 2>/dev/null
  if [ -n "${KEEP:-}" ]; then echo "logs kept in $dir"; else rm -rf "$dir"; fi
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
now_ms() { date +%s%3N; }
start_agent() {
  java -Dvnpu.native.dir="$root/native/build" -Dvnpu.repo.dir="$root" -jar "$jar" plugin --simulate \
    --config_file "$root/config/device-config.yaml" --node_config_file "$root/config/node-config.yaml" \
    --node_name bench-node --kubelet-dir "$dir/kubelet" >> "$dir/agent.log" 2>&1 &
  apid=$!
}
registered() { grep -c '^registered' "$dir/kubelet.log" || true; }
before=$(registered); t0=$(now_ms); start_agent
for _ in $(seq 1 3000); do [ "$(registered)" -gt "$before" ] && break; sleep 0.05; done
echo "round 0 start_ms=$(( $(now_ms) - t0 ))"
for r in $(seq 1 "$rounds"); do
  kill -0 "$apid" 2>/dev/null || { echo "agent exited before round $r:"; tail -n 20 "$dir/agent.log"; exit 1; }
  t0=$(now_ms); kill -TERM "$apid"; wait "$apid" 2>/dev/null || true; stop=$(( $(now_ms) - t0 ))
  before=$(registered); t0=$(now_ms); start_agent
  for _ in $(seq 1 3000); do [ "$(registered)" -gt "$before" ] && break; sleep 0.05; done
  [ "$(registered)" -gt "$before" ] || { echo "round $r: no registration"; tail -n 20 "$dir/agent.log"; exit 1; }
  start=$(( $(now_ms) - t0 ))
  echo "round $r stop_ms=$stop start_ms=$start gap_ms=$(( stop + start ))"
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
