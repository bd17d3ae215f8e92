/*
 * fork() never hangs while the limiter is active (issue 12). Threads launch kernels (compute limiting
 * on, so the measurement thread publishes every 5 ms), allocate and free device memory, and fork in a
 * loop; every child's first hooked call is a launch (the memory part initialises from inside the
 * compute part), then it allocates and exits. Another thread creates a user context, launches on a
 * stream of it and binds a model there, and destroys the context (rtCtxDestroy: the limiter forgets
 * the context's streams and bindings, and the measurement thread may lose the context it borrowed). A watchdog fails the test when forks stop progressing
 * for 10 s (a deadlock: the healthy rate is hundreds per second even under sanitizers).
 *
 * Built with the limiter compiled in (limiter sources linked into this program), so the same binary
 * runs plain, under ASan+UBSan and under ThreadSanitizer (make test-tsan).
 * Usage: test_fork_stress SECONDS (the region comes from NPU_LOCAL_SHM_PATH, set by test_fork.sh).
 */
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cann_sim/cann_sim.h"
#include "region.h"
#include "runtime/rt.h"

extern char **environ;
struct vnpu_region *vnpu_limiter_region(void); /* hooks.c */

/* live allocations per batch: more than the pointer table's first tables hold (16 x 48), so its
 * stripes grow into mapped tables in the parent and again in every child */
#define BATCH 1000

#define STALL_LIMIT_S 10

static long forks, launches, allocs, child_failures, spawns, batch_failures, contexts;
static int stop, finished;

static void launch_some(rtStream_t s, int n)
{
    static char stub;
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, 20000};
    for (int i = 0; i < n; i++)
        (void)rtKernelLaunch(&stub, 1, &k, sizeof k, NULL, s);
    (void)rtStreamSynchronize(s);
}

