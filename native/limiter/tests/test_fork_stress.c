/*
 * fork() never hangs while the limiter is active (issue 12). Threads launch kernels (compute limiting
 * on, so the measurement thread publishes every 5 ms), allocate and free device memory, and fork in a
 * loop; every child's first hooked call is a launch (the memory part initialises from inside the
 * compute part), then it allocates and exits. A watchdog fails the test when forks stop progressing
 * for 10 s (a deadlock: the healthy rate is hundreds per second even under sanitizers).
 *
 * Built with the limiter compiled in (limiter sources linked into this program), so the same binary
 * runs plain, under ASan+UBSan and under ThreadSanitizer (make test-tsan).
 * Usage: test_fork_stress SECONDS (the region comes from NPU_LOCAL_SHM_PATH, set by test_fork.sh).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"

#define STALL_LIMIT_S 10

static long forks, launches, allocs, child_failures;
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

/* the child: first hooked call is a launch, then memory; exit status 0 when both worked */
static int child_main(void)
{
    rtStream_t s;
    if (rtSetDevice(0) != 0 || rtStreamCreate(&s, 0) != 0)
        return 3;
    launch_some(s, 4);
    void *p = NULL;
    if (rtMalloc(&p, 4096, RT_MEMORY_HBM, 0) != 0)
        return 4;
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
    pthread_t t[4];
    pthread_create(&t[0], NULL, launcher, NULL);
    while (__atomic_load_n(&launches, __ATOMIC_RELAXED) < 64)
        usleep(1000); /* measurement thread is up */
    pthread_create(&t[1], NULL, allocator, NULL);
    pthread_create(&t[2], NULL, forker, NULL);
    pthread_create(&t[3], NULL, forker, NULL);
    long last = -1;
    int stalled_ticks = 0;
    for (int tick = 0; tick < secs * 10; tick++) {
        usleep(100000);
        long f = __atomic_load_n(&forks, __ATOMIC_RELAXED);
        stalled_ticks = f == last ? stalled_ticks + 1 : 0;
        if (stalled_ticks >= STALL_LIMIT_S * 10) {
            printf("fork stuck for %d s: forks=%ld launches=%ld allocs=%ld\n", STALL_LIMIT_S, f, launches, allocs);
            fflush(stdout);
            _exit(1);
        }
        last = f;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    /* bounded: a thread stuck in fork never finishes, so wait for all of them at most 10 s */
    for (int tick = 0; __atomic_load_n(&finished, __ATOMIC_RELAXED) < 4; tick++) {
        if (tick >= STALL_LIMIT_S * 100) {
            printf("threads did not finish within %d s: forks=%ld\n", STALL_LIMIT_S, forks);
            fflush(stdout);
            _exit(1);
        }
        usleep(10000);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    printf("forks=%ld launches=%ld allocs=%ld child_failures=%ld\n", forks, launches, allocs, child_failures);
    if (forks < 10 || child_failures != 0) {
        printf("FAIL: expected >= 10 forks and no failed child\n");
        return 1;
    }
    return 0;
}
