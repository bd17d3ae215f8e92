/*
 * Cost of the limiter on the allocation path: rtMalloc + rtFree pairs (and rtMemGetInfoEx calls)
 * against whatever libruntime.so is loaded. Run it with and without LD_PRELOAD=libvnpu.so and compare.
 *   bench_alloc [PAIRS]   -> "alloc_free_pair_ns=… meminfo_ns=… pairs=…"
 * Declares the few prototypes it needs itself (like the limiter) and links libruntime.so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int32_t rtError_t;
rtError_t rtSetDevice(int32_t devId);
rtError_t rtMalloc(void **devPtr, uint64_t size, uint32_t type, const uint16_t moduleId);
rtError_t rtFree(void *devPtr);
rtError_t rtMemGetInfoEx(int memInfoType, size_t *freeSize, size_t *totalSize);

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    long pairs = argc > 1 ? atol(argv[1]) : 200000;
    if (rtSetDevice(0) != 0) {
        fprintf(stderr, "rtSetDevice failed\n");
        return 1;
    }
    void *p;
    for (int i = 0; i < 1000; i++) { /* warm up, first call initialises the limiter */
        if (rtMalloc(&p, 4096, 0x2, 0) == 0) rtFree(p);
    }
    double t0 = now_ns();
    for (long i = 0; i < pairs; i++) {
        if (rtMalloc(&p, 4096, 0x2, 0) != 0) {
            fprintf(stderr, "rtMalloc failed\n");
            return 1;
        }
        rtFree(p);
    }
    double t1 = now_ns();
    size_t f, t;
    for (long i = 0; i < pairs; i++) rtMemGetInfoEx(1, &f, &t);
    double t2 = now_ns();
    printf("alloc_free_pair_ns=%.0f meminfo_ns=%.0f pairs=%ld\n", (t1 - t0) / (double)pairs, (t2 - t1) / (double)pairs,
           pairs);
    return 0;
}
