/*
 * Launch patterns that once escaped the compute limiter (issue 12; mirrors the reproducers
 * 05_special_stream_bypass and 09_new_kernel_keys_undercharged). Driven by test_compute_sim.sh with
 * libvnpu.so preloaded and a 10 % cap; prints "pattern done pid= wall_ns=" for the ground truth.
 *   model-destroy  a stream bound to a model, the model destroyed (the runtime unbinds), then 1 ms
 *                  kernels on that stream for SECONDS
 *   stream-reuse   bound, model and stream destroyed, a new stream (often at the same address)
 *   ctx-bound      a stream of a user context bound to a model, the context destroyed (which frees
 *                  both with no rtModelDestroy or rtStreamDestroy), then a new stream of device 0's
 *                  primary context (the runtime often hands the freed address out again) and 1 ms
 *                  kernels on it; prints reused=1 when it got the address
 *   reset-bound    the same with a device reset freeing the primary context's bound stream
 *   ctx-cross-bound a stream of a user context bound, from device 0's primary context, to a model
 *                  of the primary context (CANN checks only the model's context), the user context
 *                  destroyed (which frees the stream, not the model), then a new stream of the
 *                  primary context (often at the freed address) and 1 ms kernels on it
 *   ctx-race       for SECONDS/2, cycles of: a user context on device 0 with 4 streams, 3 threads
 *                  that make it current and launch 10 us kernels on its streams and its default
 *                  stream without pause, the context destroyed under them by the main thread after
 *                  3 ms (their launches then fail; none may crash or hang); then a new stream of the
 *                  primary context and 1 ms kernels on it (cap holds); prints cycles=
 *   key-churn      1 ms kernels whose block count changes every step (a new kernel key each time),
 *                  a 10 us kernel in between, 2 ms of host work per step
 *   keys           first 2000 distinct kernel keys of 10 us kernels (more than a fixed-size cost table
 *                  holds), then for SECONDS 1 ms kernels under 2000 further keys (a new one every step)
 *                  and a 10 us kernel between them; prints phase2_start_ns= / phase2_end_ns= (the
 *                  window to judge, CLOCK_MONOTONIC)
 *   fork-mid-launch  a thread launches two 300 ms kernels (the second waits: inside a launch) and the
 *                  main thread forks meanwhile; the child launches one 1 ms kernel and then idles for
 *                  SECONDS, printing "fork child pid=": its container must not look busy while it idles
 *   other-device   a stream created on device 1, then 10 us kernels on it for SECONDS while the
 *                  thread's current device is 0: the runtime refuses them (107003, stream not in the
 *                  current context; printed as "other-device refused="), or they run on device 1 and
 *                  its cap must hold
 *   reset-reuse    for SECONDS: a 2 us kernel on a stream of device 0, rtDeviceReset(0) (which
 *                  destroys the stream without rtStreamDestroy), then on device 1 a new stream (the
 *                  runtime often hands out the destroyed one's address) and 20 2 us kernels on it,
 *                  rtDeviceReset(1), and again; prints reused= (how many device-1 streams had the
 *                  address of the device-0 stream before them)
 *   ctx-reuse      reset-reuse with user contexts instead of resets: a context on device 0, its
 *                  stream, a 2 us kernel, rtCtxDestroy (which destroys the stream without
 *                  rtStreamDestroy), a context on device 1, a new stream and 20 2 us kernels, that
 *                  context destroyed, and again
 *   ctx-reuse-acl  the same through aclrtCreateContext / aclrtDestroyContext (rtCtxDestroyEx)
 *   ctx-reuse-rts  the same, destroyed with rtsCtxDestroy
 * usage: compute_patterns MODE SECONDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"

static char kbig, ksmall;

static int64_t now_ns(void);

static int keys_mode(double secs)
{
    rtStream_t s;
    if (rtStreamCreate(&s, 0))
        return 3;
    struct vnpu_sim_kernel_args big = {VNPU_SIM_KERNEL_MAGIC, 1000000}, small = {VNPU_SIM_KERNEL_MAGIC, 10000};
    enum { KEYS = 2000 };
    for (uint32_t k = 1; k <= KEYS; k++)
        if (rtKernelLaunch(&ksmall, k, &small, sizeof small, NULL, s))
            return 4;
    rtStreamSynchronize(s);
    int64_t t0 = now_ns(), end = t0 + (int64_t)(secs * 1e9);
    long n = 0;
    while (now_ns() < end) {
        if (rtKernelLaunch(&kbig, 1 + (uint32_t)(n % KEYS), &big, sizeof big, NULL, s)
            || rtKernelLaunch(&ksmall, 1, &small, sizeof small, NULL, s))
            return 4;
        n++;
    }
    rtStreamSynchronize(s);
    printf("pattern done mode=keys pid=%d keys=%d big=%ld phase2_start_ns=%lld phase2_end_ns=%lld\n", (int)getpid(),
           2 * KEYS, n, (long long)t0, (long long)now_ns());
    return 0;
}

static rtStream_t fork_stream;
static void *long_launches(void *arg)
{
    (void)arg;
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, 300000000};
    for (int i = 0; i < 2; i++)
        rtKernelLaunch(&kbig, 1, &k, sizeof k, NULL, fork_stream);
    return NULL;
}

static int fork_mode(double secs)
{
    if (rtStreamCreate(&fork_stream, 0))
        return 3;
    pthread_t t;
    if (pthread_create(&t, NULL, long_launches, NULL))
        return 3;
    usleep(100000); /* the thread is inside its second launch (waiting for the first to drain) */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        rtStream_t s;
        struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, 1000000};
        if (rtSetDevice(0) || rtStreamCreate(&s, 0) || rtKernelLaunch(&ksmall, 1, &k, sizeof k, NULL, s)
            || rtStreamSynchronize(s))
            _exit(4);
        printf("fork child pid=%d idle_from_ns=%lld\n", (int)getpid(), (long long)now_ns());
        fflush(stdout);
        usleep((useconds_t)(secs * 1e6));
        exit(0);
    }
    pthread_join(t, NULL);
    rtStreamSynchronize(fork_stream);
    printf("pattern done mode=fork-mid-launch pid=%d child=%d end_ns=%lld\n", (int)getpid(), (int)pid,
           (long long)now_ns());
    return pid > 0 ? 0 : 5;
}

