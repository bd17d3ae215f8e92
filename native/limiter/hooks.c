/*
 * libvnpu.so, memory part: interposes the CANN runtime's allocation, free and memory-info entry
 * points (limiter-design.md 5.3) and enforces the container's per-device HBM limits kept in the
 * quota region (docs/region-layout.md).
 *
 * Lifecycle (explicit state machine, g_state):
 *   UNINIT --first hooked call--> ACTIVE   (region open + own slot claimed)
 *                              \-> DISABLED (region unusable, no configuration to build one: one line
 *                                            on stderr, calls forwarded: the fail-open policy)
 *                              \-> REFUSE   (fails closed, every device allocation is refused with
 *                                            207001; one line): all 256 slots held by live processes,
 *                                            a configuration (env / vnpu.conf) outside its grammar where
 *                                            the region has to be built from it, a bad
 *                                            NPU_LOCAL_SHM_PATH, or no space for the region's blocks
 *   ACTIVE --fork (child side)--> UNINIT   (the child claims its own slot on its first call)
 *   any    --first call in a raw clone() child--> UNINIT (fork.h: no fork handler ran, the
 *                                            wipe-on-fork mark tells; the child is its own process)
 * Nothing runs before the first hooked call: no constructor work, no threads, no signal handlers,
 * so processes that never touch the NPU (shells, JVMs) are unaffected.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cann_abi.h"
#include "compute.h"
#include "config.h"
#include "fork.h"
#include "ptrmap.h"
#include "region.h"

#define EXPORT __attribute__((visibility("default")))
/* The allocation and free hooks take the admission's, the release's and the pointer table's fast
 * paths inline (link-time optimisation inlines across files); every rare path they can reach is
 * noinline, so only the usual call is copied into each hook (issue 23: the hooked pair's cost). */
#define MEM_HOOK EXPORT __attribute__((flatten))

enum { ST_UNINIT = 0, ST_ACTIVE = 1, ST_DISABLED = 2, ST_REFUSE = 3 };
enum { KIND_DEVICE = 1, KIND_PHYSICAL = 2 };

/* ---------- real functions ---------- */

enum sym {
    S_rtMalloc, S_rtMallocCached, S_rtsMalloc, S_rtMemAlloc, S_rtDvppMalloc, S_rtDvppMallocWithFlag,
    S_rtMemAllocManaged, S_rtMallocPhysical, S_rtsMemMallocPhysical,
    S_rtFree, S_rtFreeWithDevSync, S_rtsFree, S_rtDvppFree, S_rtMemFreeManaged, S_rtFreePhysical,
    S_rtsMemFreePhysical,
    S_rtMemGetInfoEx, S_rtMemGetInfo, S_rtsMemGetInfo, S_rtMemGetInfoByType,
    S_rtGetDevice, S_rtSetDevice, S_rtDeviceReset, S_rtDeviceResetForce, S_rtGetDevicePhyIdByIndex,
    S_COUNT
};

static const char *const sym_names[S_COUNT] = {
    "rtMalloc", "rtMallocCached", "rtsMalloc", "rtMemAlloc", "rtDvppMalloc", "rtDvppMallocWithFlag",
    "rtMemAllocManaged", "rtMallocPhysical", "rtsMemMallocPhysical",
    "rtFree", "rtFreeWithDevSync", "rtsFree", "rtDvppFree", "rtMemFreeManaged", "rtFreePhysical",
    "rtsMemFreePhysical",
    "rtMemGetInfoEx", "rtMemGetInfo", "rtsMemGetInfo", "rtMemGetInfoByType",
    "rtGetDevice", "rtSetDevice", "rtDeviceReset", "rtDeviceResetForce", "rtGetDevicePhyIdByIndex",
};

static void *real_fn[S_COUNT];

/* The next definition after ours; if libruntime.so was dlopen'ed RTLD_LOCAL (e.g. by Python) it is
 * not in the global scope, so ask it directly. */
