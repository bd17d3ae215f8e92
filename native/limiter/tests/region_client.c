/*
 * Test driver for vnpu-quota's JUnit tests: a C process that uses a quota region through the
 * limiter's own region code (same protocol as libvnpu.so), so Java and C interoperate for real.
 *
 *   region_client PATH hold DEV BYTES
 *       claim a slot, admit BYTES on DEV, print "admitted 0|1", then keep the slot until stdin closes
 *   region_client PATH churn DEV MILLIS SEED MAXBYTES
 *       random admit/release on DEV for MILLIS ms, print "live L grants G refusals R", keep the slot
 *       (and its live bytes) until stdin closes
 * Exit status 0, or 2 when the region cannot be opened (message on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../region.h"

static void wait_stdin_eof(void) {
    char b[64];
    while (read(0, b, sizeof b) > 0) {
    }
}

static long elapsed_ms(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: region_client PATH hold DEV BYTES | PATH churn DEV MILLIS SEED MAXBYTES\n");
        return 64;
    }
    struct vnpu_region r;
    char err[512];
    if (vnpu_region_open(&r, argv[1], NULL, err, sizeof err) != VNPU_OPEN_OK) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (vnpu_region_claim_slot(&r) < 0) {
        fprintf(stderr, "no free slot\n");
        return 2;
    }
    uint32_t dev = (uint32_t)strtoul(argv[3], NULL, 10);
    if (strcmp(argv[2], "hold") == 0) {
        printf("admitted %d\n", vnpu_region_admit(&r, dev, strtoull(argv[4], NULL, 10)));
        fflush(stdout);
        wait_stdin_eof();
        return 0;
    }
    if (strcmp(argv[2], "churn") == 0 && argc >= 7) {
        long ms = strtol(argv[4], NULL, 10);
        unsigned seed = (unsigned)strtoul(argv[5], NULL, 10);
        uint64_t max = strtoull(argv[6], NULL, 10);
        uint64_t held[64] = {0}, live = 0, grants = 0, refusals = 0;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (elapsed_ms(&t0) < ms) {
            int k = (int)(rand_r(&seed) % 64);
            if (held[k]) {
                vnpu_region_release(&r, dev, held[k]);
                live -= held[k];
                held[k] = 0;
            } else {
                uint64_t sz = (uint64_t)rand_r(&seed) % max + 1;
                if (vnpu_region_admit(&r, dev, sz) == 0) {
                    held[k] = sz;
                    live += sz;
                    grants++;
                } else {
                    refusals++;
                }
            }
        }
        printf("live %llu grants %llu refusals %llu\n", (unsigned long long)live, (unsigned long long)grants,
               (unsigned long long)refusals);
        fflush(stdout);
        wait_stdin_eof();
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", argv[2]);
    return 64;
}
