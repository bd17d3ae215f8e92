/*
 * The floor under a full-region usage snapshot: the same fields of all 256 process slots (state,
 * pid, start time, generation, flags, bytes per device) copied by a plain C loop over a mapped
 * region file, with no consistency check. vnpu-quota's QuotaRegion.usage(UsageBuffer) reads the
 * same fields; FullRegionSnapshotBenchmark (JMH) is compared with this in docs/benchmarks.md.
 *
 * usage: bench_usage_scan [rounds]   prints ns per 256-slot scan, best of 5 runs
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vnpu_region.h"

#define DEVS 2

/* the copy's destination, as UsageBuffer's arrays are (file scope: the stores must happen) */
static uint32_t state[VNPU_REGION_SLOT_COUNT], pid[VNPU_REGION_SLOT_COUNT], flags[VNPU_REGION_SLOT_COUNT];
static uint64_t start[VNPU_REGION_SLOT_COUNT], gen[VNPU_REGION_SLOT_COUNT];
static uint64_t used[VNPU_REGION_SLOT_COUNT * DEVS];

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint32_t rd32(const volatile unsigned char *p) { uint32_t v; memcpy(&v, (const void *)p, 4); return v; }
static uint64_t rd64(const volatile unsigned char *p) { uint64_t v; memcpy(&v, (const void *)p, 8); return v; }
static void wr32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void wr64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

int main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 200000;
    if (rounds <= 0) {
        fprintf(stderr, "bench_usage_scan: rounds = %s: must be a positive number\n", argv[1]);
        return 2;
    }
    char path[] = "/tmp/vnpu-scan-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, VNPU_REGION_FILE_BYTES) != 0) { perror("bench_usage_scan: region file"); return 1; }
    unsigned char *m = mmap(NULL, VNPU_REGION_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    unlink(path);
    close(fd);
    if (m == MAP_FAILED) { perror("bench_usage_scan: mmap"); return 1; }
    for (uint32_t i = 0; i < VNPU_REGION_SLOT_COUNT; i++) {
        unsigned char *s = m + VNPU_SLOTS_OFF + i * VNPU_SLOT_BYTES;
        wr32(s + VNPU_S_STATE, VNPU_SLOT_ACTIVE);
        wr32(s + VNPU_S_PID, 100000 + i);
        wr64(s + VNPU_S_STARTTIME, 1000 + i);
        wr64(s + VNPU_S_GENERATION, 1);
        wr64(s + VNPU_S_USED_BYTES, (uint64_t)(i + 1) << 20);
        wr64(s + VNPU_S_USED_BYTES + 8, (uint64_t)(i + 1) << 21);
    }
    uint64_t total[DEVS];
    const volatile unsigned char *v = m;
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        double t0 = now_ns();
        for (long r = 0; r < rounds; r++) {
            uint32_t n = 0;
            for (int d = 0; d < DEVS; d++) total[d] = 0;
            for (uint32_t i = 0; i < VNPU_REGION_SLOT_COUNT; i++) {
                const volatile unsigned char *s = v + VNPU_SLOTS_OFF + i * VNPU_SLOT_BYTES;
                for (int d = 0; d < DEVS; d++) {
                    uint64_t b = rd64(s + VNPU_S_USED_BYTES + 8u * (unsigned)d);
                    uint64_t t = total[d] + b;
                    total[d] = t < b ? UINT64_MAX : t;
                    used[n * DEVS + (unsigned)d] = b;
                }
                uint32_t st = rd32(s + VNPU_S_STATE);
                if (st == VNPU_SLOT_FREE || st > VNPU_SLOT_REAPING) continue;
                state[n] = st;
                pid[n] = rd32(s + VNPU_S_PID);
                start[n] = rd64(s + VNPU_S_STARTTIME);
                gen[n] = rd64(s + VNPU_S_GENERATION);
                flags[n] = rd32(s + VNPU_S_FLAGS);
                n++;
            }
            __asm__ volatile("" : : "r"(n), "r"(total[0]), "r"(total[1]) : "memory");
        }
        double per = (now_ns() - t0) / (double)rounds;
        if (per < best) best = per;
    }
    uint64_t check = 0;
    for (uint32_t i = 0; i < VNPU_REGION_SLOT_COUNT; i++)
        check += state[i] + pid[i] + flags[i] + start[i] + gen[i] + used[i * DEVS] + used[i * DEVS + 1];
    printf("bench_usage_scan: %.1f ns per 256-slot scan (best of 5 runs of %ld; checksum %llu)\n", best, rounds,
           (unsigned long long)check);
    munmap(m, VNPU_REGION_FILE_BYTES);
    return 0;
}