static __attribute__((noinline, cold)) void *real_slow(enum sym s) {
    void *f = dlsym(RTLD_NEXT, sym_names[s]);
    if (!f) {
        void *h = dlopen("libruntime.so", RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            f = dlsym(h, sym_names[s]);
            dlclose(h);
        }
    }
    if (f) __atomic_store_n(&real_fn[s], f, __ATOMIC_RELEASE);
    return f;
}

/* inlined: every hooked call takes this once or twice (the allocation and rtGetDevice) */
static inline void *real(enum sym s) {
    void *f = __atomic_load_n(&real_fn[s], __ATOMIC_ACQUIRE);
    return __builtin_expect(f != NULL, 1) ? f : real_slow(s);
}

#define REAL(name) ((__typeof__(&name))real(S_##name))

/* ---------- state ---------- */

static int g_state = ST_UNINIT;
static pthread_mutex_t g_init_mu = PTHREAD_MUTEX_INITIALIZER;
static struct vnpu_region g_region = {.fd = -1, .base = NULL, .slot = -1, .use_ofd = 1};
/* initial-exec: a preloaded library is in the static TLS block, so no __tls_get_addr call per hook */
static __thread int t_in_hook __attribute__((tls_model("initial-exec"))); /* our own and nested runtime calls bypass the hooks */

static void log_line(const char *line) {
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%s\n", line);
    if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
    ssize_t w = write(2, buf, (size_t)n);
    (void)w;
}

/* fork handlers (fork.c calls them in the lock order of fork.h) */
void vnpu_hooks_fork_prepare(void) { pthread_mutex_lock(&g_init_mu); }

void vnpu_hooks_fork_parent(void) { pthread_mutex_unlock(&g_init_mu); }

static int g_dev_refs[VNPU_REGION_MAX_DEVICES]; /* the runtime's per-process device references, mirrored */

static void reset_child_state(void) {
    memset(g_dev_refs, 0, sizeof g_dev_refs); /* a child holds no device reference */
    /* the parent's allocations stay the parent's (ptrmap emptied by its own handler) */
    if (g_state == ST_ACTIVE) {
        /* the inherited descriptor shares the parent's OFD slot lock: drop our reference (the parent
         * keeps its lock) and claim a slot of our own on the first hooked call */
        vnpu_region_close(&g_region);
    }
    /* every outcome is re-decided by the child itself (its own slot, its own view of the files) */
    __atomic_store_n(&g_state, ST_UNINIT, __ATOMIC_RELEASE);
}

void vnpu_hooks_fork_child(void) {
    reset_child_state();
    pthread_mutex_unlock(&g_init_mu);
}

void vnpu_hooks_clone_child(void) {
    /* no prepare handler ran: whatever the parent's other threads held is held for ever here */
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_init_mu = fresh;
    reset_child_state();
}

#define REFUSED "; device memory allocations of this process are refused (207001)"

static void refuse_line(char *line, size_t len, const char *what) { snprintf(line, len, "%s" REFUSED, what); }

static int init_slow(void) {
    pthread_mutex_lock(&g_init_mu);
    if (g_state == ST_UNINIT) {
        for (int s = 0; s < S_COUNT; s++) (void)real((enum sym)s);
        char path[VNPU_REGION_PATH_MAX], err[512], problem[900], line[1200];
        int state = ST_DISABLED;
        if (!vnpu_config_region_path_checked(path, sizeof path, problem, sizeof problem)) {
            refuse_line(line, sizeof line, problem);
            log_line(line);
            state = ST_REFUSE;
        } else {
            struct vnpu_init_config cfg;
            enum vnpu_config_status cs = vnpu_config_load(path, &cfg, problem, sizeof problem);
            enum vnpu_open_status st =
                vnpu_region_open(&g_region, path, cs == VNPU_CONFIG_OK ? &cfg : NULL, err, sizeof err);
            if (st == VNPU_OPEN_OK) {
                if (vnpu_region_claim_slot(&g_region) >= 0) {
                    state = ST_ACTIVE;
                } else {
                    /* fail closed: a process that cannot be counted must not allocate unlimited */
                    snprintf(line, sizeof line, "vnpu: quota region %s: all %u process slots are held by live "
                             "processes" REFUSED, path, VNPU_REGION_SLOT_COUNT);
                    log_line(line);
                    vnpu_region_close(&g_region);
                    state = ST_REFUSE;
                }
            } else if (cs == VNPU_CONFIG_BAD && (st == VNPU_OPEN_MISSING || st == VNPU_OPEN_NOT_READY)) {
                /* the region has to be built from a configuration we cannot read: never "unlimited" */
                refuse_line(line, sizeof line, problem);
                log_line(line);
                state = ST_REFUSE;
            } else if (st == VNPU_OPEN_NO_SPACE) {
                /* a region with holes on a full file system would fault (SIGBUS) on its first store */
                snprintf(line, sizeof line, "vnpu: %s (%s)" REFUSED, err, vnpu_open_status_name(st));
                log_line(line);
                state = ST_REFUSE;
            } else {
                snprintf(line, sizeof line, "vnpu: %s (%s); memory limits are not enforced", err,
                         vnpu_open_status_name(st));
                log_line(line);
            }
        }
        vnpu_fork_arm();
        __atomic_store_n(&g_state, state, __ATOMIC_RELEASE);
    }
    int st = g_state;
    pthread_mutex_unlock(&g_init_mu);
    return st;
}

