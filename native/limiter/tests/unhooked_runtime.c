/*
 * A stand-in for a newer CANN runtime that exports a launch entry point the limiter does not hook
 * (test tooling, built as libruntime.so.unhooked-test and preloaded by test_compute_sim.sh): the
 * limiter must report it in the quota region (VNPU_H_UNHOOKED_LAUNCHES), not pass it silently.
 */
#define EXPORT __attribute__((visibility("default")))

EXPORT int rtFutureKernelLaunch(void *stub) { return stub == 0 ? 0 : 0; }
