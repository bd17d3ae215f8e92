/*
 * Simulated device time: asynchronous launches, stream synchronisation (with timeout), events
 * (query, elapsed time), stream dependencies, bounded stream depth, model execution and capture,
 * per-process ground truth, exclusivity of one device across processes, and contexts owning their
 * streams, default streams and models (destroying one frees them, and their handles come back).
 *
 * Exclusivity and durations are checked on the shared timeline (exact); wall-clock checks only
 * use wide bounds, because the test machine is shared.
 */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cann_sim/cann_sim.h"
#include "runtime/rt.h"
#include "vnpu_sim_host.h"
#include "test_util.h"

#define MS 1000000ULL

static const char STUB[] = "test-kernel";

static rtError_t launch_ms(rtStream_t s, uint64_t ms) {
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, ms * MS};
    return rtKernelLaunch(STUB, 1, &k, sizeof(k), NULL, s);
}

static int read_busy(int pid, int dev, struct vnpu_sim_busy_record *r) {
    char path[700];
    snprintf(path, sizeof(path), "%s/busy/%d-%d", getenv("VNPU_SIM_ROOT"), pid, dev);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = pread(fd, r, sizeof(*r), 0);
    close(fd);
    return n == (ssize_t)sizeof(*r) && r->magic == VNPU_SIM_BUSY_MAGIC ? 0 : -1;
}

static int read_device_time(int dev, struct vnpu_sim_device_time *t) {
    char path[700];
    snprintf(path, sizeof(path), "%s/device-time.bin", getenv("VNPU_SIM_ROOT"));
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    ssize_t n = pread(fd, t, sizeof(*t), (off_t)(dev * sizeof(*t)));
    close(fd);
    return n == (ssize_t)sizeof(*t) ? 0 : -1;
}

static void test_async_launch_and_sync(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    rtStream_t s = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    uint64_t t0 = test_now_ns();
    for (int i = 0; i < 4; i++) CHECK_EQ(launch_ms(s, 50), RT_ERROR_NONE); /* within the depth of 4 */
    struct vnpu_sim_busy_record q;
    CHECK_EQ(read_busy(getpid(), 0, &q), 0);
    CHECK(q.last_end_ns > test_now_ns()); /* the launches returned before their work finished */
    CHECK_EQ(rtStreamQuery(s), ACL_ERROR_RT_STREAM_NOT_COMPLETE);
    CHECK_EQ(rtStreamSynchronize(s), RT_ERROR_NONE);
    CHECK(test_now_ns() >= q.last_end_ns); /* synchronise returns only once the work is done */
    CHECK_RANGE(test_now_ns() - t0, 200 * MS, 10000 * MS);
    CHECK_EQ(rtStreamQuery(s), RT_ERROR_NONE);

    struct vnpu_sim_busy_record r;
    CHECK_EQ(read_busy(getpid(), 0, &r), 0);
    CHECK_EQ(r.busy_ns, 200 * MS);
    CHECK_EQ(r.tasks, 4);
    CHECK_EQ(r.last_end_ns - r.first_start_ns, 200 * MS); /* back to back on an idle device */

    /* the default stream (NULL) works too, and bad arguments give the real codes */
    CHECK_EQ(launch_ms(NULL, 1), RT_ERROR_NONE);
    CHECK_EQ(rtStreamSynchronize(NULL), RT_ERROR_NONE);
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, MS};
    CHECK_EQ(rtKernelLaunch(NULL, 1, &k, sizeof(k), NULL, s), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtKernelLaunch(STUB, 0, &k, sizeof(k), NULL, s), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtKernelLaunch(STUB, 1, &k, sizeof(k), NULL, (rtStream_t)&k), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(s), ACL_ERROR_RT_PARAM_INVALID);
}