/* enter()'s rare cases: a child made without fork, the first call, a region that is not active */
static __attribute__((noinline, cold)) int enter_slow(void) {
    if (vnpu_fork_changed()) vnpu_fork_adopt();
    int st = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    if (st == ST_UNINIT) st = init_slow();
    return st == ST_ACTIVE;
}

/* 1 when this call must be limited (then leave() must follow), 0 to forward untouched. Inlined
 * into every hook: the usual call (same process, region active) is four loads and a store. */
static inline __attribute__((always_inline)) int enter(void) {
    if (t_in_hook) return 0;
    if (__builtin_expect(vnpu_fork_changed() || __atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != ST_ACTIVE, 0) &&
        !enter_slow())
        return 0;
    t_in_hook = 1;
    return 1;
}

static void leave(void) { t_in_hook = 0; }

/* REFUSE state: device allocations are refused (nested runtime-internal calls are not ours to refuse) */
static int full_refuses(void) { return !t_in_hook && __atomic_load_n(&g_state, __ATOMIC_ACQUIRE) == ST_REFUSE; }

/* For the compute limiter (compute_config.c): the region once initialised, NULL when disabled. */
struct vnpu_region *vnpu_limiter_region(void) {
    if (__builtin_expect(vnpu_fork_changed(), 0)) vnpu_fork_adopt();
    int st = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
    if (st == ST_UNINIT) st = init_slow();
    return st == ST_ACTIVE ? &g_region : NULL;
}

/* ---------- accounting helpers ---------- */

/*
 * The region's device for a device as this process numbers it. A process may renumber its devices
 * (ASCEND_RT_VISIBLE_DEVICES): when the region names its NPUs by phy ID, the device is found by its
 * phy ID (rtGetDevicePhyIdByIndex), so charges land on the physical NPU whatever the mask; a device
 * the region does not describe maps to VNPU_REGION_MAX_DEVICES (allocations there fail closed).
 * Regions without phy IDs (created from the environment) are indexed by the process's numbering.
 */
#define UNMAPPED (-2)
static int g_dev_map[VNPU_REGION_MAX_DEVICES] = {
    UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED,
    UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED, UNMAPPED};

/* region_device's first call per device: consults the region's phy IDs and the runtime */
static __attribute__((noinline, cold)) uint32_t region_device_lookup(uint32_t proc_dev) {
    if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != ST_ACTIVE) return proc_dev; /* no region to consult */
    int m;
    uint32_t n = vnpu_region_device_count(&g_region);
    int named = 0;
    for (uint32_t d = 0; d < n; d++) named |= (int32_t)vnpu_load32(&g_region, vnpu_devcfg_off(d) + VNPU_DC_PHYS_ID) >= 0;
    uint32_t phy = 0;
    __typeof__(&rtGetDevicePhyIdByIndex) byIndex = REAL(rtGetDevicePhyIdByIndex);
    m = (int)proc_dev;
    if (named && byIndex && byIndex(proc_dev, &phy) == VNPU_RT_ERROR_NONE) {
        m = VNPU_REGION_MAX_DEVICES;
        for (uint32_t d = 0; d < n; d++)
            if ((int32_t)vnpu_load32(&g_region, vnpu_devcfg_off(d) + VNPU_DC_PHYS_ID) == (int32_t)phy) m = (int)d;
    }
    __atomic_store_n(&g_dev_map[proc_dev], m, __ATOMIC_RELEASE);
    return (uint32_t)m;
}

