/*
 * Streams, events, kernel launches and models of the simulated runtime.
 *
 * Device time is a timestamp timeline rather than a worker thread: a launch returns at once (like
 * real hardware it only queues work) after reserving an exclusive slot on its device's shared
 * timeline (device-time.bin, busy_until advanced by CAS, so tasks of all processes of the simulated
 * host never overlap). A task starts when its device is free and the previous task of its stream
 * has finished; synchronisation sleeps until the stream's last end time, events complete at the
 * end time of the work recorded before them. A stream accepts at most VNPU_SIM_STREAM_DEPTH
 * unfinished tasks (default 64); a further launch blocks until the oldest one completes, like a
 * full submission queue, which keeps one process from reserving the device far into the future.
 */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_DEPTH 64U
#define MAX_DEPTH 4096U
#define STREAM_MAGIC 0x5354524d53494dULL
#define EVENT_MAGIC 0x45564e5453494dULL
#define MODEL_MAGIC 0x4d4f444c53494dULL

/*
 * The head of every object the runtime hands out as a handle (stream, event, model): each kind is
 * a list of them under objs.lock, and a handle is valid while it is in its list (never
 * dereferenced before it is found there).
 */
struct handle {
    uint64_t magic; /* of its kind while it lives, 0 once freed */
    struct handle *next;
};

struct sim_model {
    struct handle h;
    int dev; /* device of its creator (-1: unknown until executed on a stream) */
    const void *ctx; /* the context it was created in (NULL: none), which frees it when destroyed */
    uint32_t tasks;
    uint64_t total_ns;
    int loaded;
};

struct sim_stream {
    struct handle h;
    int dev;
    const void *ctx; /* the context current at its creation, which owns it (NULL: a private stream) */
    pthread_mutex_t lock;
    uint64_t tail_end_ns;   /* end of the last task queued */
    uint64_t wait_until_ns; /* rtStreamWaitEvent: no task starts before */
    uint64_t *ring;         /* end times of unfinished tasks, oldest at head */
    unsigned head, count, depth;
    struct sim_model *bound;   /* rtModelBindStream: launches become model tasks */
    struct sim_model *capture; /* rtStreamBeginCapture: likewise */
};

struct sim_event {
    struct handle h;
    int recorded;
    uint64_t ts_ns;
};

struct objects {
    pthread_mutex_t lock;
    struct handle *streams; /* of struct sim_stream */
    struct handle *events;  /* of struct sim_event */
    struct handle *models;  /* of struct sim_model */
    struct sim_stream *defaults[VNPU_SIM_MAX_DEVICES]; /* of the primary contexts */
    struct handle *ctx_defaults; /* of struct sim_stream: the default streams of user contexts */
};

static struct objects objs = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Enters h, of kind magic, at the head of list. */
static void handle_add(struct handle **list, struct handle *h, uint64_t magic) {
    h->magic = magic;
    pthread_mutex_lock(&objs.lock);
    h->next = *list;
    *list = h;
    pthread_mutex_unlock(&objs.lock);
}

/* The link that points at key in list (the list's end when key is not in it); objs.lock held. */
static struct handle **handle_link_locked(struct handle **list, const void *key) {
    while (*list != NULL && (const void *)*list != key) list = &(*list)->next;
    return list;
}

/* The object of handle key in list, NULL when it is none of them. */
static struct handle *handle_find(struct handle **list, const void *key) {
    pthread_mutex_lock(&objs.lock);
    struct handle *found = *handle_link_locked(list, key);
    pthread_mutex_unlock(&objs.lock);
    return found;
}

/* Takes key out of list; the object, or NULL when it is none of them. objs.lock held. */
static struct handle *handle_remove_locked(struct handle **list, const void *key) {
    struct handle **link = handle_link_locked(list, key);
    struct handle *found = *link;
    if (found != NULL) *link = found->next;
    return found;
}

static struct handle *handle_remove(struct handle **list, const void *key) {
    pthread_mutex_lock(&objs.lock);
    struct handle *found = handle_remove_locked(list, key);
    pthread_mutex_unlock(&objs.lock);
    return found;
}
static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static unsigned stream_depth = DEFAULT_DEPTH;
static uint64_t default_kernel_ns = VNPU_SIM_DEFAULT_KERNEL_NS;
static uint64_t first_launch_ns; /* VNPU_SIM_FIRST_LAUNCH_NS */
static int launched;             /* the process launched a kernel (first_launch_ns spent) */

