#!/usr/bin/env bash
# Prints the JVM flags the Helm chart gives the agent (JAVA_TOOL_OPTIONS of
# deploy/helm/vnpu/templates/daemonset.yaml from the jvm: block of deploy/helm/vnpu/values.yaml),
# so the RSS scripts measure what a node runs. With --env it prints the environment the chart gives
# the agent's JVM instead (MALLOC_ARENA_MAX=N from jvm.mallocArenaMax).
# Usage: benchmarks/chart-jvm-flags.sh [--env]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
awk -v want="${1:-flags}" '
  /^jvm:/ { in_jvm = 1; next }
  in_jvm && /^[^ #]/ { in_jvm = 0 }
  in_jvm && /^  [a-zA-Z]+:/ {
    key = $1; sub(":", "", key); val = $0; sub(/^[^:]*: */, "", val); gsub(/"/, "", val); v[key] = val
  }
  END {
    if (want == "--env") printf "MALLOC_ARENA_MAX=%s\n", v["mallocArenaMax"]
    else printf "-Xmx%s -XX:MaxMetaspaceSize=%s %s\n", v["maxHeap"], v["maxMetaspace"], v["extraOptions"]
  }
' "$root/deploy/helm/vnpu/values.yaml"