/* region_device for the hooks' callers: the map hit inline, the region's state checked on a miss
 * only. A hit was stored while the region was active; the callers that use the device run with it
 * active (enter() returned 1), and in the REFUSE path only whether a device is known matters. */
static inline uint32_t region_device_active(uint32_t proc_dev) {
    if (proc_dev >= VNPU_REGION_MAX_DEVICES) return VNPU_REGION_MAX_DEVICES;
    int m = __atomic_load_n(&g_dev_map[proc_dev], __ATOMIC_ACQUIRE);
    return m != UNMAPPED ? (uint32_t)m : region_device_lookup(proc_dev);
}

static inline uint32_t region_device(uint32_t proc_dev) {
    if (__atomic_load_n(&g_state, __ATOMIC_ACQUIRE) != ST_ACTIVE) /* no region to consult */
        return proc_dev >= VNPU_REGION_MAX_DEVICES ? VNPU_REGION_MAX_DEVICES : proc_dev;
    return region_device_active(proc_dev);
}

/* For the compute limiter: the region device of the process's device proc_dev (see region_device). */
uint32_t vnpu_limiter_region_device(uint32_t proc_dev) { return region_device(proc_dev); }

static inline int current_device(uint32_t *dev) {
    int32_t d = -1;
    __typeof__(&rtGetDevice) get = REAL(rtGetDevice);
    if (!get || get(&d) != VNPU_RT_ERROR_NONE || d < 0 || (uint32_t)d >= VNPU_REGION_MAX_DEVICES) return 0;
    *dev = region_device_active((uint32_t)d);
    return 1;
}

static int cfg_device(const rtMallocConfig_t *cfg, uint32_t *dev) {
    if (cfg && cfg->attrs) {
        for (size_t i = 0; i < cfg->numAttrs; i++) {
            if (cfg->attrs[i].attr == VNPU_RT_MEM_MALLOC_ATTR_DEVICE_ID) {
                uint32_t d = cfg->attrs[i].value.deviceId;
                if (d >= VNPU_REGION_MAX_DEVICES) return 0;
                *dev = region_device(d);
                return 1;
            }
        }
    }
    return current_device(dev);
}

/* charge_begin's refusals of what the region cannot limit or the pointer table cannot record */
static __attribute__((noinline, cold)) rtError_t refuse_unrecordable(uint32_t ds_dev) {
    vnpu_region_count(&g_region, ds_dev, VNPU_DS_OOM_REJECTIONS, 1);
    return VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION;
}

/* Admits before the real call; *charged = the bytes admitted (0: nothing charged, nothing for
 * charge_end to do). Without a known device there is nothing to check: the real call decides (and
 * fails with its own code if no device is set). */
static inline rtError_t charge_begin(int have_dev, uint32_t dev, uint64_t bytes, uint64_t *charged) {
    *charged = 0;
    if (!have_dev || bytes == 0) return VNPU_RT_ERROR_NONE;
    /* a device the region does not describe has no limit we could enforce: fail closed, never run it
     * unlimited (e.g. a process that selected a device outside its slice) */
    if (__builtin_expect(dev >= vnpu_region_device_count(&g_region), 0)) return refuse_unrecordable(0);
    /* a size the pointer table cannot record (2^56 bytes or more; no NPU has that much HBM) would
     * run uncounted once granted (charge_end could only release it): refuse it before the runtime
     * sees it, limited device or not (unlimited ones are counted exactly too) */
    if (__builtin_expect(bytes > VNPU_PTRMAP_MAX_BYTES, 0)) return refuse_unrecordable(dev);
    if (vnpu_region_admit_described(&g_region, dev, bytes) != 0) return VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION;
    *charged = bytes;
    return VNPU_RT_ERROR_NONE;
}

