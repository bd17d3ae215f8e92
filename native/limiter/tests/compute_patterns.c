/*
 * Launch patterns that once escaped the compute limiter (issue 12; mirrors the reproducers
 * 05_special_stream_bypass and 09_new_kernel_keys_undercharged). Driven by test_compute_sim.sh with
 * libvnpu.so preloaded and a 10 % cap; prints "pattern done pid= wall_ns=" for the ground truth.
 *   model-destroy  a stream bound to a model, the model destroyed (the runtime unbinds), then 1 ms
 *                  kernels on that stream for SECONDS
 *   stream-reuse   bound, model and stream destroyed, a new stream (often at the same address)
 *   key-churn      1 ms kernels whose block count changes every step (a new kernel key each time),
 *                  a 10 us kernel in between, 2 ms of host work per step
 * usage: compute_patterns MODE SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    double secs = argc > 2 ? atof(argv[2]) : 2.0;
    rtStream_t s = NULL, old = NULL;
    rtModel_t m = NULL;
    if (rtSetDevice(0) != 0)
        return 2;
    if (strcmp(mode, "model-destroy") == 0) {
        if (rtStreamCreate(&s, 0) || rtModelCreate(&m, 0) || rtModelBindStream(m, s, 0) || rtModelDestroy(m))
            return 3;
    } else if (strcmp(mode, "stream-reuse") == 0) {
        if (rtStreamCreate(&old, 0) || rtModelCreate(&m, 0) || rtModelBindStream(m, old, 0) || rtModelDestroy(m)
            || rtStreamDestroy(old) || rtStreamCreate(&s, 0))
            return 3;
    } else if (strcmp(mode, "key-churn") == 0) {
        if (rtStreamCreate(&s, 0))
            return 3;
    } else {
        fprintf(stderr, "usage: compute_patterns model-destroy|stream-reuse|key-churn SECONDS\n");
        return 2;
    }
    struct vnpu_sim_kernel_args big = {VNPU_SIM_KERNEL_MAGIC, 1000000}, small = {VNPU_SIM_KERNEL_MAGIC, 10000};
    static char kbig, ksmall;
    int64_t t0 = now_ns(), end = t0 + (int64_t)(secs * 1e9);
    long n = 0;
    while (now_ns() < end) {
        if (strcmp(mode, "key-churn") == 0) {
            uint32_t blocks = 1 + (uint32_t)(n % 4000); /* block count follows a changing shape */
            if (rtKernelLaunch(&kbig, blocks, &big, sizeof big, NULL, s) || rtKernelLaunch(&ksmall, 8, &small, sizeof small, NULL, s))
                return 4;
            usleep(2000);
        } else if (rtKernelLaunch(&kbig, 1, &big, sizeof big, NULL, s)) {
            return 4;
        }
        n++;
    }
    rtStreamSynchronize(s);
    printf("pattern done mode=%s pid=%d launches=%ld wall_ns=%lld\n", mode, (int)getpid(), n,
           (long long)(now_ns() - t0));
    return 0;
}
