/*
 * Live resize of a running slice (issue 28), with the limiter compiled in so that the same binary runs
 * plain, under ASan+UBSan and under ThreadSanitizer. The test rewrites the quota region's device config
 * under config_seq exactly as the node agent does (vnpu-quota QuotaRegion.updateConfig) while the
 * workload runs:
 *
 *  1. race: two child processes and three threads of this one allocate and free device memory while a
 *     thread flips the memory quota between 48 and 24 MiB; no consistent snapshot of the region's usage
 *     may ever exceed max(old, new) = 48 MiB, the larger quota must be used, the smaller must refuse;
 *  2. semantics: a quota lowered below current use frees nothing and refuses further allocations until
 *     usage falls under it; a raised quota admits at once;
 *  3. compute: with kernels launching, the share the limiter uses follows a cap change (50 -> 20 -> 80
 *     -> none) within a bound (it is recomputed every 5 ms; the test allows 1 s).
 *
 * Usage: test_resize SECONDS (the region from NPU_LOCAL_SHM_PATH: cap 50 %, 64 MiB; test_resize.sh).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cann_sim/cann_sim.h"
#include "check.h"
#include "region.h"
#include "runtime/rt.h"

#define MIB ((uint64_t)1 << 20)
#define BIG (48 * MIB)
#define SMALL (24 * MIB)

/* the limiter's (compute.h pulls in the launch ABI, which this program gets from runtime/rt.h) */
struct vnpu_region *vnpu_limiter_region(void);
uint32_t vnpu_compute_share_ppm(uint32_t dev);
#define SHARE_FULL 1000000u

static unsigned char *cfgmap; /* the test's own mapping of the region: the agent's writes */

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint32_t *u32at(uint64_t off) { return (uint32_t *)(cfgmap + off); }
static uint64_t *u64at(uint64_t off) { return (uint64_t *)(cfgmap + off); }

/* One config write of logical device 0 under the seqlock, as QuotaRegion.updateConfig does. */
static void write_config(uint64_t mem_limit, uint32_t weight, uint32_t cap)
{
    uint32_t seq = __atomic_load_n(u32at(VNPU_H_CONFIG_SEQ), __ATOMIC_SEQ_CST);
    uint32_t odd = (seq & 1u) ? seq : seq + 1;
    __atomic_store_n(u32at(VNPU_H_CONFIG_SEQ), odd, __ATOMIC_SEQ_CST);
    uint64_t o = vnpu_devcfg_off(0);
    __atomic_store_n(u64at(o + VNPU_DC_MEM_LIMIT), mem_limit, __ATOMIC_SEQ_CST);
    __atomic_store_n(u32at(o + VNPU_DC_COMPUTE_WEIGHT), weight, __ATOMIC_SEQ_CST);
    __atomic_store_n(u32at(o + VNPU_DC_COMPUTE_CAP_PCT), cap, __ATOMIC_SEQ_CST);
    __atomic_store_n(u32at(VNPU_H_CONFIG_SEQ), odd + 1, __ATOMIC_SEQ_CST);
}

static uint64_t mem_limit(void) { return __atomic_load_n(u64at(vnpu_devcfg_off(0) + VNPU_DC_MEM_LIMIT), __ATOMIC_SEQ_CST); }

static void map_region(void)
{
    const char *p = getenv("NPU_LOCAL_SHM_PATH");
    CHECK(p != NULL);
    int fd = open(p, O_RDWR | O_CLOEXEC);
    CHECK(fd >= 0);
    void *m = mmap(NULL, VNPU_REGION_FILE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    close(fd);
    cfgmap = m;
}

/* Committed bytes of device 0 over all slots, read consistently (no commit during the scan). */
static int used_snapshot(uint64_t *out)
{
    uint64_t seq_off = vnpu_devstate_off(0) + VNPU_DS_COMMIT_SEQ;
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t s1 = __atomic_load_n(u64at(seq_off), __ATOMIC_SEQ_CST);
        uint32_t hwm = __atomic_load_n(u32at(VNPU_H_SLOT_HWM), __ATOMIC_SEQ_CST);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < hwm && i < VNPU_REGION_SLOT_COUNT; i++)
            sum += __atomic_load_n(u64at(vnpu_slot_off(i) + VNPU_S_USED_BYTES), __ATOMIC_SEQ_CST);
        if (__atomic_load_n(u64at(seq_off), __ATOMIC_SEQ_CST) == s1) {
            *out = sum;
            return 1;
        }
    }
    return 0;
}