/* charge_end when the allocation failed, or its key was known already or could not be recorded */
static __attribute__((noinline, cold)) void charge_end_rare(int put, uint32_t dev, uint64_t bytes,
                                                            const struct vnpu_ptr_entry *old) {
    if (put == 1) {
        /* the runtime handed out an address we still held: it was freed through a path we do not
         * see, so its old charge is stale */
        vnpu_region_release(&g_region, old->dev, old->bytes);
    } else {
        /* the real call failed (or gave no address), or there was no memory to grow the table
         * (charge_begin refused what it cannot record): the allocation is not live, or live but
         * cannot be tracked, so it is not charged */
        vnpu_region_release(&g_region, dev, bytes);
    }
}

/* After the real call of an admission that charged `bytes` on dev: records the key, or undoes. */
static inline void charge_end(rtError_t rc, uintptr_t key, uint32_t dev, uint64_t bytes, uint32_t kind) {
    struct vnpu_ptr_entry old;
    int put = rc != VNPU_RT_ERROR_NONE || key == 0 ? -1 : vnpu_ptrmap_put(key, dev, bytes, kind, &old);
    if (__builtin_expect(put != 0, 0)) charge_end_rare(put, dev, bytes, &old);
}

/* a free the pointer table does not know: counted, nothing else changes */
static __attribute__((noinline, cold)) void untracked_free(void) {
    uint32_t dev = 0;
    if (!current_device(&dev) || dev >= VNPU_REGION_MAX_DEVICES) dev = 0;
    vnpu_region_count(&g_region, dev, VNPU_DS_UNKNOWN_FREES, 1);
}

/* the real free failed: the entry goes back, the bytes stay charged */
static __attribute__((noinline, cold)) void free_failed(uintptr_t key, const struct vnpu_ptr_entry *e) {
    (void)vnpu_ptrmap_put(key, e->dev, e->bytes, e->kind, NULL); /* still allocated */
}

static int charged_type(rtMemType_t type) {
    uint32_t kind = type & VNPU_RT_MEMORY_KIND_MASK;
    return kind != VNPU_RT_MEMORY_HOST && kind != VNPU_RT_MEMORY_SVM;
}

/* total = min(limit, physical total); free = clamp(total - used, 0, physical free). */
static void virtualise(uint32_t dev, uint64_t *freep, uint64_t *totalp) {
    uint64_t limit = vnpu_region_limit(&g_region, dev);
    if (limit == 0 || !(vnpu_region_policy(&g_region) & VNPU_POLICY_MEM_ENFORCE)) return;
    /* callers size their caches from this answer (vLLM, torch_npu): do not report bytes of
     * processes that are already gone; a probe is two fcntl calls per non-free slot */
    (void)vnpu_region_reap(&g_region);
    uint64_t used;
    (void)vnpu_region_used_snapshot(&g_region, dev, &used);
    uint64_t total = limit < *totalp ? limit : *totalp;
    uint64_t free = total > used ? total - used : 0;
    if (free > *freep) free = *freep;
    *totalp = total;
    *freep = free;
}

static int virtualised_info_type(rtMemInfoType_t t) {
    return t != VNPU_RT_MEMORYINFO_DDR && t != VNPU_RT_MEMORYINFO_DDR_HUGE && t != VNPU_RT_MEMORYINFO_DDR_NORMAL &&
           t != VNPU_RT_MEMORYINFO_DDR_P2P_HUGE && t != VNPU_RT_MEMORYINFO_DDR_P2P_NORMAL;
}

static void virtualise_sizes(size_t *freeSize, size_t *totalSize) {
    uint32_t dev;
    if (!freeSize || !totalSize || !current_device(&dev)) return;
    uint64_t f = *freeSize, t = *totalSize;
    virtualise(dev, &f, &t);
    *freeSize = (size_t)f;
    *totalSize = (size_t)t;
}

/* ---------- allocation hooks ---------- */