/* ctx-race: threads launching on a context's streams while the main thread destroys it */
struct race {
    rtContext_t ctx;
    rtStream_t stm[4];
    int stop;
};
static void *race_launcher(void *arg)
{
    struct race *r = arg;
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, 10000};
    if (rtCtxSetCurrent(r->ctx))
        return NULL;
    for (unsigned i = 0; !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); i++)
        (void)rtKernelLaunch(&ksmall, 1 + i % 3, &k, sizeof k, NULL, i % 5 == 4 ? NULL : r->stm[i % 4]);
    return NULL;
}

static int ctx_race(double secs, long *cycles)
{
    rtContext_t primary = NULL;
    if (rtCtxGetCurrent(&primary))
        return 3;
    int64_t end = now_ns() + (int64_t)(secs * 1e9);
    while (now_ns() < end) {
        struct race r = {0};
        if (rtCtxCreate(&r.ctx, RT_CTX_NORMAL_MODE, 0))
            return 3;
        for (int i = 0; i < 4; i++)
            if (rtStreamCreate(&r.stm[i], 0))
                return 3;
        pthread_t t[3];
        for (int i = 0; i < 3; i++)
            if (pthread_create(&t[i], NULL, race_launcher, &r))
                return 3;
        usleep(3000);
        if (rtCtxDestroy(r.ctx))
            return 3;
        __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
        for (int i = 0; i < 3; i++)
            pthread_join(t[i], NULL);
        (*cycles)++;
    }
    return rtCtxSetCurrent(primary) ? 3 : 0;
}

/* a user context on device dev made current, and destroyed, through rt (via 0), ACL (1) or, for the
 * destroy, the RTS layer (2); 0 or -1 */
static int ctx_make(rtContext_t *c, int32_t dev, int via)
{
    return (via == 1 ? aclrtCreateContext(c, dev) : rtCtxCreate(c, RT_CTX_NORMAL_MODE, dev)) == 0 ? 0 : -1;
}
static int ctx_drop(rtContext_t c, int via)
{
    return (via == 1 ? aclrtDestroyContext(c) : via == 2 ? rtsCtxDestroy(c) : rtCtxDestroy(c)) == 0 ? 0 : -1;
}