static void read_config(void) {
    const char *d = getenv("VNPU_SIM_STREAM_DEPTH");
    if (d != NULL) {
        char *end;
        unsigned long v = strtoul(d, &end, 10);
        if (*end == '\0' && v >= 1 && v <= MAX_DEPTH) stream_depth = (unsigned)v;
        else sim_log("ignoring VNPU_SIM_STREAM_DEPTH=%s: expected 1..%u", d, MAX_DEPTH);
    }
    const char *k = getenv("VNPU_SIM_KERNEL_NS");
    if (k != NULL) {
        char *end;
        unsigned long long v = strtoull(k, &end, 10);
        if (*end == '\0' && v <= VNPU_SIM_MAX_KERNEL_NS) default_kernel_ns = v;
        else sim_log("ignoring VNPU_SIM_KERNEL_NS=%s: expected 0..%llu", k, VNPU_SIM_MAX_KERNEL_NS);
    }
    const char *f = getenv("VNPU_SIM_FIRST_LAUNCH_NS");
    if (f != NULL) {
        char *end;
        unsigned long long v = strtoull(f, &end, 10);
        if (*end == '\0' && v <= VNPU_SIM_MAX_KERNEL_NS) first_launch_ns = v;
        else sim_log("ignoring VNPU_SIM_FIRST_LAUNCH_NS=%s: expected 0..%llu", f, VNPU_SIM_MAX_KERNEL_NS);
    }
}

static uint64_t kernel_duration(const void *args, uint64_t size) {
    pthread_once(&config_once, read_config);
    struct vnpu_sim_kernel_args k;
    if (args == NULL || size < sizeof(k)) return default_kernel_ns;
    memcpy(&k, args, sizeof(k));
    if (k.magic != VNPU_SIM_KERNEL_MAGIC) return default_kernel_ns;
    return k.duration_ns > VNPU_SIM_MAX_KERNEL_NS ? VNPU_SIM_MAX_KERNEL_NS : k.duration_ns;
}

/* Destroyed stream objects, handed out again (newest first) for the next streams, as a runtime
 * recycles its stream objects: a handle a caller saw can come back naming a stream of another
 * device whatever the allocator does (ASan's quarantine, for one, never reuses at once). Its own
 * lock: streams are freed with objs.lock held and without it. */
#define SPARE_STREAMS 64
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static struct sim_stream *spare[SPARE_STREAMS];
static unsigned spare_n;

static struct sim_stream *new_stream(int dev, const void *ctx) {
    pthread_once(&config_once, read_config);
    struct sim_stream *s = NULL;
    pthread_mutex_lock(&spare_mu);
    if (spare_n > 0) s = spare[--spare_n];
    pthread_mutex_unlock(&spare_mu);
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        if (s == NULL) return NULL;
        s->ring = calloc(stream_depth, sizeof(uint64_t));
        if (s->ring == NULL) {
            free(s);
            return NULL;
        }
    } else {
        uint64_t *ring = s->ring;
        memset(s, 0, sizeof(*s));
        memset(ring, 0, stream_depth * sizeof(uint64_t));
        s->ring = ring;
    }
    s->depth = stream_depth;
    s->dev = dev;
    s->ctx = ctx;
    s->h.magic = STREAM_MAGIC;
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static void free_stream(struct sim_stream *s) {
    s->h.magic = 0;
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_lock(&spare_mu);
    int kept = spare_n < SPARE_STREAMS;
    if (kept) spare[spare_n++] = s;
    pthread_mutex_unlock(&spare_mu);
    if (kept) return;
    free(s->ring);
    free(s);
}

/* The default stream of the thread's current context, created on first use; objs.lock held. A
 * primary context's is the device's; a user context has its own, freed with it. */
static struct sim_stream *default_stream_locked(rtError_t *rc) {
    int dev = sim_current_device();
    const void *ctx = dev < 0 ? NULL : sim_ctx_current();
    if (ctx == sim_ctx_primary(dev) && ctx != NULL) {
        if (objs.defaults[dev] == NULL) objs.defaults[dev] = new_stream(dev, ctx);
        *rc = objs.defaults[dev] == NULL ? ACL_ERROR_RT_NO_STREAM_RESOURCE : RT_ERROR_NONE;
        return objs.defaults[dev];
    }
    /* checked under objs.lock (which may be taken before the contexts' lock, never after): a context
     * destroyed meanwhile is either gone from the list already, or frees this stream after us */
    ctx = ctx == NULL ? NULL : sim_ctx_live_current();
    if (ctx == NULL) {
        *rc = ACL_ERROR_RT_CONTEXT_NULL;
        return NULL;
    }
    for (struct handle *h = objs.ctx_defaults; h != NULL; h = h->next)
        if (((struct sim_stream *)h)->ctx == ctx) {
            *rc = RT_ERROR_NONE;
            return (struct sim_stream *)h;
        }
    struct sim_stream *s = new_stream(dev, ctx);
    if (s == NULL) {
        *rc = ACL_ERROR_RT_NO_STREAM_RESOURCE;
        return NULL;
    }
    s->h.next = objs.ctx_defaults;
    objs.ctx_defaults = &s->h;
    *rc = RT_ERROR_NONE;
    return s;
}