/* ---------- 1. resize racing with admissions ---------- */
static int stop;
static long admitted, refused;

static void *allocator(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *held[8] = {0};
    CHECK(rtSetDevice(0) == 0);
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        int i = (int)(rand_r(&seed) % 8);
        if (held[i]) {
            CHECK(rtFree(held[i]) == 0);
            held[i] = NULL;
            continue;
        }
        uint64_t size = (1 + rand_r(&seed) % 8) * MIB;
        int rc = rtMalloc(&held[i], size, RT_MEMORY_HBM, 0);
        if (rc == 0) {
            __atomic_add_fetch(&admitted, 1, __ATOMIC_RELAXED);
        } else {
            CHECK(rc == VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION);
            held[i] = NULL;
            __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
        }
    }
    for (int i = 0; i < 8; i++)
        if (held[i])
            CHECK(rtFree(held[i]) == 0);
    return NULL;
}

static void *flipper(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        write_config(rand_r(&seed) % 2 ? BIG : SMALL, 50, 50);
        struct timespec ts = {0, (long)(50000 + rand_r(&seed) % 300000)};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void child_allocate(int secs, unsigned seed)
{
    int64_t end = mono_ns() + (int64_t)secs * 1000000000LL;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, allocator, (void *)(uintptr_t)seed) == 0);
    while (mono_ns() < end)
        usleep(10000);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    _exit(0);
}