/* kernels on device 1 (see the modes above); the ground truth is the simulator's device-1 busy time */
static int device_modes(const char *mode, double secs)
{
    struct vnpu_sim_kernel_args small = {VNPU_SIM_KERNEL_MAGIC, 10000}, tiny = {VNPU_SIM_KERNEL_MAGIC, 2000};
    int64_t t0 = now_ns(), end = t0 + (int64_t)(secs * 1e9);
    long n = 0, reused = 0, cycles = 0;
    if (strcmp(mode, "other-device") == 0) {
        rtStream_t s1;
        if (rtSetDevice(1) || rtStreamCreate(&s1, 0) || rtSetDevice(0))
            return 3;
        rtError_t rc = 0;
        while (now_ns() < end && (rc = rtKernelLaunch(&ksmall, 1, &small, sizeof small, NULL, s1)) == 0)
            n++;
        rtStreamSynchronize(s1);
        printf("other-device refused=%d\n", (int)rc); /* the runtime's answer (107003 on CANN) */
    } else if (strncmp(mode, "ctx-reuse", 9) == 0) {
        int acl = strcmp(mode, "ctx-reuse-acl") == 0 ? 1 : strcmp(mode, "ctx-reuse-rts") == 0 ? 2 : 0;
        while (now_ns() < end) {
            rtContext_t c0, c1;
            rtStream_t s0, s1;
            if (ctx_make(&c0, 0, acl) || rtStreamCreate(&s0, 0))
                return 3;
            if (rtKernelLaunch(&ksmall, 1, &tiny, sizeof tiny, NULL, s0))
                return 4;
            if (ctx_drop(c0, acl) || ctx_make(&c1, 1, acl) || rtStreamCreate(&s1, 0))
                return 3;
            reused += s1 == s0;
            for (int i = 0; i < 20; i++, n++)
                if (rtKernelLaunch(&ksmall, 1, &tiny, sizeof tiny, NULL, s1))
                    return 4;
            rtStreamSynchronize(s1);
            if (ctx_drop(c1, acl))
                return 3;
            cycles++;
        }
    } else {
        if (rtDeviceReset(0)) /* main's reference: each cycle's reset is then the last one */
            return 3;
        while (now_ns() < end) {
            rtStream_t s0, s1;
            if (rtSetDevice(0) || rtStreamCreate(&s0, 0))
                return 3;
            if (rtKernelLaunch(&ksmall, 1, &tiny, sizeof tiny, NULL, s0))
                return 4;
            if (rtDeviceReset(0) || rtSetDevice(1) || rtStreamCreate(&s1, 0))
                return 3;
            reused += s1 == s0;
            for (int i = 0; i < 20; i++, n++)
                if (rtKernelLaunch(&ksmall, 1, &tiny, sizeof tiny, NULL, s1))
                    return 4;
            rtStreamSynchronize(s1);
            if (rtDeviceReset(1))
                return 3;
            cycles++;
        }
    }
    printf("pattern done mode=%s pid=%d launches=%ld cycles=%ld reused=%ld wall_ns=%lld\n", mode, (int)getpid(), n,
           cycles, reused, (long long)(now_ns() - t0));
    return 0;
}

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
    long race_cycles = 0;
    const int64_t t_begin = now_ns(); /* ctx-race: its wall time covers the race too (so does its busy time) */
    if (rtSetDevice(0) != 0)
        return 2;
    if (strcmp(mode, "model-destroy") == 0) {
        if (rtStreamCreate(&s, 0) || rtModelCreate(&m, 0) || rtModelBindStream(m, s, 0) || rtModelDestroy(m))
            return 3;
    } else if (strcmp(mode, "stream-reuse") == 0) {
        if (rtStreamCreate(&old, 0) || rtModelCreate(&m, 0) || rtModelBindStream(m, old, 0) || rtModelDestroy(m)
            || rtStreamDestroy(old) || rtStreamCreate(&s, 0))
            return 3;
    } else if (strcmp(mode, "ctx-bound") == 0 || strcmp(mode, "reset-bound") == 0) {
        rtContext_t c = NULL;
        int ctx = strcmp(mode, "ctx-bound") == 0;
        if ((ctx && rtCtxCreate(&c, RT_CTX_NORMAL_MODE, 0)) || rtStreamCreate(&old, 0) || rtModelCreate(&m, 0)
            || rtModelBindStream(m, old, 0))
            return 3;
        /* the bound stream goes with its context: with the context, or with the device's last reference */
        if (ctx ? rtCtxDestroy(c) : rtDeviceReset(0))
            return 3;
        if (rtSetDevice(0) || rtStreamCreate(&s, 0))
            return 3;
    } else if (strcmp(mode, "ctx-cross-bound") == 0) {
        rtContext_t primary = NULL, c = NULL;
        if (rtCtxGetCurrent(&primary) || rtCtxCreate(&c, RT_CTX_NORMAL_MODE, 0) || rtStreamCreate(&old, 0)
            || rtCtxSetCurrent(primary) || rtModelCreate(&m, 0) || rtModelBindStream(m, old, 0))
            return 3;
        /* the binding thread's context is not the stream's: the stream goes with its own */
        if (rtCtxDestroy(c) || rtStreamCreate(&s, 0))
            return 3;
    } else if (strcmp(mode, "ctx-race") == 0) {
        int rc = ctx_race(secs / 2, &race_cycles);
        if (rc || rtStreamCreate(&s, 0))
            return rc ? rc : 3;
    } else if (strcmp(mode, "key-churn") == 0) {
        if (rtStreamCreate(&s, 0))
            return 3;
    } else if (strcmp(mode, "keys") == 0) {
        return keys_mode(secs);
    } else if (strcmp(mode, "fork-mid-launch") == 0) {
        return fork_mode(secs);
    } else if (strcmp(mode, "other-device") == 0 || strcmp(mode, "reset-reuse") == 0
               || strncmp(mode, "ctx-reuse", 9) == 0) {
        return device_modes(mode, secs);
    } else {
        fprintf(stderr, "usage: compute_patterns model-destroy|stream-reuse|ctx-bound|reset-bound|ctx-cross-bound|ctx-race|key-churn|keys|"
                        "fork-mid-launch|other-device|reset-reuse|ctx-reuse|ctx-reuse-acl|ctx-reuse-rts SECONDS\n");
        return 2;
    }
    struct vnpu_sim_kernel_args big = {VNPU_SIM_KERNEL_MAGIC, 1000000}, small = {VNPU_SIM_KERNEL_MAGIC, 10000};
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
    printf("pattern done mode=%s pid=%d launches=%ld reused=%d cycles=%ld wall_ns=%lld\n", mode, (int)getpid(), n,
           old != NULL && s == old, race_cycles, (long long)(now_ns() - (race_cycles ? t_begin : t0)));
    return 0;
}