/* The stream object for a handle: NULL means the default stream of the thread's current context. */
static struct sim_stream *resolve_stream(rtStream_t stm, rtError_t *rc) {
    pthread_mutex_lock(&objs.lock);
    struct sim_stream *found = NULL;
    if (stm == NULL) {
        found = default_stream_locked(rc);
    } else {
        found = (struct sim_stream *)*handle_link_locked(&objs.streams, stm);
        *rc = found == NULL ? ACL_ERROR_RT_PARAM_INVALID : RT_ERROR_NONE;
    }
    pthread_mutex_unlock(&objs.lock);
    return found;
}

static struct sim_event *resolve_event(rtEvent_t evt) {
    return (struct sim_event *)handle_find(&objs.events, evt);
}

static struct sim_model *resolve_model(rtModel_t mdl) {
    return (struct sim_model *)handle_find(&objs.models, mdl);
}

/* CANN binds, unbinds and destroys a model only in the context it was created in (107004, "model not
 * in current ctx"); with no live current context, 107002. The stream's context is not checked. */
static rtError_t model_in_current_ctx(const struct sim_model *m) {
    const void *cur = sim_ctx_live_current();
    if (cur == NULL) return ACL_ERROR_RT_CONTEXT_NULL;
    return m->ctx == cur ? RT_ERROR_NONE : ACL_ERROR_RT_MODEL_CONTEXT;
}

static void retire_finished(struct sim_stream *s, uint64_t now) {
    while (s->count > 0 && s->ring[s->head] <= now) {
        s->head = (s->head + 1) % s->depth;
        s->count--;
    }
}

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Queues `duration_ns` of exclusive device time on the stream; the caller holds s->lock. */
static void enqueue_locked(struct sim_stream *s, uint64_t duration_ns) {
    uint64_t now = sim_now_ns();
    retire_finished(s, now);
    while (s->count == s->depth) {
        /* bounded: the oldest task ends at a known time no later than depth * 10 s from now */
        uint64_t oldest = s->ring[s->head];
        pthread_mutex_unlock(&s->lock);
        sim_sleep_until(oldest);
        pthread_mutex_lock(&s->lock);
        now = sim_now_ns();
        retire_finished(s, now);
    }
    uint64_t ready = max_u64(now, max_u64(s->tail_end_ns, s->wait_until_ns));
    uint64_t end = sim_device_schedule(s->dev, ready, duration_ns);
    s->tail_end_ns = end;
    s->ring[(s->head + s->count) % s->depth] = end;
    s->count++;
}

static rtError_t launch(rtStream_t stm, uint64_t duration_ns) {
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    /* the runtime refuses a kernel on a stream outside the thread's current context (CANN:
     * RT_ERROR_STREAM_CONTEXT, 107003): another device's, or another context's of the same device. A
     * stream's context is alive (destroying it frees the stream), so a plain compare will do */
    if (s->ctx != sim_ctx_current()) return ACL_ERROR_RT_STREAM_CONTEXT;
    /* the process's first launch does host work before its kernel is queued (as CANN sets up lazily) */
    pthread_once(&config_once, read_config);
    if (first_launch_ns > 0 && !__atomic_exchange_n(&launched, 1, __ATOMIC_RELAXED))
        sim_sleep_until(sim_now_ns() + first_launch_ns);
    pthread_mutex_lock(&s->lock);
    struct sim_model *m = s->capture != NULL ? s->capture : s->bound;
    if (m != NULL) {
        m->tasks++;
        m->total_ns += duration_ns;
    } else {
        enqueue_locked(s, duration_ns);
    }
    pthread_mutex_unlock(&s->lock);
    return RT_ERROR_NONE;
}

/* ---- kernel launch entry points: every one queues one task on its stream ---- */

#define CHECK_LAUNCH(fn, blocks)                                                                   \
    do {                                                                                           \
        if ((fn) == NULL || (blocks) == 0) return ACL_ERROR_RT_PARAM_INVALID;                     \
    } while (0)

static uint64_t args_ex_duration(const rtArgsEx_t *a) {
    return a == NULL ? kernel_duration(NULL, 0) : kernel_duration(a->args, a->argsSize);
}

/* The launches that name their entry (function, handle or name) and pass an rtArgsEx_t. */
static rtError_t launch_args_ex(const void *entry, uint32_t numBlocks, const rtArgsEx_t *argsInfo, rtStream_t stm) {
    CHECK_LAUNCH(entry, numBlocks);
    if (argsInfo == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, args_ex_duration(argsInfo));
}

rtError_t rtKernelLaunch(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,
                         rtSmDesc_t *smDesc, rtStream_t stm) {
    (void)smDesc;
    CHECK_LAUNCH(stubFunc, numBlocks);
    return launch(stm, kernel_duration(args, argsSize));
}

rtError_t rtKernelLaunchWithFlag(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                 rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags) {
    (void)smDesc;
    (void)flags;
    return launch_args_ex(stubFunc, numBlocks, argsInfo, stm);
}

rtError_t rtKernelLaunchWithFlagV2(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo) {
    (void)cfgInfo;
    return rtKernelLaunchWithFlag(stubFunc, numBlocks, argsInfo, smDesc, stm, flags);
}

