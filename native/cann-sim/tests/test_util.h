/* Minimal assertion helpers for the simulated-runtime tests. */
#ifndef VNPU_CANN_SIM_TEST_UTIL_H
#define VNPU_CANN_SIM_TEST_UTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int test_failures;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
            test_failures++;                                                           \
        }                                                                              \
    } while (0)

#define CHECK_EQ(a, b)                                                                                       \
    do {                                                                                                     \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                                \
        if (va_ != vb_) {                                                                                    \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
            test_failures++;                                                                                 \
        }                                                                                                    \
    } while (0)

#define CHECK_RANGE(v, lo, hi)                                                                                  \
    do {                                                                                                        \
        double v_ = (double)(v);                                                                                \
        if (v_ < (double)(lo) || v_ > (double)(hi)) {                                                           \
            fprintf(stderr, "%s:%d: %s = %.0f not in [%.0f, %.0f]\n", __FILE__, __LINE__, #v, v_, (double)(lo), \
                    (double)(hi));                                                                              \
            test_failures++;                                                                                    \
        }                                                                                                       \
    } while (0)

static inline uint64_t test_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Every test process gets its own simulated host under $VNPU_TEST_TMP (or a fresh temp dir). */
static inline void test_fresh_host(const char *name) {
    const char *tmp = getenv("VNPU_TEST_TMP");
    char fallback[] = "/tmp/cann-sim-test-XXXXXX";
    if (tmp == NULL && (tmp = mkdtemp(fallback)) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    char root[512];
    snprintf(root, sizeof(root), "%s/%s-host", tmp, name);
    setenv("VNPU_SIM_ROOT", root, 1);
    setenv("VNPU_SIM_PROFILE", "910B3x8", 1);
}

#define TEST_DONE(name)                                                          \
    do {                                                                         \
        if (test_failures != 0) {                                                \
            fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);    \
            return 1;                                                            \
        }                                                                        \
        printf("%s: all checks passed\n", name);                                 \
        return 0;                                                                \
    } while (0)

#endif