#define MISSING VNPU_ACL_ERROR_RT_FEATURE_NOT_SUPPORT

/* body shared by every allocator with an out-pointer: admit, call, record or undo */
#define ALLOC_BODY(name, outp, bytes, have_dev_expr, kind, ...)                                  \
    __typeof__(&name) fn = REAL(name);                                                          \
    if (!fn) return MISSING;                                                                    \
    if (!enter()) {                                                                             \
        if (full_refuses()) {                                                                   \
            uint32_t dev = 0;                                                                   \
            if (have_dev_expr) return VNPU_ACL_ERROR_RT_MEMORY_ALLOCATION;                      \
        }                                                                                       \
        return fn(__VA_ARGS__);                                                                 \
    }                                                                                           \
    uint32_t dev = 0;                                                                           \
    int have_dev = (have_dev_expr);                                                             \
    uint64_t charged;                                                                           \
    rtError_t rc = charge_begin(have_dev, dev, (bytes), &charged);                              \
    if (rc == VNPU_RT_ERROR_NONE) {                                                             \
        rc = fn(__VA_ARGS__);                                                                   \
        if (charged)                                                                            \
            charge_end(rc, (outp) ? (uintptr_t) * (void **)(outp) : 0, dev, charged, (kind));   \
    }                                                                                           \
    leave();                                                                                    \
    return rc

MEM_HOOK rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId) {
    ALLOC_BODY(rtMalloc, devPtr, size, charged_type(type) && current_device(&dev), KIND_DEVICE, devPtr, size, type,
               moduleId);
}

MEM_HOOK rtError_t rtMallocCached(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId) {
    ALLOC_BODY(rtMallocCached, devPtr, size, charged_type(type) && current_device(&dev), KIND_DEVICE, devPtr, size,
               type, moduleId);
}

MEM_HOOK rtError_t rtsMalloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,
                             rtMallocConfig_t *cfg) {
    ALLOC_BODY(rtsMalloc, devPtr, size, cfg_device(cfg, &dev), KIND_DEVICE, devPtr, size, policy, advise, cfg);
}

MEM_HOOK rtError_t rtMemAlloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,
                              rtMallocConfig_t *cfg) {
    ALLOC_BODY(rtMemAlloc, devPtr, size, cfg_device(cfg, &dev), KIND_DEVICE, devPtr, size, policy, advise, cfg);
}

MEM_HOOK rtError_t rtDvppMalloc(void **devPtr, uint64_t size, const uint16_t moduleId) {
    ALLOC_BODY(rtDvppMalloc, devPtr, size, current_device(&dev), KIND_DEVICE, devPtr, size, moduleId);
}

MEM_HOOK rtError_t rtDvppMallocWithFlag(void **devPtr, uint64_t size, uint32_t flag, const uint16_t moduleId) {
    ALLOC_BODY(rtDvppMallocWithFlag, devPtr, size, current_device(&dev), KIND_DEVICE, devPtr, size, flag, moduleId);
}

MEM_HOOK rtError_t rtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag, const uint16_t moduleId) {
    ALLOC_BODY(rtMemAllocManaged, ptr, size, current_device(&dev), KIND_DEVICE, ptr, size, flag, moduleId);
}

/* rtDrvMemProp_t.side is the memory location (aclrtMemLocationType): 1 = device HBM; 0 host and
 * 4 host NUMA are host physical memory, which is not HBM and not charged to the device quota */
#define VNPU_MEM_SIDE_DEVICE 1u

static int prop_device(const rtDrvMemProp_t *prop, uint32_t *dev) {
    if (!prop || prop->side != VNPU_MEM_SIDE_DEVICE || prop->devid >= VNPU_REGION_MAX_DEVICES) return 0;
    *dev = region_device(prop->devid);
    return 1;
}

MEM_HOOK rtError_t rtMallocPhysical(rtDrvMemHandle *handle, size_t size, rtDrvMemProp_t *prop, uint64_t flags) {
    ALLOC_BODY(rtMallocPhysical, handle, size, prop_device(prop, &dev), KIND_PHYSICAL, handle, size, prop, flags);
}