rtError_t rtKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, const void *kernelInfo) {
    (void)tilingKey;
    (void)smDesc;
    (void)kernelInfo;
    return launch_args_ex(hdl, numBlocks, argsInfo, stm);
}

rtError_t rtKernelLaunchWithHandleV2(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                     rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                     const rtTaskCfgInfo_t *cfgInfo) {
    (void)cfgInfo;
    return rtKernelLaunchWithHandle(hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, NULL);
}

rtError_t rtKernelLaunchEx(void *args, uint32_t argsSize, uint32_t flags, rtStream_t stm) {
    (void)flags;
    if (args == NULL || argsSize == 0) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(args, argsSize));
}

rtError_t rtKernelLaunchFwk(const char_t *opName, void *args, uint32_t argsSize, uint32_t flags,
                            rtStream_t rtStream) {
    (void)flags;
    if (opName == NULL || args == NULL || argsSize == 0) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(rtStream, kernel_duration(args, argsSize));
}

rtError_t rtAicpuKernelLaunchWithFlag(const rtKernelLaunchNames_t *launchNames, uint32_t numBlocks,
                                      const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                      uint32_t flags) {
    (void)smDesc;
    (void)flags;
    return launch_args_ex(launchNames, numBlocks, argsInfo, stm);
}

rtError_t rtAicpuKernelLaunchExWithArgs(const uint32_t kernelType, const char_t *const opName,
                                        const uint32_t numBlocks, const rtAicpuArgsEx_t *argsInfo,
                                        rtSmDesc_t *const smDesc, const rtStream_t stm, const uint32_t flags) {
    (void)kernelType;
    (void)smDesc;
    (void)flags;
    CHECK_LAUNCH(opName, numBlocks);
    if (argsInfo == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(argsInfo->args, argsInfo->argsSize));
}

rtError_t rtCpuKernelLaunchWithFlag(const void *soName, const void *kernelName, uint32_t numBlocks,
                                    const rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                    uint32_t flags) {
    (void)soName;
    (void)smDesc;
    (void)flags;
    return launch_args_ex(kernelName, numBlocks, argsInfo, stm);
}

rtError_t rtVectorCoreKernelLaunch(const void *stubFunc, uint32_t numBlocks, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo) {
    (void)cfgInfo;
    return rtKernelLaunchWithFlag(stubFunc, numBlocks, argsInfo, smDesc, stm, flags);
}

rtError_t rtVectorCoreKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t numBlocks,
                                             rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                             const rtTaskCfgInfo_t *cfgInfo) {
    (void)cfgInfo;
    return rtKernelLaunchWithHandle(hdl, tilingKey, numBlocks, argsInfo, smDesc, stm, NULL);
}

/* Argument handles are opaque runtime objects: these launches run for the default duration. */
rtError_t rtLaunchKernelByFuncHandle(rtFuncHandle funcHandle, uint32_t numBlocks, rtLaunchArgsHandle argsHandle,
                                     rtStream_t stm) {
    (void)argsHandle;
    CHECK_LAUNCH(funcHandle, numBlocks);
    return launch(stm, kernel_duration(NULL, 0));
}

rtError_t rtLaunchKernelByFuncHandleV2(rtFuncHandle funcHandle, uint32_t numBlocks, rtLaunchArgsHandle argsHandle,
                                       rtStream_t stm, const rtTaskCfgInfo_t *cfgInfo) {
    (void)cfgInfo;
    return rtLaunchKernelByFuncHandle(funcHandle, numBlocks, argsHandle, stm);
}

rtError_t rtLaunchKernelByFuncHandleV3(rtFuncHandle funcHandle, uint32_t numBlocks, const rtArgsEx_t *const argsInfo,
                                       rtStream_t stm, const rtTaskCfgInfo_t *const cfgInfo) {
    (void)cfgInfo;
    return launch_args_ex(funcHandle, numBlocks, argsInfo, stm);
}

rtError_t rtsLaunchKernelWithConfig(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                    rtKernelLaunchCfg_t *cfg, rtArgsHandle argsHandle, void *reserve) {
    (void)cfg;
    (void)reserve;
    CHECK_LAUNCH(funcHandle, numBlocks);
    if (argsHandle == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(NULL, 0));
}

/* Device-resident arguments are never read by the simulator: default duration. */
rtError_t rtsLaunchKernelWithDevArgs(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                     rtKernelLaunchCfg_t *cfg, const void *args, uint32_t argsSize, void *reserve) {
    (void)cfg;
    (void)reserve;
    CHECK_LAUNCH(funcHandle, numBlocks);
    if (args == NULL || argsSize == 0) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(NULL, 0));
}

rtError_t rtsLaunchKernelWithHostArgs(rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                                      rtKernelLaunchCfg_t *cfg, void *hostArgs, uint32_t argsSize,
                                      rtPlaceHolderInfo_t *placeHolderArray, uint32_t placeHolderNum) {
    (void)cfg;
    (void)placeHolderArray;
    (void)placeHolderNum;
    CHECK_LAUNCH(funcHandle, numBlocks);
    if (hostArgs == NULL || argsSize == 0) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(hostArgs, argsSize));
}