static void *launcher(void *a)
{
    (void)a;
    rtStream_t s;
    if (rtSetDevice(0) != 0 || rtStreamCreate(&s, 0) != 0) {
        fprintf(stderr, "launcher: no device\n");
        exit(2);
    }
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        launch_some(s, 32);
        __atomic_add_fetch(&launches, 32, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* contexts created, used (a launch, a binding) and destroyed with what they own */
static void *ctx_churner(void *a)
{
    (void)a;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        rtContext_t c;
        rtStream_t s, b;
        rtModel_t m;
        if (rtCtxCreate(&c, RT_CTX_NORMAL_MODE, 0) != 0 || rtStreamCreate(&s, 0) != 0 || rtStreamCreate(&b, 0) != 0
            || rtModelCreate(&m, 0) != 0 || rtModelBindStream(m, b, 0) != 0) {
            fprintf(stderr, "context churner: cannot set up a context\n");
            exit(2);
        }
        launch_some(s, 4);
        if (rtCtxDestroy(c) != 0) {
            fprintf(stderr, "context churner: rtCtxDestroy failed\n");
            exit(2);
        }
        __atomic_add_fetch(&contexts, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void *allocator(void *a)
{
    (void)a;
    if (rtSetDevice(0) != 0) {
        fprintf(stderr, "allocator: no device\n");
        exit(2);
    }
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        void *p = NULL;
        if (rtMalloc(&p, 1 << 20, RT_MEMORY_HBM, 0) == 0)
            (void)rtFree(p);
        __atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* BATCH live allocations of 4 KiB, then all freed: 0 when every call worked */
static int batch(void)
{
    static __thread void *p[BATCH];
    int bad = 0;
    for (int i = 0; i < BATCH; i++)
        if (rtMalloc(&p[i], 4096, RT_MEMORY_HBM, 0) != 0)
            p[i] = NULL, bad = 1;
    for (int i = 0; i < BATCH; i++)
        if (p[i] && rtFree(p[i]) != 0)
            bad = 1;
    return bad;
}

static void *batch_allocator(void *a)
{
    (void)a;
    if (rtSetDevice(0) != 0) {
        fprintf(stderr, "batch allocator: no device\n");
        exit(2);
    }
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
        if (batch())
            __atomic_add_fetch(&batch_failures, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* posix_spawn (clone with CLONE_VM | CLONE_VFORK: no fork handler runs, the child shares the
 * parent's memory until its exec) while the other threads hold stripe and region locks */
static void *spawner(void *a)
{
    (void)a;
    char *argv[] = {"true", NULL};
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        pid_t p;
        if (posix_spawnp(&p, "true", NULL, NULL, argv, environ) == 0) {
            int st = 0;
            waitpid(p, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "spawned %d: status %#x\n", (int)p, st);
                __atomic_add_fetch(&child_failures, 1, __ATOMIC_RELAXED);
            }
        }
        __atomic_add_fetch(&spawns, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* the child: first hooked call is a launch, then memory (a batch: the table grows out of the first
 * tables it inherited, wiped); exit status 0 when both worked */
static int child_main(void)
{
    rtStream_t s;
    if (rtSetDevice(0) != 0 || rtStreamCreate(&s, 0) != 0)
        return 3;
    launch_some(s, 4);
    void *p = NULL;
    if (rtMalloc(&p, 4096, RT_MEMORY_HBM, 0) != 0)
        return 4;
    if (batch())
        return 6;
    return rtFree(p) == 0 ? 0 : 5;
}

static void *forker(void *a)
{
    (void)a;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        pid_t p = fork();
        if (p == 0)
            _exit(child_main());
        if (p > 0) {
            int st = 0;
            waitpid(p, &st, 0);
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "child %d: status %#x\n", (int)p, st);
                __atomic_add_fetch(&child_failures, 1, __ATOMIC_RELAXED);
            }
        }
        __atomic_add_fetch(&forks, 1, __ATOMIC_RELAXED);
    }
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
    return NULL;
}

int main(int argc, char **argv)
{
    int secs = argc > 1 ? atoi(argv[1]) : 3;
    pthread_t t[7];
    pthread_create(&t[0], NULL, launcher, NULL);
    while (__atomic_load_n(&launches, __ATOMIC_RELAXED) < 64)
        usleep(1000); /* measurement thread is up */
    pthread_create(&t[1], NULL, allocator, NULL);
    pthread_create(&t[2], NULL, forker, NULL);
    pthread_create(&t[3], NULL, forker, NULL);
    pthread_create(&t[4], NULL, batch_allocator, NULL);
    pthread_create(&t[5], NULL, spawner, NULL);
    pthread_create(&t[6], NULL, ctx_churner, NULL);
    long last = -1;
    int stalled_ticks = 0;
    for (int tick = 0; tick < secs * 10; tick++) {
        usleep(100000);
        long f = __atomic_load_n(&forks, __ATOMIC_RELAXED);
        stalled_ticks = f == last ? stalled_ticks + 1 : 0;
        if (stalled_ticks >= STALL_LIMIT_S * 10) {
            printf("fork stuck for %d s: forks=%ld launches=%ld allocs=%ld\n", STALL_LIMIT_S, f,
                   __atomic_load_n(&launches, __ATOMIC_RELAXED), __atomic_load_n(&allocs, __ATOMIC_RELAXED));
            fflush(stdout);
            _exit(1);
        }
        last = f;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    /* bounded: a thread stuck in fork never finishes, so wait for all of them at most 10 s */
    for (int tick = 0; __atomic_load_n(&finished, __ATOMIC_RELAXED) < 7; tick++) {
        if (tick >= STALL_LIMIT_S * 100) {
            /* read atomically: the threads still run (a plain read here was a TSan report that hid this line) */
            printf("threads did not finish within %d s: finished=%d/7 forks=%ld launches=%ld contexts=%ld\n",
                   STALL_LIMIT_S, __atomic_load_n(&finished, __ATOMIC_RELAXED), __atomic_load_n(&forks, __ATOMIC_RELAXED),
                   __atomic_load_n(&launches, __ATOMIC_RELAXED), __atomic_load_n(&contexts, __ATOMIC_RELAXED));
            fflush(stdout);
            _exit(1);
        }
        usleep(10000);
    }
    for (int i = 0; i < 7; i++)
        pthread_join(t[i], NULL);
    /* everything this process allocated was freed: its charge is back to 0, whatever its children did */
    struct vnpu_region *r = vnpu_limiter_region();
    uint64_t used = r ? vnpu_region_used(r, 0) : 1;
    printf("spawns=%ld batch_failures=%ld used_after=%llu\n", spawns, batch_failures, (unsigned long long)used);
    if (spawns < 10 || batch_failures != 0 || used != 0) {
        printf("FAIL: expected >= 10 spawns, no failed batch, nothing charged after the last free\n");
        return 1;
    }
    printf("forks=%ld launches=%ld allocs=%ld child_failures=%ld contexts=%ld\n", forks, launches, allocs,
           child_failures, contexts);
    if (forks < 10 || child_failures != 0 || contexts < 10) {
        printf("FAIL: expected >= 10 forks, no failed child and >= 10 contexts destroyed\n");
        return 1;
    }
    return 0;
}
