#!/usr/bin/env bash
# Reruns every row of docs/benchmarks.md (issue 29) in one go, about 8-9 minutes on 2 CPUs, and prints
# a summary table: row, goal, measured, met, load average (1 min) when the row started.
#   Java rows: JMH with short but complete settings (1 fork, warm-up, several measured iterations;
#              the per-row settings are printed with the results)
#   RSS rows:  benchmarks/measure-agent-rss.sh and measure-dra-rss.sh (the chart's JVM flags), and the
#              DRA plugin's floor (VNPU_DRA_RSS_FLOOR=1 measure-dra-rss.sh: the libraries alone)
#   native:    native/bench/run-bench.sh (its own summary is printed after this one)
# Needs the built jars (mvn -B -DskipTests package -pl benchmarks,vnpu-kube-adapter/cli -am; this
# script builds them when missing), python3 (JMH JSON) and jq (native script).
# Usage: benchmarks/run-all.sh [OUT_DIR]        (default benchmarks/target/run-all)
#        VNPU_SKIP_NATIVE=1 benchmarks/run-all.sh   (Java rows only, ~5 minutes)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/benchmarks/target/run-all}
mkdir -p "$out"
out=$(cd "$out" && pwd)
bench="$root/benchmarks/target/benchmarks.jar"
cli="$root/vnpu-kube-adapter/cli/target/vnpu-cli-0.1.0-SNAPSHOT-all.jar"
command -v python3 >/dev/null || { echo "run-all.sh: python3 not found (apt-get install python3)" >&2; exit 2; }
stale() { # a jar missing, or a source, pom or native file newer than the older of the two jars
  [ -f "$bench" ] && [ -f "$cli" ] && [ -d "$root/native/build" ] || return 0
  local older=$bench
  [ "$cli" -ot "$bench" ] && older=$cli
  [ -n "$(find "$root/pom.xml" "$root"/vnpu-*/pom.xml "$root"/vnpu-*/src "$root"/vnpu-kube-adapter/*/pom.xml \
      "$root"/vnpu-kube-adapter/*/src "$root/benchmarks/pom.xml" "$root/benchmarks/src" "$root/native" \
      -newer "$older" -type f ! -path '*/build/*' -print -quit 2>/dev/null)" ]
}
if stale; then
  echo "run-all.sh: building benchmarks.jar and the CLI jar (mvn package, a few minutes)" >&2
  mvn -B -q -DskipTests -f "$root/pom.xml" -pl benchmarks,vnpu-kube-adapter/cli -am package >&2
fi
start=$(date +%s)
rows="$out/rows.tsv"
: > "$rows"
load() { cut -d' ' -f1 /proc/loadavg; }
{ echo "date: $(date -u +%FT%TZ)"; echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)";
  echo "nproc: $(nproc)"; echo "load before: $(cat /proc/loadavg)"; java -version 2>&1 | head -n 2;
  lscpu | grep -E '^(Model name|CPU\(s\)|Hypervisor)' || true; } > "$out/machine.txt"
cat "$out/machine.txt"

# jmh NAME REGEX ARGS...: runs one JMH selection into $out/NAME.json, records the load at its start
jmh() {
  local name=$1 regex=$2
  shift 2
  echo "== $name: java -jar benchmarks.jar '$regex' $* (load $(load))"
  echo "$name	$(load)" >> "$out/loads.tsv"
  VNPU_NATIVE_DIR="$root/native/build" java -jar "$bench" "$regex" "$@" -rf json -rff "$out/$name.json" \
    > "$out/$name.log" 2>&1 || { echo "   failed: $out/$name.log"; tail -n 20 "$out/$name.log"; }
}
: > "$out/loads.tsv"
# AverageTime rows: 1 fork, 3 x 1 s warm-up, 5 x 1 s measured
# admit + release with its floor (the five atomics alone, AdmitReleaseFloorBenchmark)
jmh admit '(QuotaRegionBenchmark.admitRelease|AdmitReleaseFloorBenchmark.fiveAtomics(VarHandle|Unchecked))$' \
  -f 1 -wi 3 -w 1 -i 5 -r 1