MEM_HOOK rtError_t rtsMemMallocPhysical(rtMemHandle *handle, size_t size, rtMallocPolicy policy,
                                        rtMallocConfig_t *cfg) {
    ALLOC_BODY(rtsMemMallocPhysical, handle, size, cfg_device(cfg, &dev), KIND_PHYSICAL, handle, size, policy, cfg);
}

/* ---------- release hooks ---------- */

/* Takes the entry out before the real free, so an address reused by a concurrent allocation right
 * after the real free can never be confused with the old one; releases its bytes once the real
 * free succeeded. */
#define FREE_BODY(name, key_expr, ...)                                                          \
    __typeof__(&name) fn = REAL(name);                                                          \
    if (!fn) return MISSING;                                                                    \
    if (!enter()) return fn(__VA_ARGS__);                                                       \
    uintptr_t key = (key_expr);                                                                 \
    struct vnpu_ptr_entry e;                                                                    \
    int had = key != 0 && vnpu_ptrmap_take(key, &e);                                            \
    rtError_t rc = fn(__VA_ARGS__);                                                             \
    if (__builtin_expect(!had, 0))                                                              \
        untracked_free();                                                                       \
    else if (__builtin_expect(rc == VNPU_RT_ERROR_NONE, 1))                                     \
        vnpu_region_release(&g_region, e.dev, e.bytes);                                         \
    else                                                                                        \
        free_failed(key, &e);                                                                   \
    leave();                                                                                    \
    return rc

MEM_HOOK rtError_t rtFree(void *devPtr) { FREE_BODY(rtFree, (uintptr_t)devPtr, devPtr); }
MEM_HOOK rtError_t rtFreeWithDevSync(void *devPtr) { FREE_BODY(rtFreeWithDevSync, (uintptr_t)devPtr, devPtr); }
MEM_HOOK rtError_t rtsFree(void *devPtr) { FREE_BODY(rtsFree, (uintptr_t)devPtr, devPtr); }
MEM_HOOK rtError_t rtDvppFree(void *devPtr) { FREE_BODY(rtDvppFree, (uintptr_t)devPtr, devPtr); }
MEM_HOOK rtError_t rtMemFreeManaged(void *ptr) { FREE_BODY(rtMemFreeManaged, (uintptr_t)ptr, ptr); }
MEM_HOOK rtError_t rtFreePhysical(rtDrvMemHandle handle) { FREE_BODY(rtFreePhysical, (uintptr_t)handle, handle); }
MEM_HOOK rtError_t rtsMemFreePhysical(rtMemHandle *handle) {
    FREE_BODY(rtsMemFreePhysical, handle ? (uintptr_t)*handle : 0, handle);
}

/* ---------- device references: a reset that frees the device frees its charges ---------- */

/* The runtime frees every allocation of the process on dev: so do we (count stays exact). */
static void release_device(uint32_t dev) {
    uint64_t n = 0;
    uint64_t bytes = vnpu_ptrmap_drop_device(dev, &n);
    if (bytes) vnpu_region_release(&g_region, dev, bytes);
    (void)n;
}

EXPORT rtError_t rtSetDevice(int32_t devId) {
    __typeof__(&rtSetDevice) fn = REAL(rtSetDevice);
    if (!fn) return MISSING;
    if (!enter()) return fn(devId);
    rtError_t rc = fn(devId);
    if (rc == VNPU_RT_ERROR_NONE && devId >= 0 && devId < (int32_t)VNPU_REGION_MAX_DEVICES)
        __atomic_add_fetch(&g_dev_refs[devId], 1, __ATOMIC_ACQ_REL);
    leave();
    return rc;
}

