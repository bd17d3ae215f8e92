/*
 * Contexts of the simulated runtime, as CANN has them: rtSetDevice makes the device's primary context
 * current for the calling thread; rtCtxCreate[Ex] creates a user context and makes it current;
 * rtCtxSetCurrent lets a worker thread use a context created elsewhere, as multi-threaded ACL
 * applications do. A context owns the streams and models created while it is current, and a user
 * context has a default stream of its own (rt_stream.c): rtCtxDestroy[Ex] frees them without any
 * rtStreamDestroy or rtModelDestroy call, and a device reset that drops the last reference frees the
 * primary context's. A primary context cannot be destroyed. Memory and events belong to the process
 * and its devices.
 */
#include "sim_internal.h"

#include <stdlib.h>

struct sim_ctx {
    struct sim_ctx *next;
    int dev;
};

static struct sim_ctx primary[VNPU_SIM_MAX_DEVICES];
static struct {
    pthread_mutex_t lock;
    struct sim_ctx *created;
} ctxs = {PTHREAD_MUTEX_INITIALIZER, NULL};
static __thread struct sim_ctx *current;

void sim_ctx_on_set_device(int dev) { current = &primary[dev]; }

static int ctx_known(const struct sim_ctx *c);

const void *sim_ctx_primary(int dev) { return dev >= 0 && dev < VNPU_SIM_MAX_DEVICES ? &primary[dev] : NULL; }

const void *sim_ctx_current(void) { return current; }

/* A context another thread destroyed is no context (CANN checks its set of live ones). */
const void *sim_ctx_live_current(void) { return current != NULL && ctx_known(current) ? current : NULL; }

static int ctx_known(const struct sim_ctx *c) {
    if (c >= &primary[0] && c < &primary[VNPU_SIM_MAX_DEVICES]) return sim_valid_device(c->dev) && c == &primary[c->dev];
    int found = 0;
    pthread_mutex_lock(&ctxs.lock);
    for (struct sim_ctx *p = ctxs.created; p != NULL && !found; p = p->next) found = p == c;
    pthread_mutex_unlock(&ctxs.lock);
    return found;
}

rtError_t rtCtxCreate(rtContext_t *createCtx, uint32_t flags, int32_t userDev) {
    int32_t devId = sim_phys_device(userDev);
    (void)flags;
    if (createCtx == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (!sim_valid_device(devId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    struct sim_ctx *c = calloc(1, sizeof(*c));
    if (c == NULL) return ACL_ERROR_RT_MEMORY_ALLOCATION;
    c->dev = devId;
    pthread_mutex_lock(&ctxs.lock);
    c->next = ctxs.created;
    ctxs.created = c;
    pthread_mutex_unlock(&ctxs.lock);
    current = c;
    sim_set_current_device(devId);
    *createCtx = c;
    return RT_ERROR_NONE;
}

rtError_t rtCtxCreateEx(rtContext_t *createCtx, uint32_t flags, int32_t devId) {
    return rtCtxCreate(createCtx, flags, devId);
}

/* A primary context is not in the list of created ones: destroying it is refused, as in CANN, with
 * the code of a destroyed one (107002). */
rtError_t rtCtxDestroy(rtContext_t destroyCtx) {
    if (destroyCtx == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&ctxs.lock);
    struct sim_ctx **pp = &ctxs.created;
    while (*pp != NULL && *pp != destroyCtx) pp = &(*pp)->next;
    struct sim_ctx *c = *pp;
    if (c != NULL) *pp = c->next;
    pthread_mutex_unlock(&ctxs.lock);
    if (c == NULL) return ACL_ERROR_RT_CONTEXT_NULL; /* CANN: a primary or destroyed one is no user context */
    sim_streams_release_ctx(c); /* its streams, default stream and models go with it */
    if (current == c) {
        current = NULL;
        sim_set_current_device(-1);
    }
    free(c);
    return RT_ERROR_NONE;
}

/* The target of aclrtDestroyContext (CANN's ACL calls the Ex form), and the RTS layer's form. Calls
 * inside the library bind locally: a hook on one never sees the others. */
rtError_t rtCtxDestroyEx(rtContext_t destroyCtx) { return rtCtxDestroy(destroyCtx); }
rtError_t rtsCtxDestroy(rtContext_t destroyCtx) { return rtCtxDestroyEx(destroyCtx); }

/* The device is read under the list's lock for a user context: another thread may be destroying it
 * right now (CANN checks its set of live contexts the same way). */
rtError_t rtCtxSetCurrent(rtContext_t currentCtx) {
    struct sim_ctx *c = currentCtx;
    if (c == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    int dev = -1;
    if (c >= &primary[0] && c < &primary[VNPU_SIM_MAX_DEVICES]) {
        if (ctx_known(c)) dev = c->dev;
    } else {
        pthread_mutex_lock(&ctxs.lock);
        for (struct sim_ctx *p = ctxs.created; p != NULL && dev < 0; p = p->next)
            if (p == c) dev = c->dev;
        pthread_mutex_unlock(&ctxs.lock);
    }
    if (dev < 0) return ACL_ERROR_RT_PARAM_INVALID;
    current = c;
    sim_set_current_device(dev);
    return RT_ERROR_NONE;
}

rtError_t rtCtxGetCurrent(rtContext_t *currentCtx) {
    if (currentCtx == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (current == NULL || sim_current_device() < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    *currentCtx = current;
    return RT_ERROR_NONE;
}

rtError_t rtCtxGetDevice(int32_t *devId) { return rtGetDevice(devId); }

static void ctx_atfork_prepare(void) { pthread_mutex_lock(&ctxs.lock); }
static void ctx_atfork_parent(void) { pthread_mutex_unlock(&ctxs.lock); }

/* Contexts stay valid handles in the child (memory is copied), so the child can set one current. */
static void ctx_atfork_child(void) { pthread_mutex_unlock(&ctxs.lock); }

/* Lock order: the stream tables' lock (rt_stream.c) may be held while ctxs.lock is taken, never the
 * reverse. Fork prepare handlers run in reverse order of registration, so these are registered
 * before rt_stream.c's (a lower constructor priority runs first): at a fork the stream tables' lock
 * is taken first, as everywhere else. */
__attribute__((constructor(101))) static void rt_context_ctor(void) {
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) primary[d].dev = d;
    pthread_atfork(ctx_atfork_prepare, ctx_atfork_parent, ctx_atfork_child);
}