rtError_t rtsLaunchCpuKernel(const rtFuncHandle funcHandle, uint32_t numBlocks, rtStream_t stm,
                             const rtKernelLaunchCfg_t *cfg, rtCpuKernelArgs_t *argsInfo) {
    (void)cfg;
    CHECK_LAUNCH(funcHandle, numBlocks);
    if (argsInfo == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(argsInfo->baseArgs.args, argsInfo->baseArgs.argsSize));
}

/* args[0] may point at a struct vnpu_sim_kernel_args (the first kernel argument). */
rtError_t rtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks, rtStream_t stm, rtKernelLaunchCfg_t *cfg,
                                      void **args) {
    (void)cfg;
    CHECK_LAUNCH(func, numBlocks);
    if (args == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return launch(stm, kernel_duration(args[0], args[0] == NULL ? 0 : sizeof(struct vnpu_sim_kernel_args)));
}

/* ---- streams ---- */

rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority) {
    (void)priority;
    if (stm == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    int dev = sim_current_device();
    const void *ctx = dev < 0 ? NULL : sim_ctx_current();
    if (ctx == NULL) return ACL_ERROR_RT_CONTEXT_NULL;
    struct sim_stream *s = new_stream(dev, ctx);
    if (s == NULL) return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    /* the context checked under objs.lock, as in default_stream_locked: never a stream of a context
     * whose teardown already ran */
    pthread_mutex_lock(&objs.lock);
    int live = sim_ctx_live_current() == ctx;
    if (live) {
        s->h.next = objs.streams;
        objs.streams = &s->h;
    }
    pthread_mutex_unlock(&objs.lock);
    if (!live) {
        free_stream(s);
        return ACL_ERROR_RT_CONTEXT_NULL;
    }
    *stm = s;
    return RT_ERROR_NONE;
}

rtError_t rtStreamDestroy(rtStream_t stm) {
    if (stm == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_stream *s = (struct sim_stream *)handle_remove(&objs.streams, stm);
    if (s == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    free_stream(s); /* queued tasks keep their device slots, as on hardware */
    return RT_ERROR_NONE;
}

static uint64_t stream_tail(struct sim_stream *s) {
    pthread_mutex_lock(&s->lock);
    uint64_t t = s->tail_end_ns;
    pthread_mutex_unlock(&s->lock);
    return t;
}

rtError_t rtStreamSynchronize(rtStream_t stm) {
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    sim_sleep_until(stream_tail(s));
    return RT_ERROR_NONE;
}

rtError_t rtStreamSynchronizeWithTimeout(rtStream_t stm, int32_t timeout) {
    if (timeout < -1) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    return sim_sync_until(stream_tail(s), timeout);
}

rtError_t rtStreamQuery(rtStream_t stm) {
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    return stream_tail(s) <= sim_now_ns() ? RT_ERROR_NONE : ACL_ERROR_RT_STREAM_NOT_COMPLETE;
}

rtError_t rtStreamWaitEvent(rtStream_t stm, rtEvent_t evt) {
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    struct sim_event *e = resolve_event(evt);
    if (e == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&s->lock);
    if (e->recorded) s->wait_until_ns = max_u64(s->wait_until_ns, e->ts_ns);
    pthread_mutex_unlock(&s->lock);
    return RT_ERROR_NONE;
}

uint64_t sim_streams_tail(int dev) {
    uint64_t t = 0;
    pthread_mutex_lock(&objs.lock);
    for (struct handle *h = objs.streams; h != NULL; h = h->next) {
        struct sim_stream *s = (struct sim_stream *)h;
        if (s->dev == dev) t = max_u64(t, stream_tail(s));
    }
    for (struct handle *h = objs.ctx_defaults; h != NULL; h = h->next) {
        struct sim_stream *s = (struct sim_stream *)h;
        if (s->dev == dev) t = max_u64(t, stream_tail(s));
    }
    if (objs.defaults[dev] != NULL) t = max_u64(t, stream_tail(objs.defaults[dev]));
    pthread_mutex_unlock(&objs.lock);
    return t;
}

static void model_free_locked(struct sim_model *m);

/* Frees every stream of list owned by ctx; objs.lock held. */
static void release_ctx_streams_locked(struct handle **list, const void *ctx) {
    for (struct handle **link = list; *link != NULL;) {
        struct sim_stream *s = (struct sim_stream *)*link;
        if (s->ctx == ctx) {
            *link = s->h.next;
            free_stream(s); /* queued tasks keep their device slots, as with rtStreamDestroy */
        } else {
            link = &s->h.next;
        }
    }
}

/* A context's teardown: its models (unbound from any stream first), its streams and its default
 * stream, with no rtModelDestroy or rtStreamDestroy call; their handles may come back for new ones. */
void sim_streams_release_ctx(const void *ctx) {
    if (ctx == NULL) return;
    pthread_mutex_lock(&objs.lock);
    for (struct handle **link = &objs.models; *link != NULL;) {
        struct sim_model *m = (struct sim_model *)*link;
        if (m->ctx == ctx) {
            *link = m->h.next;
            model_free_locked(m);
        } else {
            link = &m->h.next;
        }
    }
    release_ctx_streams_locked(&objs.ctx_defaults, ctx);
    release_ctx_streams_locked(&objs.streams, ctx); /* freed last: their handles come back first */
    pthread_mutex_unlock(&objs.lock);
}

/* The last reference to dev went: its primary context is torn down (user contexts on dev keep
 * theirs until rtCtxDestroy), and the device's default stream with it. */
void sim_streams_release_device(int dev) {
    sim_streams_release_ctx(sim_ctx_primary(dev));
    pthread_mutex_lock(&objs.lock);
    if (objs.defaults[dev] != NULL) free_stream(objs.defaults[dev]);
    objs.defaults[dev] = NULL;
    pthread_mutex_unlock(&objs.lock);
}

/* ---- capture ---- */

static struct sim_model *new_model(int dev, const void *ctx) {
    struct sim_model *m = calloc(1, sizeof(*m));
    if (m == NULL) return NULL;
    m->dev = dev;
    m->ctx = ctx;
    handle_add(&objs.models, &m->h, MODEL_MAGIC);
    return m;
}

rtError_t rtStreamBeginCapture(rtStream_t stm, const rtStreamCaptureMode mode) {
    if (stm == NULL || mode >= RT_STREAM_CAPTURE_MODE_MAX) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    struct sim_model *m = new_model(s->dev, s->ctx);
    if (m == NULL) return ACL_ERROR_RT_NO_MODEL_RESOURCE;
    pthread_mutex_lock(&s->lock);
    rc = s->capture != NULL || s->bound != NULL ? ACL_ERROR_RT_STREAM_CAPTURED : RT_ERROR_NONE;
    if (rc == RT_ERROR_NONE) s->capture = m;
    pthread_mutex_unlock(&s->lock);
    if (rc != RT_ERROR_NONE) rtModelDestroy(m);
    return rc;
}

rtError_t rtStreamEndCapture(rtStream_t stm, rtModel_t *captureMdl) {
    if (captureMdl == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    pthread_mutex_lock(&s->lock);
    struct sim_model *m = s->capture;
    s->capture = NULL;
    pthread_mutex_unlock(&s->lock);
    if (m == NULL) return ACL_ERROR_RT_STREAM_NOT_CAPTURED;
    m->loaded = 1;
    *captureMdl = m;
    return RT_ERROR_NONE;
}

rtError_t rtStreamGetCaptureInfo(rtStream_t stm, rtStreamCaptureStatus *const status, rtModel_t *captureMdl) {
    if (status == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    pthread_mutex_lock(&s->lock);
    *status = s->capture != NULL ? RT_STREAM_CAPTURE_STATUS_ACTIVE : RT_STREAM_CAPTURE_STATUS_NONE;
    if (captureMdl != NULL) *captureMdl = s->capture;
    pthread_mutex_unlock(&s->lock);
    return RT_ERROR_NONE;
}

/* ---- events ---- */

rtError_t rtEventCreate(rtEvent_t *evt) {
    if (evt == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (sim_current_device() < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    struct sim_event *e = calloc(1, sizeof(*e));
    if (e == NULL) return ACL_ERROR_RT_NO_EVENT_RESOURCE;
    handle_add(&objs.events, &e->h, EVENT_MAGIC);
    *evt = e;
    return RT_ERROR_NONE;
}

rtError_t rtEventCreateWithFlag(rtEvent_t *evt, uint32_t flag) {
    (void)flag;
    return rtEventCreate(evt);
}

rtError_t rtEventDestroy(rtEvent_t evt) {
    if (evt == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_event *e = (struct sim_event *)handle_remove(&objs.events, evt);
    if (e == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    e->h.magic = 0;
    free(e);
    return RT_ERROR_NONE;
}

/* The event completes when everything queued before it on the stream has finished. */
rtError_t rtEventRecord(rtEvent_t evt, rtStream_t stm) {
    struct sim_event *e = resolve_event(evt);
    if (e == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    pthread_mutex_lock(&s->lock);
    uint64_t ts = max_u64(sim_now_ns(), max_u64(s->tail_end_ns, s->wait_until_ns));
    int captured = s->capture != NULL || s->bound != NULL;
    pthread_mutex_unlock(&s->lock);
    if (captured) return RT_ERROR_NONE; /* becomes part of the model; not timed by the simulator */
    pthread_mutex_lock(&objs.lock);
    e->ts_ns = ts;
    e->recorded = 1;
    pthread_mutex_unlock(&objs.lock);
    return RT_ERROR_NONE;
}

/* Whether event evt was recorded and when it completes (the time of its record); the handle checked. */
static rtError_t event_state(rtEvent_t evt, int *recorded, uint64_t *ts) {
    rtError_t rc = ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&objs.lock);
    struct sim_event *e = (struct sim_event *)*handle_link_locked(&objs.events, evt);
    if (e != NULL) {
        *recorded = e->recorded;
        *ts = e->ts_ns;
        rc = RT_ERROR_NONE;
    }
    pthread_mutex_unlock(&objs.lock);
    return rc;
}

rtError_t rtEventQuery(rtEvent_t evt) {
    int recorded;
    uint64_t ts;
    rtError_t rc = event_state(evt, &recorded, &ts);
    if (rc != RT_ERROR_NONE) return rc;
    return !recorded || ts <= sim_now_ns() ? RT_ERROR_NONE : ACL_ERROR_RT_EVENT_NOT_COMPLETE;
}

rtError_t rtEventQueryStatus(rtEvent_t evt, rtEventStatus_t *status) {
    if (status == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    int recorded;
    uint64_t ts;
    rtError_t rc = event_state(evt, &recorded, &ts);
    if (rc != RT_ERROR_NONE) return rc;
    *status = recorded && ts <= sim_now_ns() ? RT_EVENT_RECORDED : RT_EVENT_INIT;
    return RT_ERROR_NONE;
}

rtError_t rtEventSynchronize(rtEvent_t evt) {
    int recorded;
    uint64_t ts;
    rtError_t rc = event_state(evt, &recorded, &ts);
    if (rc != RT_ERROR_NONE) return rc;
    if (recorded) sim_sleep_until(ts);
    return RT_ERROR_NONE;
}

rtError_t rtEventElapsedTime(float32_t *timeInterval, rtEvent_t startEvent, rtEvent_t endEvent) {
    if (timeInterval == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    int ra, rb;
    uint64_t ta, tb;
    if (event_state(startEvent, &ra, &ta) != RT_ERROR_NONE || event_state(endEvent, &rb, &tb) != RT_ERROR_NONE)
        return ACL_ERROR_RT_PARAM_INVALID;
    if (!ra || !rb) return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    uint64_t now = sim_now_ns();
    if (ta > now || tb > now) return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    if (tb < ta) return ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL;
    *timeInterval = (float32_t)((double)(tb - ta) / 1e6);
    return RT_ERROR_NONE;
}

/* Microseconds of the device clock (CLOCK_MONOTONIC here) at which the event completed. */
rtError_t rtEventGetTimeStamp(uint64_t *timeStamp, rtEvent_t evt) {
    if (timeStamp == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    int recorded;
    uint64_t ts;
    rtError_t rc = event_state(evt, &recorded, &ts);
    if (rc != RT_ERROR_NONE) return rc;
    if (!recorded) return ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID;
    if (ts > sim_now_ns()) return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
    *timeStamp = ts / 1000ULL;
    return RT_ERROR_NONE;
}

/* ---- models ---- */

rtError_t rtModelCreate(rtModel_t *mdl, uint32_t flag) {
    (void)flag;
    if (mdl == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_model *m = new_model(sim_current_device(), sim_ctx_live_current());
    if (m == NULL) return ACL_ERROR_RT_NO_MODEL_RESOURCE;
    *mdl = m;
    return RT_ERROR_NONE;
}

/* Unbinds m from every stream and frees it; m is out of the models list, objs.lock held. */
static void model_free_locked(struct sim_model *m) {
    struct handle *lists[2] = {objs.streams, objs.ctx_defaults};
    for (int i = 0; i < 2; i++)
        for (struct handle *h = lists[i]; h != NULL; h = h->next) {
            struct sim_stream *s = (struct sim_stream *)h;
            pthread_mutex_lock(&s->lock);
            if (s->bound == m) s->bound = NULL;
            if (s->capture == m) s->capture = NULL;
            pthread_mutex_unlock(&s->lock);
        }
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
        struct sim_stream *s = objs.defaults[d];
        if (s == NULL) continue;
        pthread_mutex_lock(&s->lock);
        if (s->bound == m) s->bound = NULL;
        if (s->capture == m) s->capture = NULL;
        pthread_mutex_unlock(&s->lock);
    }
    m->h.magic = 0;
    free(m);
}

rtError_t rtModelDestroy(rtModel_t mdl) {
    if (mdl == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&objs.lock); /* may be held while the contexts' lock is taken */
    struct sim_model *m = (struct sim_model *)*handle_link_locked(&objs.models, mdl);
    rtError_t rc = m == NULL ? ACL_ERROR_RT_PARAM_INVALID : model_in_current_ctx(m);
    if (rc == RT_ERROR_NONE) {
        handle_remove_locked(&objs.models, mdl);
        model_free_locked(m);
    }
    pthread_mutex_unlock(&objs.lock);
    return rc;
}

rtError_t rtModelBindStream(rtModel_t mdl, rtStream_t stm, uint32_t flag) {
    (void)flag;
    struct sim_model *m = resolve_model(mdl);
    if (m == NULL || stm == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    if ((rc = model_in_current_ctx(m)) != RT_ERROR_NONE) return rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    pthread_mutex_lock(&s->lock);
    rc = s->bound != NULL || s->capture != NULL ? ACL_ERROR_RT_STREAM_MODEL : RT_ERROR_NONE;
    if (rc == RT_ERROR_NONE) s->bound = m;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

rtError_t rtModelUnbindStream(rtModel_t mdl, rtStream_t stm) {
    struct sim_model *m = resolve_model(mdl);
    if (m == NULL || stm == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    rtError_t rc;
    if ((rc = model_in_current_ctx(m)) != RT_ERROR_NONE) return rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    pthread_mutex_lock(&s->lock);
    rc = s->bound == m ? RT_ERROR_NONE : ACL_ERROR_RT_STREAM_MODEL;
    if (rc == RT_ERROR_NONE) s->bound = NULL;
    pthread_mutex_unlock(&s->lock);
    return rc;
}

rtError_t rtModelLoadComplete(rtModel_t mdl) {
    struct sim_model *m = resolve_model(mdl);
    if (m == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&objs.lock);
    m->loaded = 1;
    pthread_mutex_unlock(&objs.lock);
    return RT_ERROR_NONE;
}

/* One execution runs the model's tasks back to back: one exclusive slot of their total duration. */
rtError_t rtModelExecute(rtModel_t mdl, rtStream_t stm, uint32_t flag) {
    (void)flag;
    struct sim_model *m = resolve_model(mdl);
    if (m == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&objs.lock);
    int loaded = m->loaded;
    uint64_t total = m->total_ns;
    pthread_mutex_unlock(&objs.lock);
    if (!loaded) return ACL_ERROR_RT_MODEL_EXECUTE;
    rtError_t rc;
    struct sim_stream *s = resolve_stream(stm, &rc);
    if (s == NULL) return rc;
    pthread_mutex_lock(&s->lock);
    if (s->bound != NULL || s->capture != NULL) {
        pthread_mutex_unlock(&s->lock);
        return ACL_ERROR_RT_STREAM_CAPTURED;
    }
    enqueue_locked(s, total);
    pthread_mutex_unlock(&s->lock);
    return RT_ERROR_NONE;
}

/* Runs the model on a private stream of its device and waits (timeout in ms, -1: no limit). */
rtError_t rtsModelExecute(rtModel_t mdl, int32_t timeout) {
    if (timeout < -1) return ACL_ERROR_RT_PARAM_INVALID;
    struct sim_model *m = resolve_model(mdl);
    if (m == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&objs.lock);
    int loaded = m->loaded, dev = m->dev >= 0 ? m->dev : sim_current_device();
    uint64_t total = m->total_ns;
    pthread_mutex_unlock(&objs.lock);
    if (!loaded) return ACL_ERROR_RT_MODEL_EXECUTE;
    if (dev < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    struct sim_stream *s = new_stream(dev, NULL);
    if (s == NULL) return ACL_ERROR_RT_NO_STREAM_RESOURCE;
    pthread_mutex_lock(&s->lock);
    enqueue_locked(s, total);
    uint64_t end = s->tail_end_ns;
    pthread_mutex_unlock(&s->lock);
    free_stream(s);
    return sim_sync_until(end, timeout);
}

rtError_t rtModelExecuteSync(rtModel_t mdl, rtStream_t stm, uint32_t flag, int32_t timeout) {
    rtError_t rc = rtModelExecute(mdl, stm, flag);
    if (rc != RT_ERROR_NONE) return rc;
    return rtStreamSynchronizeWithTimeout(stm, timeout);
}

/* ---- fork: runtime objects belong to the parent's device context ---- */

static void objs_atfork_prepare(void) { pthread_mutex_lock(&objs.lock); }
static void objs_atfork_parent(void) { pthread_mutex_unlock(&objs.lock); }

static void objs_atfork_child(void) {
    launched = 0; /* the child's first launch sets up again */
    while (objs.streams != NULL) {
        struct sim_stream *s = (struct sim_stream *)handle_remove_locked(&objs.streams, objs.streams);
        free(s->ring);
        free(s);
    }
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) {
        if (objs.defaults[d] != NULL) {
            free(objs.defaults[d]->ring);
            free(objs.defaults[d]);
        }
        objs.defaults[d] = NULL;
    }
    while (objs.ctx_defaults != NULL) {
        struct sim_stream *s = (struct sim_stream *)handle_remove_locked(&objs.ctx_defaults, objs.ctx_defaults);
        free(s->ring);
        free(s);
    }
    while (objs.events != NULL) free(handle_remove_locked(&objs.events, objs.events));
    while (objs.models != NULL) free(handle_remove_locked(&objs.models, objs.models));
    pthread_mutex_unlock(&objs.lock);
}

__attribute__((constructor)) static void rt_stream_ctor(void) {
    pthread_atfork(objs_atfork_prepare, objs_atfork_parent, objs_atfork_child);
}
