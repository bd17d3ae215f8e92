#!/usr/bin/env bash
# vnpu-bench --smoke: every measurement runs once with tiny counts (so the benchmark cannot rot);
# the output must be one well-formed JSON object with every series, and nothing over-committed.
set -u
command -v jq >/dev/null || { echo "FAIL: jq not found: install jq (apt-get install jq) to check vnpu-bench's JSON"; exit 1; }
B=${VNPU_NATIVE_BUILD:?}
out=$VNPU_TEST_TMP/bench.json
"$B/bench/vnpu-bench" --smoke > "$out" || { echo "vnpu-bench --smoke exited $?"; cat "$out"; exit 1; }
cat "$out"
jq -e '
  (.per_call_ns | keys | length) == 9 and
  ([.per_call_ns[] | .median > 0] | all) and
  ([.ratio[] | .median > 0] | all) and
  .contention.quota_region.over_commit_bytes == 0 and
  .contention.sem_baseline.over_commit_bytes == 0 and
  .contention.quota_region.admitted > 0 and .contention.quota_region.refused > 0 and
  .contention.sem_baseline.admitted > 0 and .contention.sem_baseline.refused > 0 and
  .contention.quota_region.admit_p99_ns >= .contention.quota_region.admit_p50_ns and
  (.contention.quota_region | .refused == .refused_over_limit + .refused_contended_timeout and
    .waited == .waited_admitted + .waited_refused and .contended_wait_p99_ns >= .contended_wait_p50_ns)
' "$out" > /dev/null || { echo "FAIL: vnpu-bench JSON malformed or a check failed"; exit 1; }
echo "vnpu-bench smoke ok"