jmh snapshot 'FullRegionSnapshotBenchmark.(usageIntoBuffer256Slots|bareLoopOverTheMapping256Slots|bareLoopUnchecked256Slots|sizeCheckFloor|sizeCheckBareFstat)' \
  -f 1 -wi 3 -w 1 -i 5 -r 1
# SampleTime rows (percentiles): 1 fork, 1 x 3 s warm-up, 3 x 5 s measured
# Prepare: 4 x 10 s warm-up. The call's code (gRPC, Netty, the plugin) is compiled by C2 only after
# ~30-40 s of prepares on 2 CPUs; after 3 s the measured calls ran in the interpreter and C1's
# profiling tier with C2 compiling beside them (docs/benchmarks.md "DRA Prepare: where the time goes")
jmh prepare 'DraPrepareBenchmark.nodePrepareResources$' -p checkpointOn=disk -f 1 -wi 4 -w 10 -i 3 -r 5
jmh prepare-floor 'DraPrepareBenchmark.checkpointWriteFloor$' -p checkpointOn=disk -f 1 -wi 1 -w 3 -i 3 -r 5
jmh allocate 'AllocateRoundTripBenchmark' -tu ms -f 1 -wi 1 -w 3 -i 3 -r 5
jmh publish 'SlicePublishBenchmark' -f 1 -wi 1 -w 3 -i 3 -r 5

echo "== node agent RSS (load $(load))"
echo "agent-rss	$(load)" >> "$out/loads.tsv"
"$root/benchmarks/measure-agent-rss.sh" 20 > "$out/agent-rss.txt" 2>&1 || echo "   failed: $out/agent-rss.txt"
echo "== DRA plugin RSS (load $(load))"
echo "dra-rss	$(load)" >> "$out/loads.tsv"
"$root/benchmarks/measure-dra-rss.sh" 20 > "$out/dra-rss.txt" 2>&1 || echo "   failed: $out/dra-rss.txt"
echo "== DRA plugin RSS floor: the libraries alone (load $(load))"
echo "dra-rss-floor	$(load)" >> "$out/loads.tsv"
VNPU_DRA_RSS_FLOOR=1 "$root/benchmarks/measure-dra-rss.sh" 20 > "$out/dra-rss-floor.txt" 2>&1 || echo "   failed: $out/dra-rss-floor.txt"

native_status=skipped
if [ "${VNPU_SKIP_NATIVE:-0}" != 1 ]; then
  echo "== native rows: native/bench/run-bench.sh $out/native (load $(load))"
  if "$root/native/bench/run-bench.sh" "$out/native" > "$out/native.log" 2>&1; then native_status=ok; else
    native_status="failed: $out/native.log"; fi
fi
end=$(date +%s)
echo "load after: $(cat /proc/loadavg)" >> "$out/machine.txt"

python3 - "$out" <<'PY'
import json, os, re, sys
out = sys.argv[1]
loads = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(out, "loads.tsv")) if "\t" in l)

def jmh(name):
    try:
        return json.load(open(os.path.join(out, name + ".json")))
    except (OSError, ValueError):
        return []

def find(runs, method, **params):
    for r in runs:
        if r["benchmark"].endswith("." + method) and all(r.get("params", {}).get(k) == v for k, v in params.items()):
            return r["primaryMetric"]
    return None

def avg(runs, method):
    m = find(runs, method)
    return None if m is None else m["score"]

def pct(runs, method, p, **params):
    m = find(runs, method, **params)
    return None if m is None else m["scorePercentiles"][p]

def rss(file, key):
    try:
        m = re.search(key + r"=(\d+)", open(os.path.join(out, file)).read())
        return None if m is None else int(m.group(1)) / 1024
    except OSError:
        return None

rows = []
def row(what, goal, value, limit, fmt, load):
    shown = "n/a" if value is None else fmt.format(value)
    met = "n/a" if value is None else ("yes" if value <= limit else "NO")
    rows.append((what, goal, shown, met, load))

a = jmh("admit")
row("Java admit+release", "<= 50 ns", avg(a, "admitRelease"), 50, "{:.1f} ns", loads.get("admit", "?"))
fu, fv = avg(a, "fiveAtomicsUnchecked"), avg(a, "fiveAtomicsVarHandle")
if fu is not None and fv is not None:
    rows.append(("  its floor: the 5 atomics alone", "(floor)", "{:.1f} ns (VarHandle {:.1f})".format(fu, fv), "-", loads.get("admit", "?")))