EXPORT rtError_t rtDeviceReset(int32_t devId) {
    __typeof__(&rtDeviceReset) fn = REAL(rtDeviceReset);
    if (!fn) return MISSING;
    if (!enter()) return fn(devId);
    rtError_t rc = fn(devId);
    if (rc == VNPU_RT_ERROR_NONE && devId >= 0 && devId < (int32_t)VNPU_REGION_MAX_DEVICES) {
        /* CANN frees the device's resources when the process's last reference goes */
        int refs = __atomic_load_n(&g_dev_refs[devId], __ATOMIC_ACQUIRE);
        while (refs > 0 && !__atomic_compare_exchange_n(&g_dev_refs[devId], &refs, refs - 1, 0, __ATOMIC_ACQ_REL,
                                                        __ATOMIC_ACQUIRE)) {
        }
        if (refs <= 1) {
            release_device(region_device((uint32_t)devId));
            vnpu_compute_context_gone(NULL, devId); /* its primary context's streams went with it */
        }
    }
    leave();
    return rc;
}

EXPORT rtError_t rtDeviceResetForce(int32_t devId) {
    __typeof__(&rtDeviceResetForce) fn = REAL(rtDeviceResetForce);
    if (!fn) return MISSING;
    if (!enter()) return fn(devId);
    rtError_t rc = fn(devId);
    if (rc == VNPU_RT_ERROR_NONE && devId >= 0 && devId < (int32_t)VNPU_REGION_MAX_DEVICES) {
        __atomic_store_n(&g_dev_refs[devId], 0, __ATOMIC_RELEASE);
        release_device(region_device((uint32_t)devId));
        vnpu_compute_context_gone(NULL, devId); /* its primary context's streams went with it */
    }
    leave();
    return rc;
}

/* ---------- memory-info hooks ---------- */

EXPORT rtError_t rtMemGetInfoEx(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize) {
    __typeof__(&rtMemGetInfoEx) fn = REAL(rtMemGetInfoEx);
    if (!fn) return MISSING;
    rtError_t rc = fn(memInfoType, freeSize, totalSize); /* physical numbers first */
    if (rc != VNPU_RT_ERROR_NONE || !virtualised_info_type(memInfoType) || !enter()) return rc;
    virtualise_sizes(freeSize, totalSize);
    leave();
    return rc;
}

EXPORT rtError_t rtsMemGetInfo(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize) {
    __typeof__(&rtsMemGetInfo) fn = REAL(rtsMemGetInfo);
    if (!fn) return MISSING;
    rtError_t rc = fn(memInfoType, freeSize, totalSize);
    if (rc != VNPU_RT_ERROR_NONE || !virtualised_info_type(memInfoType) || !enter()) return rc;
    virtualise_sizes(freeSize, totalSize);
    leave();
    return rc;
}

EXPORT rtError_t rtMemGetInfo(size_t *freeSize, size_t *totalSize) {
    __typeof__(&rtMemGetInfo) fn = REAL(rtMemGetInfo);
    if (!fn) return MISSING;
    rtError_t rc = fn(freeSize, totalSize);
    if (rc != VNPU_RT_ERROR_NONE || !enter()) return rc;
    virtualise_sizes(freeSize, totalSize);
    leave();
    return rc;
}

EXPORT rtError_t rtMemGetInfoByType(const int32_t devId, const rtMemType_t type, rtMemInfo_t *const info) {
    __typeof__(&rtMemGetInfoByType) fn = REAL(rtMemGetInfoByType);
    if (!fn) return MISSING;
    rtError_t rc = fn(devId, type, info);
    if (rc != VNPU_RT_ERROR_NONE || !info || devId < 0 || devId >= (int32_t)VNPU_REGION_MAX_DEVICES ||
        (type != VNPU_RT_MEM_INFO_TYPE_HBM_SIZE && type != VNPU_RT_MEM_INFO_TYPE_HBM_P2P_SIZE) || !enter())
        return rc;
    vnpu_rtMemPhyInfo_t p;
    memcpy(&p, info, sizeof p);
    virtualise(region_device((uint32_t)devId), &p.free, &p.total);
    if (p.hugeTotal > p.total) p.hugeTotal = p.total;
    if (p.hugeFree > p.free) p.hugeFree = p.free;
    if (p.giantHugeTotal > p.total) p.giantHugeTotal = p.total;
    if (p.giantHugeFree > p.free) p.giantHugeFree = p.free;
    memcpy(info, &p, sizeof p);
    leave();
    return rc;
}
