#!/usr/bin/env bash
# Counts the classes a JVM loaded, by package prefix, from a -Xlog:class+load log. Prints the total,
# how many came from the JDK's CDS archive ("shared objects file"), and the 25 largest groups
# (three package levels, e.g. io.fabric8.kubernetes; tools.jackson.databind).
# Usage: benchmarks/classes-by-package.sh CLASS_LOAD_LOG
set -eu
log=$1
awk '
  / source: / {
    cls = $0; sub(/^.*\] /, "", cls); sub(/ source: .*$/, "", cls)
    total++
    if ($0 ~ /source: shared objects file/) shared++
    n = split(cls, p, ".")
    key = (n > 3) ? p[1] "." p[2] "." p[3] : cls
    if (n <= 3) { key = p[1]; for (i = 2; i < n; i++) key = key "." p[i] }
    count[key]++
  }
  END {
    printf "  classes loaded: %d (%d from the JDK archive)\n", total, shared
    for (k in count) printf "%6d %s\n", count[k], k
  }
' "$log" | { read -r head; echo "$head"; sort -rn | head -n 25 | sed "s/^/   /"; }