static void test_race(int secs)
{
    /* the children first, while this process has no thread yet (fork of a threaded process under
     * ThreadSanitizer is unsupported); each has its own slot */
    write_config(BIG, 50, 50); /* from here on every quota is BIG or SMALL */
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        kids[k] = fork();
        CHECK(kids[k] >= 0);
        if (kids[k] == 0)
            child_allocate(secs, 1000u + (unsigned)k);
    }
    pthread_t a[3], f;
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&a[i], NULL, allocator, (void *)(uintptr_t)(7u + (unsigned)i)) == 0);
    CHECK(pthread_create(&f, NULL, flipper, (void *)(uintptr_t)99u) == 0);
    uint64_t max_seen = 0;
    long snapshots = 0;
    int64_t end = mono_ns() + (int64_t)secs * 1000000000LL;
    while (mono_ns() < end) {
        uint64_t u;
        if (used_snapshot(&u)) {
            snapshots++;
            if (u > max_seen)
                max_seen = u;
            if (u > BIG) {
                fprintf(stderr, "FAIL: usage %" PRIu64 " B over max(old, new) quota %" PRIu64 " B\n", u, BIG);
                exit(1);
            }
        }
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 3; i++)
        pthread_join(a[i], NULL);
    pthread_join(f, NULL);
    for (int k = 0; k < 2; k++) {
        int st = 0;
        CHECK(waitpid(kids[k], &st, 0) == kids[k]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    uint64_t peak = __atomic_load_n(u64at(vnpu_devstate_off(0) + VNPU_DS_PEAK_BYTES), __ATOMIC_SEQ_CST);
    uint64_t left = 0;
    CHECK(used_snapshot(&left));
    printf("race: %ld admitted, %ld refused in this process, %ld snapshots, max usage %" PRIu64
           " MiB, peak %" PRIu64 " MiB, quota flipping %" PRIu64 "/%" PRIu64 " MiB\n",
           admitted, refused, snapshots, max_seen / MIB, peak / MIB, BIG / MIB, SMALL / MIB);
    CHECK(peak <= BIG);
    CHECK(max_seen > SMALL); /* the larger quota was used ... */
    CHECK(refused > 0);      /* ... and a quota refused */
    CHECK_EQ_U64(left, 0);   /* every byte was released (the children's too) */
    __atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
}

/* ---------- 2. shrink below use, grow ---------- */
static void test_shrink_and_grow(void)
{
    CHECK(rtSetDevice(0) == 0);
    struct vnpu_region *r = vnpu_limiter_region();
    CHECK(r != NULL);
    write_config(64 * MIB, 50, 50);
    void *b[4];
    for (int i = 0; i < 4; i++)
        CHECK(rtMalloc(&b[i], 10 * MIB, RT_MEMORY_HBM, 0) == 0);
    write_config(32 * MIB, 50, 50); /* below the 40 MiB in use */
    void *x = NULL;
    CHECK(rtMalloc(&x, MIB, RT_MEMORY_HBM, 0) == VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION);
    CHECK_EQ_U64(vnpu_region_used(r, 0), 40 * MIB); /* nothing was freed */
    CHECK(rtFree(b[0]) == 0);
    CHECK(rtFree(b[1]) == 0); /* 20 MiB in use */
    CHECK(rtMalloc(&b[0], 8 * MIB, RT_MEMORY_HBM, 0) == 0);                             /* 28 <= 32 */
    CHECK(rtMalloc(&b[1], 8 * MIB, RT_MEMORY_HBM, 0) == VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION); /* 36 > 32 */
    write_config(128 * MIB, 50, 50);
    CHECK(rtMalloc(&b[1], 64 * MIB, RT_MEMORY_HBM, 0) == 0); /* at once */
    CHECK_EQ_U64(vnpu_region_used(r, 0), 92 * MIB);
    for (int i = 0; i < 4; i++)
        CHECK(rtFree(b[i]) == 0);
    CHECK_EQ_U64(vnpu_region_used(r, 0), 0);
    printf("shrink below use: refused, nothing freed; grow: admitted at once\n");
}

/* ---------- 3. the compute share follows ---------- */
static void *launcher(void *arg)
{
    (void)arg;
    static char stub;
    rtStream_t s;
    CHECK(rtSetDevice(0) == 0 && rtStreamCreate(&s, 0) == 0);
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, 200000};
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        for (int i = 0; i < 8; i++)
            (void)rtKernelLaunch(&stub, 1, &k, sizeof k, NULL, s);
        (void)rtStreamSynchronize(s);
    }
    return NULL;
}

/* ms until the share the limiter uses is ppm, -1 after 10 s */
static long await_share(uint32_t ppm)
{
    int64_t t0 = mono_ns();
    while (mono_ns() - t0 < 10000000000LL) {
        if (vnpu_compute_share_ppm(0) == ppm)
            return (long)((mono_ns() - t0) / 1000000);
        usleep(500);
    }
    return -1;
}

static void test_compute_follows(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, launcher, NULL) == 0);
    long first = await_share(500000);
    CHECK(first >= 0);
    const struct {
        uint32_t weight, cap, ppm;
    } steps[] = {{20, 20, 200000}, {80, 80, 800000}, {100, 0, SHARE_FULL}, {50, 50, 500000}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        write_config(mem_limit(), steps[i].weight, steps[i].cap);
        long ms = await_share(steps[i].ppm);
        printf("compute: cap %u %% -> share %u ppm after %ld ms\n", steps[i].cap, steps[i].ppm, ms);
        if (ms < 0 || ms > 1000) {
            fprintf(stderr, "FAIL: the share did not follow cap %u within 1 s (now %u ppm)\n", steps[i].cap,
                    vnpu_compute_share_ppm(0));
            exit(1);
        }
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
    int secs = argc > 1 ? atoi(argv[1]) : 2;
    map_region();
    CHECK_EQ_U64(mem_limit(), 64 * MIB);
    test_race(secs);
    test_shrink_and_grow();
    test_compute_follows();
    printf("test_resize: ok\n");
    return 0;
}