static void test_events(void) {
    CHECK_EQ(rtSetDevice(0), RT_ERROR_NONE);
    rtStream_t s = NULL;
    rtEvent_t a = NULL, b = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtEventCreate(&a), RT_ERROR_NONE);
    CHECK_EQ(rtEventCreateWithFlag(&b, 0), RT_ERROR_NONE);
    float ms = -1;
    CHECK_EQ(rtEventElapsedTime(&ms, a, b), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
    /* `a` completes when a first 100 ms kernel ends; the next kernels are queued behind it, so the
     * stream runs them back to back and b - a is their exact total (302 ms) */
    CHECK_EQ(launch_ms(s, 100), RT_ERROR_NONE);
    CHECK_EQ(rtEventRecord(a, s), RT_ERROR_NONE);
    for (int i = 0; i < 3; i++) CHECK_EQ(launch_ms(s, 100), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(s, 2), RT_ERROR_NONE);
    CHECK_EQ(rtEventRecord(b, s), RT_ERROR_NONE);
    CHECK_EQ(rtEventQuery(b), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    rtEventStatus_t st = RT_EVENT_RECORDED;
    CHECK_EQ(rtEventQueryStatus(b, &st), RT_ERROR_NONE);
    CHECK_EQ(st, RT_EVENT_INIT);
    CHECK_EQ(rtEventElapsedTime(&ms, a, b), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    CHECK_EQ(rtEventSynchronize(b), RT_ERROR_NONE);
    CHECK_EQ(rtEventQuery(b), RT_ERROR_NONE);
    CHECK_EQ(rtEventQueryStatus(b, &st), RT_ERROR_NONE);
    CHECK_EQ(st, RT_EVENT_RECORDED);
    CHECK_EQ(rtEventElapsedTime(&ms, a, b), RT_ERROR_NONE);
    CHECK_RANGE(ms * 1000.0f, 301999, 302001);
    uint64_t ta = 0, tb = 0;
    CHECK_EQ(rtEventGetTimeStamp(&ta, a), RT_ERROR_NONE);
    CHECK_EQ(rtEventGetTimeStamp(&tb, b), RT_ERROR_NONE);
    CHECK_RANGE(tb - ta, 301999, 302001); /* microseconds */
    CHECK_EQ(rtEventElapsedTime(&ms, b, a), ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);

    /* a second stream waiting on an event starts after it */
    rtStream_t s2 = NULL;
    CHECK_EQ(rtStreamCreate(&s2, 0), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(s, 30), RT_ERROR_NONE);
    CHECK_EQ(rtEventRecord(a, s), RT_ERROR_NONE);
    CHECK_EQ(rtStreamWaitEvent(s2, a), RT_ERROR_NONE);
    CHECK_EQ(rtEventRecord(b, s2), RT_ERROR_NONE);
    CHECK_EQ(rtEventSynchronize(b), RT_ERROR_NONE);
    CHECK_EQ(rtEventElapsedTime(&ms, a, b), RT_ERROR_NONE);
    CHECK(ms >= 0.0f);
    CHECK_EQ(rtEventDestroy(a), RT_ERROR_NONE);
    CHECK_EQ(rtEventDestroy(b), RT_ERROR_NONE);
    CHECK_EQ(rtEventQuery(a), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtStreamDestroy(s2), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
}

static void test_sync_timeout(void) {
    CHECK_EQ(rtSetDevice(1), RT_ERROR_NONE);
    rtStream_t s = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(s, 1000), RT_ERROR_NONE);
    uint64_t t0 = test_now_ns();
    CHECK_EQ(rtStreamSynchronizeWithTimeout(s, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    CHECK_RANGE(test_now_ns() - t0, 50 * MS, 5000 * MS);
    CHECK_EQ(rtStreamSynchronizeWithTimeout(s, -1), RT_ERROR_NONE);
    CHECK_EQ(rtDeviceSynchronize(), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
}

static void test_models(void) {
    CHECK_EQ(rtSetDevice(2), RT_ERROR_NONE);
    rtStream_t s = NULL, load = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtStreamCreate(&load, 0), RT_ERROR_NONE);
    /* bound stream: launches become tasks of the model instead of running */
    rtModel_t m = NULL;
    CHECK_EQ(rtModelCreate(&m, 0), RT_ERROR_NONE);
    CHECK_EQ(rtModelExecute(m, s, 0), ACL_ERROR_RT_MODEL_EXECUTE); /* not loaded yet */
    CHECK_EQ(rtModelBindStream(m, load, 0), RT_ERROR_NONE);
    for (int i = 0; i < 4; i++) CHECK_EQ(launch_ms(load, 5), RT_ERROR_NONE);
    CHECK_EQ(rtModelUnbindStream(m, load), RT_ERROR_NONE);
    CHECK_EQ(rtModelLoadComplete(m), RT_ERROR_NONE);
    struct vnpu_sim_busy_record before, after;
    CHECK_EQ(read_busy(getpid(), 2, &before) == 0 ? 1 : 0, 0); /* nothing ran on device 2 */
    CHECK_EQ(rtModelExecute(m, s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtModelExecuteSync(m, s, 0, -1), RT_ERROR_NONE);
    CHECK_EQ(read_busy(getpid(), 2, &after), 0);
    CHECK_EQ(after.busy_ns, 2 * 20 * MS);
    CHECK_EQ(after.tasks, 2); /* one task per execution */

    /* capture */
    rtModel_t cap = NULL;
    rtStreamCaptureStatus cs = RT_STREAM_CAPTURE_STATUS_MAX;
    CHECK_EQ(rtStreamBeginCapture(load, RT_STREAM_CAPTURE_MODE_GLOBAL), RT_ERROR_NONE);
    CHECK_EQ(rtStreamBeginCapture(load, RT_STREAM_CAPTURE_MODE_GLOBAL), ACL_ERROR_RT_STREAM_CAPTURED);
    CHECK_EQ(rtStreamGetCaptureInfo(load, &cs, &cap), RT_ERROR_NONE);
    CHECK_EQ(cs, RT_STREAM_CAPTURE_STATUS_ACTIVE);
    CHECK(cap != NULL);
    for (int i = 0; i < 3; i++) CHECK_EQ(launch_ms(load, 1), RT_ERROR_NONE);
    CHECK_EQ(rtStreamEndCapture(load, &cap), RT_ERROR_NONE);
    CHECK_EQ(rtStreamGetCaptureInfo(load, &cs, NULL), RT_ERROR_NONE);
    CHECK_EQ(cs, RT_STREAM_CAPTURE_STATUS_NONE);
    CHECK_EQ(rtStreamEndCapture(load, &cap), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
    CHECK_EQ(rtModelExecuteSync(cap, s, 0, 1000), RT_ERROR_NONE);
    CHECK_EQ(read_busy(getpid(), 2, &after), 0);
    CHECK_EQ(after.busy_ns, 43 * MS);
    CHECK_EQ(rtsModelExecute(cap, -1), RT_ERROR_NONE); /* on the model's own stream, waits */
    CHECK_EQ(read_busy(getpid(), 2, &after), 0);
    CHECK_EQ(after.busy_ns, 46 * MS);
    CHECK(after.last_end_ns <= test_now_ns());
    CHECK_EQ(rtModelDestroy(cap), RT_ERROR_NONE);
    CHECK_EQ(rtModelDestroy(m), RT_ERROR_NONE);
    CHECK_EQ(rtModelDestroy(m), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtStreamDestroy(load), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
}

static void test_every_launch_symbol(void) {
    CHECK_EQ(rtSetDevice(4), RT_ERROR_NONE);
    rtStream_t s = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    struct vnpu_sim_kernel_args k = {VNPU_SIM_KERNEL_MAGIC, MS};
    rtArgsEx_t ax;
    memset(&ax, 0, sizeof(ax));
    ax.args = &k;
    ax.argsSize = sizeof(k);
    rtAicpuArgsEx_t cx;
    memset(&cx, 0, sizeof(cx));
    cx.args = &k;
    cx.argsSize = sizeof(k);
    rtCpuKernelArgs_t cpu;
    memset(&cpu, 0, sizeof(cpu));
    cpu.baseArgs = cx;
    rtKernelLaunchNames_t names = {"libsim.so", "kernel", "op"};
    void *argv[1] = {&k};
    void *handle = (void *)STUB;
    CHECK_EQ(rtKernelLaunch(STUB, 1, &k, sizeof(k), NULL, s), RT_ERROR_NONE);
    CHECK_EQ(rtKernelLaunchWithFlag(STUB, 1, &ax, NULL, s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtKernelLaunchWithFlagV2(STUB, 1, &ax, NULL, s, 0, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtKernelLaunchWithHandle(handle, 0, 1, &ax, NULL, s, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtKernelLaunchWithHandleV2(handle, 0, 1, &ax, NULL, s, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtKernelLaunchEx(&k, sizeof(k), 0, s), RT_ERROR_NONE);
    CHECK_EQ(rtKernelLaunchFwk("op", &k, sizeof(k), 0, s), RT_ERROR_NONE);
    CHECK_EQ(rtAicpuKernelLaunchWithFlag(&names, 1, &ax, NULL, s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtAicpuKernelLaunchExWithArgs(0, "op", 1, &cx, NULL, s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtCpuKernelLaunchWithFlag("libsim.so", "kernel", 1, &ax, NULL, s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtVectorCoreKernelLaunch(STUB, 1, &ax, NULL, s, 0, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtVectorCoreKernelLaunchWithHandle(handle, 0, 1, &ax, NULL, s, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtLaunchKernelByFuncHandleV3(handle, 1, &ax, s, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtsLaunchKernelWithHostArgs(handle, 1, s, NULL, &k, sizeof(k), NULL, 0), RT_ERROR_NONE);
    CHECK_EQ(rtsLaunchCpuKernel(handle, 1, s, NULL, &cpu), RT_ERROR_NONE);
    CHECK_EQ(rtLaunchKernelWithArgsArray(handle, 1, s, NULL, argv), RT_ERROR_NONE);
    /* 16 launches of 1 ms above; the next four run for the default duration (args not readable) */
    CHECK_EQ(rtLaunchKernelByFuncHandle(handle, 1, handle, s), RT_ERROR_NONE);
    CHECK_EQ(rtLaunchKernelByFuncHandleV2(handle, 1, handle, s, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtsLaunchKernelWithConfig(handle, 1, s, NULL, handle, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtsLaunchKernelWithDevArgs(handle, 1, s, NULL, handle, 64, NULL), RT_ERROR_NONE);
    CHECK_EQ(rtStreamSynchronize(s), RT_ERROR_NONE);
    struct vnpu_sim_busy_record r;
    CHECK_EQ(read_busy(getpid(), 4, &r), 0);
    CHECK_EQ(r.tasks, 20);
    CHECK_EQ(r.busy_ns, 16 * MS + 4 * 250000ULL); /* VNPU_SIM_KERNEL_NS=250000 set in main */
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
}

static void test_stream_depth(void) {
    /* VNPU_SIM_STREAM_DEPTH=4 (set in main): the fifth unfinished launch waits for the first */
    CHECK_EQ(rtSetDevice(5), RT_ERROR_NONE);
    rtStream_t s = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    for (int i = 0; i < 4; i++) CHECK_EQ(launch_ms(s, 250), RT_ERROR_NONE);
    struct vnpu_sim_busy_record r;
    CHECK_EQ(read_busy(getpid(), 5, &r), 0);
    CHECK(r.last_end_ns > test_now_ns()); /* four launches queued without waiting */
    CHECK_EQ(launch_ms(s, 1), RT_ERROR_NONE);
    CHECK(test_now_ns() >= r.first_start_ns + 250 * MS); /* the fifth waited for the first to finish */
    CHECK_EQ(rtStreamSynchronize(s), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
}

/* Two processes saturating one device: their tasks never overlap, so together they need the sum. */
static void burner(int dev, int ready_fd, int go_fd, uint64_t ms, int count) {
    CHECK_EQ(rtSetDevice(dev), RT_ERROR_NONE);
    rtStream_t s = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    char c = 'r';
    CHECK_EQ(write(ready_fd, &c, 1), 1);
    CHECK_EQ(read(go_fd, &c, 1), 1);
    for (int i = 0; i < count; i++) CHECK_EQ(launch_ms(s, ms), RT_ERROR_NONE);
    CHECK_EQ(rtStreamSynchronize(s), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(s), RT_ERROR_NONE);
}

static void run_pair(int dev_a, int dev_b, pid_t pids[2], uint64_t *wall) {
    int ready[2], go[2];
    CHECK_EQ(pipe(ready), 0);
    CHECK_EQ(pipe(go), 0);
    int devs[2] = {dev_a, dev_b};
    fflush(stdout);
    for (int i = 0; i < 2; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            test_failures = 0; /* report only the child's own failures */
            burner(devs[i], ready[1], go[0], 4, 50);
            exit(test_failures == 0 ? 0 : 1);
        }
    }
    char c;
    for (int i = 0; i < 2; i++) CHECK_EQ(read(ready[0], &c, 1), 1);
    uint64_t t0 = test_now_ns();
    CHECK_EQ(write(go[1], "gg", 2), 2);
    for (int i = 0; i < 2; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    *wall = test_now_ns() - t0;
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    close(go[1]);
}

static void test_exclusive_across_processes(void) {
    struct vnpu_sim_device_time before, after;
    CHECK_EQ(read_device_time(6, &before), 0);
    pid_t pids[2];
    uint64_t wall = 0;
    run_pair(6, 6, pids, &wall);
    struct vnpu_sim_busy_record a, b;
    CHECK_EQ(read_busy(pids[0], 6, &a), 0);
    CHECK_EQ(read_busy(pids[1], 6, &b), 0);
    CHECK_EQ(a.busy_ns, 200 * MS);
    CHECK_EQ(b.busy_ns, 200 * MS);
    uint64_t first = a.first_start_ns < b.first_start_ns ? a.first_start_ns : b.first_start_ns;
    uint64_t last = a.last_end_ns > b.last_end_ns ? a.last_end_ns : b.last_end_ns;
    CHECK(last - first >= 400 * MS); /* no overlap: the span covers both processes' device time */
    CHECK(wall >= 400 * MS);
    CHECK_EQ(read_device_time(6, &after), 0);
    CHECK_EQ(after.busy_ns - before.busy_ns, 400 * MS);
    CHECK_EQ(after.tasks - before.tasks, 100);
    /* and they interleave rather than one reserving the device for all its work (bounded stream
     * depth): started together, their spans overlap */
    CHECK(a.first_start_ns < b.last_end_ns && b.first_start_ns < a.last_end_ns);

    /* different devices run in parallel */
    run_pair(6, 7, pids, &wall);
    CHECK_EQ(read_busy(pids[0], 6, &a), 0);
    CHECK_EQ(read_busy(pids[1], 7, &b), 0);
    CHECK_EQ(a.busy_ns, 200 * MS);
    CHECK_EQ(b.busy_ns, 200 * MS);
    CHECK(a.first_start_ns < b.last_end_ns && b.first_start_ns < a.last_end_ns); /* overlapping spans */
}

/* A timeline left by an earlier boot (other boot tag) must not delay this boot's launches. */
static void plant_stale_timeline(void) {
    char path[700];
    snprintf(path, sizeof(path), "%s", getenv("VNPU_SIM_ROOT"));
    mkdir(path, 0777);
    snprintf(path, sizeof(path), "%s/device-time.bin", getenv("VNPU_SIM_ROOT"));
    struct vnpu_sim_device_time t[VNPU_SIM_MAX_DEVICES];
    memset(t, 0, sizeof(t));
    t[3].busy_until_ns = test_now_ns() + 3600ULL * 1000 * MS;
    t[3].boot_tag = 12345;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    CHECK(fd >= 0 && write(fd, t, sizeof(t)) == (ssize_t)sizeof(t));
    if (fd >= 0) close(fd);
}

static void test_stale_timeline_ignored(void) {
    CHECK_EQ(rtSetDevice(3), RT_ERROR_NONE);
    uint64_t t0 = test_now_ns();
    CHECK_EQ(launch_ms(NULL, 5), RT_ERROR_NONE);
    CHECK_EQ(rtStreamSynchronizeWithTimeout(NULL, 5000), RT_ERROR_NONE);
    CHECK(test_now_ns() - t0 < 5000 * MS);
}


/* a thread using a context that another thread destroys meanwhile: it has none left (CANN checks
 * its set of live contexts; 107002) */
struct ctx_user {
    rtContext_t ctx;
    sem_t set, destroyed;
};

static void *use_destroyed_context(void *arg) {
    struct ctx_user *u = arg;
    CHECK_EQ(rtCtxSetCurrent(u->ctx), RT_ERROR_NONE);
    sem_post(&u->set);
    sem_wait(&u->destroyed);
    rtStream_t s = NULL;
    CHECK_EQ(rtStreamCreate(&s, 0), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK_EQ(launch_ms(NULL, 1), ACL_ERROR_RT_CONTEXT_NULL);
    return NULL;
}

static void test_contexts_own_streams(void) {
    rtContext_t ctx = NULL, primary = NULL;
    rtStream_t s = NULL, mine = NULL, again = NULL;
    rtModel_t m = NULL;
    CHECK_EQ(rtSetDevice(1), RT_ERROR_NONE);
    CHECK_EQ(rtCtxGetCurrent(&primary), RT_ERROR_NONE);
    /* a primary context is the device's (CANN: RT_ERROR_CONTEXT_NULL, 107002); no context at all is a
     * bad parameter (107000) */
    CHECK_EQ(rtCtxDestroy(primary), ACL_ERROR_RT_CONTEXT_NULL);
    CHECK_EQ(rtCtxDestroy(NULL), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtStreamCreate(&mine, 0), RT_ERROR_NONE);           /* the primary context's */

    CHECK_EQ(rtCtxCreate(&ctx, RT_CTX_NORMAL_MODE, 1), RT_ERROR_NONE); /* current from here on */
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(s, 1), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(mine, 1), ACL_ERROR_RT_STREAM_CONTEXT); /* same device, another context's stream */
    CHECK_EQ(rtModelCreate(&m, 0), RT_ERROR_NONE);
    CHECK_EQ(rtModelBindStream(m, s, 0), RT_ERROR_NONE);
    /* the context's default stream is its own: busy here, idle in the primary context */
    CHECK_EQ(launch_ms(NULL, 200), RT_ERROR_NONE);
    CHECK_EQ(rtStreamQuery(NULL), ACL_ERROR_RT_STREAM_NOT_COMPLETE);
    CHECK_EQ(rtCtxSetCurrent(primary), RT_ERROR_NONE);
    CHECK_EQ(rtStreamQuery(NULL), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(s, 1), ACL_ERROR_RT_STREAM_CONTEXT);
    /* a model is bound, unbound and destroyed in its own context only (CANN: "model not in current
     * ctx", 107004); the stream's context is not checked */
    rtModel_t pm = NULL;
    CHECK_EQ(rtModelBindStream(m, mine, 0), ACL_ERROR_RT_MODEL_CONTEXT);
    CHECK_EQ(rtModelUnbindStream(m, s), ACL_ERROR_RT_MODEL_CONTEXT);
    CHECK_EQ(rtModelDestroy(m), ACL_ERROR_RT_MODEL_CONTEXT);
    CHECK_EQ(rtModelCreate(&pm, 0), RT_ERROR_NONE);
    CHECK_EQ(rtModelBindStream(pm, mine, 0), RT_ERROR_NONE);
    CHECK_EQ(rtModelUnbindStream(pm, mine), RT_ERROR_NONE);
    CHECK_EQ(rtModelDestroy(pm), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(mine, 1), RT_ERROR_NONE);

    /* destroying the context frees its stream and model: no rtStreamDestroy, no rtModelDestroy */
    CHECK_EQ(rtCtxDestroyEx(ctx), RT_ERROR_NONE);
    CHECK_EQ(rtStreamQuery(s), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtStreamDestroy(s), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtModelDestroy(m), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtCtxDestroy(ctx), ACL_ERROR_RT_CONTEXT_NULL); /* already destroyed (CANN: 107002) */
    CHECK_EQ(launch_ms(mine, 1), RT_ERROR_NONE); /* another context's stream is untouched */
    /* ... and the freed handle comes back for a stream of another device, as a runtime may */
    CHECK_EQ(rtSetDevice(2), RT_ERROR_NONE);
    CHECK_EQ(rtStreamCreate(&again, 0), RT_ERROR_NONE);
    CHECK(again == s);
    CHECK_EQ(launch_ms(again, 1), RT_ERROR_NONE);
    CHECK_EQ(rtStreamSynchronize(again), RT_ERROR_NONE);
    CHECK_EQ(rtStreamDestroy(again), RT_ERROR_NONE);

    /* a device reset frees the primary context's streams, not a user context's (which holds the
     * device until rtCtxDestroy) */
    CHECK_EQ(rtCtxCreateEx(&ctx, RT_CTX_NORMAL_MODE, 1), RT_ERROR_NONE);
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtDeviceResetForce(1), RT_ERROR_NONE);
    CHECK_EQ(rtStreamQuery(mine), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtStreamQuery(s), RT_ERROR_NONE);
    CHECK_EQ(launch_ms(s, 1), RT_ERROR_NONE);

    /* another thread's current context destroyed under it */
    struct ctx_user u = {.ctx = ctx};
    sem_init(&u.set, 0, 0);
    sem_init(&u.destroyed, 0, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, use_destroyed_context, &u), 0);
    sem_wait(&u.set);
    CHECK_EQ(rtCtxDestroy(ctx), RT_ERROR_NONE);
    sem_post(&u.destroyed);
    pthread_join(t, NULL);
    sem_destroy(&u.set);
    sem_destroy(&u.destroyed);
    CHECK_EQ(rtStreamQuery(s), ACL_ERROR_RT_PARAM_INVALID);
    int32_t dev = -1;
    CHECK_EQ(rtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL); /* this thread's current one went too */
    CHECK_EQ(rtSetDevice(2), RT_ERROR_NONE);
    CHECK_EQ(rtDeviceReset(2), RT_ERROR_NONE);
    /* the RTS layer's destroy is the same teardown */
    CHECK_EQ(rtCtxCreate(&ctx, RT_CTX_NORMAL_MODE, 2), RT_ERROR_NONE);
    CHECK_EQ(rtStreamCreate(&s, 0), RT_ERROR_NONE);
    CHECK_EQ(rtsCtxDestroy(ctx), RT_ERROR_NONE);
    CHECK_EQ(rtStreamQuery(s), ACL_ERROR_RT_PARAM_INVALID);
    CHECK_EQ(rtsCtxDestroy(ctx), ACL_ERROR_RT_CONTEXT_NULL);
}

int main(void) {
    test_fresh_host("test_rt_time");
    setenv("VNPU_SIM_QUIET", "1", 1);
    setenv("VNPU_SIM_KERNEL_NS", "250000", 1);
    setenv("VNPU_SIM_STREAM_DEPTH", "4", 1);
    plant_stale_timeline();
    test_stale_timeline_ignored();
    test_async_launch_and_sync();
    test_events();
    test_sync_timeout();
    test_models();
    test_every_launch_symbol();
    test_stream_depth();
    test_exclusive_across_processes();
    test_contexts_own_streams();
    TEST_DONE("test_rt_time");
}