s = jmh("snapshot")
snap, bare, size = avg(s, "usageIntoBuffer256Slots"), avg(s, "bareLoopOverTheMapping256Slots"), avg(s, "sizeCheckFloor")
row("256-slot snapshot into the buffer", "<= 1 us", None if snap is None else snap / 1000, 1, "{:.2f} us", loads.get("snapshot", "?"))
if bare is not None and size is not None:
    rows.append(("  its floor: bare loop + size check", "(floor)", "{:.2f} + {:.2f} us".format(bare / 1000, size / 1000), "-", loads.get("snapshot", "?")))
    rows.append(("  snapshot / bare loop", "", "{:.2f}x".format(snap / bare) if snap is not None else "n/a", "-", loads.get("snapshot", "?")))
bare_u = avg(s, "bareLoopUnchecked256Slots")
if bare_u is not None:
    rows.append(("  bare loop, unchecked loads", "", "{:.2f} us".format(bare_u / 1000), "-", loads.get("snapshot", "?")))
fstat = avg(s, "sizeCheckBareFstat")
if fstat is not None:
    rows.append(("  the size check's fstat alone", "", "{:.2f} us".format(fstat / 1000), "-", loads.get("snapshot", "?")))
p = jmh("prepare")
for share in ("whole", "soft"):
    row("DRA Prepare, checkpoint on disk, " + share + " p99", "<= 10 ms",
        pct(p, "nodePrepareResources", "99.0", checkpointOn="disk", share=share), 10, "{:.2f} ms", loads.get("prepare", "?"))
    rows.append(("  " + share + " p50", "", "n/a" if find(p, "nodePrepareResources", checkpointOn="disk", share=share) is None
                 else "{:.2f} ms".format(pct(p, "nodePrepareResources", "50.0", checkpointOn="disk", share=share)), "-", ""))
pf = jmh("prepare-floor")
for share in ("whole", "soft"):
    m = find(pf, "checkpointWriteFloor", checkpointOn="disk", share=share)
    if m is not None:
        rows.append(("  its floor, " + share + ": fsync + rename p50 / p99", "(floor)",
                     "{:.2f} / {:.2f} ms".format(m["scorePercentiles"]["50.0"], m["scorePercentiles"]["99.0"]), "-",
                     loads.get("prepare-floor", "?")))
row("node agent RSS (chart flags)", "<= 96 MiB", rss("agent-rss.txt", "agent_rss_kib"), 96, "{:.1f} MiB", loads.get("agent-rss", "?"))
row("DRA plugin RSS (chart flags)", "<= 96 MiB", rss("dra-rss.txt", "dra_rss_kib"), 96, "{:.1f} MiB", loads.get("dra-rss", "?"))
dra_floor = rss("dra-rss-floor.txt", "dra_rss_kib")
if dra_floor is not None:
    rows.append(("  its floor: fabric8 + grpc-java alone (DraRssFloor)", "(floor)", "{:.1f} MiB".format(dra_floor), "-",
                 loads.get("dra-rss-floor", "?")))
al = jmh("allocate")
row("Allocate round trip p99", "<= 5 ms", pct(al, "allocateOneDevice", "99.0"), 5, "{:.2f} ms", loads.get("allocate", "?"))
pu = jmh("publish")
row("ResourceSlice publish 16 NPUs p50", "<= 50 ms", pct(pu, "publish16Npus", "50.0"), 50, "{:.2f} ms", loads.get("publish", "?"))

w = [max(len(r[i]) for r in rows + [("row", "goal", "measured", "met", "load")]) for i in range(5)]
line = lambda r: "  ".join(c.ljust(w[i]) for i, c in enumerate(r))
print()
print(line(("row", "goal", "measured", "met", "load")))
print(line(tuple("-" * x for x in w)))
for r in rows:
    print(line(r))
PY
echo
echo "native rows ($native_status):"
[ -f "$out/native/summary.txt" ] && sed 's/^/  /' "$out/native/summary.txt"
echo
echo "took $((end - start)) s; results in $out (machine.txt, *.json, *.log, *-rss.txt, native/)"
