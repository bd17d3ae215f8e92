/*
 * Contexts of the simulated runtime. A context only names a device here: streams, events and memory
 * belong to the process and its devices, not to a context. rtSetDevice makes the device's primary
 * context current for the calling thread; rtCtxCreate makes a new one current; rtCtxSetCurrent lets
 * a worker thread use a context created elsewhere, as multi-threaded ACL applications do.
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

rtError_t rtCtxDestroy(rtContext_t destroyCtx) {
    if (destroyCtx == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&ctxs.lock);
    struct sim_ctx **pp = &ctxs.created;
    while (*pp != NULL && *pp != destroyCtx) pp = &(*pp)->next;
    struct sim_ctx *c = *pp;
    if (c != NULL) *pp = c->next;
    pthread_mutex_unlock(&ctxs.lock);
    if (c == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (current == c) {
        current = NULL;
        sim_set_current_device(-1);
    }
    free(c);
    return RT_ERROR_NONE;
}

rtError_t rtCtxSetCurrent(rtContext_t currentCtx) {
    struct sim_ctx *c = currentCtx;
    if (c == NULL || !ctx_known(c)) return ACL_ERROR_RT_PARAM_INVALID;
    current = c;
    sim_set_current_device(c->dev);
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

__attribute__((constructor)) static void rt_context_ctor(void) {
    for (int d = 0; d < VNPU_SIM_MAX_DEVICES; d++) primary[d].dev = d;
    pthread_atfork(ctx_atfork_prepare, ctx_atfork_parent, ctx_atfork_child);
}
