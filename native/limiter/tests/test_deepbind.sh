#!/usr/bin/env bash
# Issue 23: the CANN libraries opened with RTLD_DEEPBIND (frameworks, plugin loaders) and a runtime
# user loaded after the limiter initialised still reach the hooks: 3 x 1 GiB under a 2 GiB quota
# gives ok, ok, 207001; the caller's RUNPATH still finds a bare name. Without the preload every call
# succeeds (the control that shows the test can fail).
set -u
B=${VNPU_NATIVE_BUILD:?}
TMP=${VNPU_TEST_TMP:?}
export VNPU_SIM_ROOT="$TMP/sim" VNPU_SIM_PROFILE=910B3x8 VNPU_SIM_QUIET=1
unset NPU_MEM_QUOTA NPU_PRIORITY VNPU_DEVICE_COUNT VNPU_COMPUTE_CAP_PCT LD_PRELOAD
mkdir -p "$VNPU_SIM_ROOT"
prog=$B/limiter/test_deepbind
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
n=0
limited() { n=$((n + 1)); mkdir -p "$TMP/r$n"; LD_PRELOAD=$B/libvnpu.so NPU_LOCAL_SHM_PATH=$TMP/r$n/vnpu_local_shmem \
            NPU_MEM_QUOTA=2048 timeout 60 "$prog" "$@" 2>&1; }
want='acl 1G rc=0
acl 1G rc=0
acl 1G rc=207001
plugin 1G rc=207001
free rc=0
plugin 1G rc=0'
modes="local deep lazy-deep runtime-first"; control=deep
# AddressSanitizer and ThreadSanitizer abort any RTLD_DEEPBIND dlopen themselves, and their dlopen
# interceptor makes itself the caller (a bare name no longer finds the program's RUNPATH, with or
# without the limiter): in sanitizer builds only the local mode runs, along LD_LIBRARY_PATH
if ldd "$prog" | grep -Eq 'lib(a|t)san'; then
  echo "note: sanitizer build: RTLD_DEEPBIND cases skipped (the sanitizer runtime refuses RTLD_DEEPBIND)"
  modes=local; control=local
  export LD_LIBRARY_PATH=$B:$B/limiter
fi
for mode in $modes; do
  out=$(limited "$mode")
  [ "$(grep -v '^vnpu: compute' <<<"$out")" = "$want" ] || fail "$mode:"$'\n'"$out"
  echo "$mode ok"
done
# control: without the limiter, all of it fits on the 64 GiB device
out=$(timeout 60 "$prog" $control 2>&1)
[ "$(grep -c 'rc=0' <<<"$out")" = 6 ] || fail "control without the preload: $out"
[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "test_deepbind: ok"
