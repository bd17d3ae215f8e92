#!/usr/bin/env bash
# Runs native test programs and prints one closing line "<label>: N passed, M failed".
# Usage: run-tests.sh LABEL BUILD_DIR TEST...
# Each test gets BUILD_DIR (absolute) in $VNPU_NATIVE_BUILD and a fresh scratch
# directory in $VNPU_TEST_TMP; a test passes when it exits 0 within its time bound.
set -u
label=$1; mkdir -p "$2"; build=$(cd "$2" && pwd); shift 2
passed=0; failed=0; failures=()
for t in "$@"; do
  tmp=$(mktemp -d)
  log="$tmp/log"
  if VNPU_NATIVE_BUILD="$build" VNPU_TEST_TMP="$tmp" timeout 180 "$t" >"$log" 2>&1; then
    passed=$((passed + 1))
    echo "  ok   $t"
    # expected failures and skips say why, one line each, even when the test passes
    grep -E '^(XFAIL|XPASS|SKIP)' "$log" | sed 's/^/       /' || true
  else
    rc=$?
    failed=$((failed + 1))
    failures+=("$t")
    echo "  FAIL $t (exit $rc)"
    sed 's/^/       | /' "$log" | tail -n 60
  fi
  rm -rf "$tmp"
done
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
