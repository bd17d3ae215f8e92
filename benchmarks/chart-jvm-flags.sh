#!/usr/bin/env bash
# Prints the JVM flags the Helm chart gives the agent (JAVA_TOOL_OPTIONS of
# deploy/helm/vnpu/templates/daemonset.yaml from the jvm: block of deploy/helm/vnpu/values.yaml),
# so the RSS scripts measure what a node runs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
awk '
  /^jvm:/ { in_jvm = 1; next }
  in_jvm && /^[^ #]/ { in_jvm = 0 }
  in_jvm && /^  [a-zA-Z]+:/ {
    key = $1; sub(":", "", key); val = $0; sub(/^[^:]*: */, "", val); gsub(/"/, "", val); v[key] = val
  }
  END { printf "-Xmx%s -XX:MaxMetaspaceSize=%s %s\n", v["maxHeap"], v["maxMetaspace"], v["extraOptions"] }
' "$root/deploy/helm/vnpu/values.yaml"
