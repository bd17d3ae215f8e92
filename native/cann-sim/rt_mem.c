/*
 * Memory entry points of the simulated runtime.
 *
 * Device memory is not backed: the simulator hands out fake device addresses (never dereferenced,
 * so no host memory is spent on a 64 GB device) and charges the requested size to the shared HBM
 * counters of the simulated host. Host memory (rtMallocHost, RT_MEMORY_HOST) is real memory.
 * Every live allocation sits in a per-process table, so freeing an address this process never got
 * fails like the driver does (DRV_ERROR_INVALID_VALUE, surfaced by the runtime as 107000).
 */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

enum alloc_kind {
    KIND_DEVICE = 1,        /* charged device memory at a fake address */
    KIND_UNCHARGED = 2,     /* SVM: fake address, not charged */
    KIND_HOST = 3,          /* real host memory */
    KIND_PHYSICAL = 4,      /* physical device memory handle, charged */
    KIND_PHYSICAL_HOST = 5, /* physical host memory handle (side 0 / 4), not charged */
    KIND_VA = 6,            /* reserved virtual range (rtReserveMemAddress), not charged */
};

struct alloc {
    uint64_t key; /* 0: empty slot, 1: tombstone */
    uint64_t size;
    int dev;
    int kind;
};

#define KEY_EMPTY 0ULL
#define KEY_TOMB 1ULL

/* Fake device addresses: one 1 TiB window per logic ID, handed out upwards, 512-byte aligned. */
#define DEV_VA_BASE 0x100000000000ULL
#define DEV_VA_SPAN 0x10000000000ULL
#define VA_ALIGN 512ULL
#define HANDLE_BASE 0x7e0000000000ULL

struct alloc_table {
    pthread_mutex_t lock;
    struct alloc *slots;
    size_t cap;  /* power of two */
    size_t live;
    size_t used; /* live + tombstones */
    uint64_t next_va[VNPU_SIM_MAX_DEVICES];
    int wrapped[VNPU_SIM_MAX_DEVICES];
    uint64_t next_handle;
};

static struct alloc_table table = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t hash_key(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static struct alloc *find_slot(uint64_t key) {
    if (table.cap == 0) return NULL;
    for (size_t i = hash_key(key) & (table.cap - 1), n = 0; n < table.cap; i = (i + 1) & (table.cap - 1), n++) {
        if (table.slots[i].key == KEY_EMPTY) return NULL;
        if (table.slots[i].key == key) return &table.slots[i];
    }
    return NULL;
}

static int grow(void) {
    size_t ncap = table.cap == 0 ? 256 : (table.live * 4 > table.cap ? table.cap * 2 : table.cap);
    struct alloc *ns = calloc(ncap, sizeof(*ns));
    if (ns == NULL) return -1;
    for (size_t i = 0; i < table.cap; i++) {
        uint64_t k = table.slots[i].key;
        if (k == KEY_EMPTY || k == KEY_TOMB) continue;
        size_t j = hash_key(k) & (ncap - 1);
        while (ns[j].key != KEY_EMPTY) j = (j + 1) & (ncap - 1);
        ns[j] = table.slots[i];
    }
    free(table.slots);
    table.slots = ns;
    table.cap = ncap;
    table.used = table.live;
    return 0;
}

static int insert(const struct alloc *a) {
    if ((table.used + 1) * 2 > table.cap && grow() != 0) return -1;
    size_t j = hash_key(a->key) & (table.cap - 1);
    while (table.slots[j].key != KEY_EMPTY && table.slots[j].key != KEY_TOMB) j = (j + 1) & (table.cap - 1);
    if (table.slots[j].key == KEY_EMPTY) table.used++;
    table.slots[j] = *a;
    table.live++;
    return 0;
}

static void erase(struct alloc *slot) {
    slot->key = KEY_TOMB;
    table.live--;
}

static int overlaps_live(uint64_t lo, uint64_t size) {
    for (size_t i = 0; i < table.cap; i++) {
        const struct alloc *a = &table.slots[i];
        if (a->key <= KEY_TOMB || a->kind == KIND_HOST || a->kind == KIND_PHYSICAL || a->kind == KIND_PHYSICAL_HOST)
            continue;
        if (a->key < lo + size && lo < a->key + a->size) return 1;
    }
    return 0;
}

/* Next free fake range of `size` bytes in the device's window; 0 if none (caller holds the lock). */
static uint64_t take_va(int dev, uint64_t size) {
    uint64_t span = (size + VA_ALIGN - 1) & ~(VA_ALIGN - 1);
    uint64_t base = DEV_VA_BASE + (uint64_t)dev * DEV_VA_SPAN;
    if (span == 0 || span > DEV_VA_SPAN / 2) return 0;
    for (int tries = 0; tries < 4096; tries++) {
        if (table.next_va[dev] < base || table.next_va[dev] + span > base + DEV_VA_SPAN) {
            if (table.next_va[dev] >= base) table.wrapped[dev] = 1; /* reuse from the bottom */
            table.next_va[dev] = base + VA_ALIGN;                  /* never hand out the window base */
        }
        uint64_t va = table.next_va[dev];
        table.next_va[dev] += span;
        if (!table.wrapped[dev] || !overlaps_live(va, span)) return va;
    }
    return 0;
}

/* Allocation of device-kind memory charged to `dev`; `out` receives the address or handle. */
static rtError_t alloc_device(void **out, uint64_t size, int dev, int kind) {
    if (out == NULL || size == 0) return ACL_ERROR_RT_PARAM_INVALID;
    if (!sim_valid_device(dev)) return dev < 0 ? ACL_ERROR_RT_CONTEXT_NULL : ACL_ERROR_RT_INVALID_DEVICEID;
    if (kind == KIND_DEVICE) {
        rtError_t rc = sim_usage_charge(dev, size);
        if (rc != RT_ERROR_NONE) return rc;
    }
    pthread_mutex_lock(&table.lock);
    int handle = kind == KIND_PHYSICAL || kind == KIND_PHYSICAL_HOST;
    uint64_t key = handle ? HANDLE_BASE + (table.next_handle += 64) : take_va(dev, size);
    struct alloc a = {key, size, dev, kind};
    int ok = key != 0 && insert(&a) == 0;
    pthread_mutex_unlock(&table.lock);
    if (!ok) {
        if (kind == KIND_DEVICE || kind == KIND_PHYSICAL) sim_usage_release(dev, size);
        return key == 0 ? ACL_ERROR_RT_MEMORY_ALLOCATION : ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
    }
    *out = (void *)(uintptr_t)key;
    return RT_ERROR_NONE;
}

static rtError_t alloc_host(void **out, uint64_t size) {
    if (out == NULL || size == 0) return ACL_ERROR_RT_PARAM_INVALID;
    void *p = NULL;
    if (posix_memalign(&p, 64, (size_t)size) != 0) return ACL_ERROR_RT_MEMORY_ALLOCATION;
    struct alloc a = {(uint64_t)(uintptr_t)p, size, -1, KIND_HOST};
    pthread_mutex_lock(&table.lock);
    int ok = insert(&a) == 0;
    pthread_mutex_unlock(&table.lock);
    if (!ok) {
        free(p);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    *out = p;
    return RT_ERROR_NONE;
}

/* Frees `key` if it is live and of an accepted kind; `bad` is the code for anything else. */
static rtError_t release(const void *ptr, unsigned kinds_mask, rtError_t bad) {
    if (ptr == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    pthread_mutex_lock(&table.lock);
    struct alloc *slot = find_slot((uint64_t)(uintptr_t)ptr);
    if (slot == NULL || !(kinds_mask & (1u << slot->kind))) {
        pthread_mutex_unlock(&table.lock);
        return bad;
    }
    struct alloc a = *slot;
    erase(slot);
    pthread_mutex_unlock(&table.lock);
    if (a.kind == KIND_DEVICE || a.kind == KIND_PHYSICAL) sim_usage_release(a.dev, a.size);
    if (a.kind == KIND_HOST) free((void *)(uintptr_t)a.key);
    return RT_ERROR_NONE;
}

#define MASK_DEVICE ((1u << KIND_DEVICE) | (1u << KIND_UNCHARGED) | (1u << KIND_HOST))

void sim_mem_release_device(int dev) {
    uint64_t bytes = 0;
    pthread_mutex_lock(&table.lock);
    for (size_t i = 0; i < table.cap; i++) {
        struct alloc *a = &table.slots[i];
        if (a->key <= KEY_TOMB || a->dev != dev) continue;
        if (a->kind == KIND_DEVICE || a->kind == KIND_PHYSICAL) bytes += a->size;
        erase(a);
    }
    pthread_mutex_unlock(&table.lock);
    if (bytes != 0) sim_usage_release(dev, bytes);
}

static int is_host_kind(rtMemType_t type) {
    uint32_t kind = type & 0xFFU;
    return kind == RT_MEMORY_HOST;
}

static int is_uncharged_kind(rtMemType_t type) { return (type & 0xFFU) == RT_MEMORY_SVM; }

static rtError_t malloc_typed(void **devPtr, uint64_t size, rtMemType_t type) {
    if (is_host_kind(type)) return alloc_host(devPtr, size);
    return alloc_device(devPtr, size, sim_current_device(), is_uncharged_kind(type) ? KIND_UNCHARGED : KIND_DEVICE);
}

rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId) {
    (void)moduleId;
    return malloc_typed(devPtr, size, type);
}

rtError_t rtMallocCached(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId) {
    (void)moduleId;
    return malloc_typed(devPtr, size, type);
}

/* Device of an rtsMalloc-family call: RT_MEM_MALLOC_ATTR_DEVICE_ID if given, else the current one. */
static int cfg_device(const rtMallocConfig_t *cfg) {
    if (cfg != NULL && cfg->attrs != NULL) {
        for (size_t i = 0; i < cfg->numAttrs; i++)
            if (cfg->attrs[i].attr == RT_MEM_MALLOC_ATTR_DEVICE_ID) {
                int phys = sim_phys_device((int32_t)cfg->attrs[i].value.deviceId);
                return phys >= 0 ? phys : VNPU_SIM_MAX_DEVICES; /* invalid: not a context problem */
            }
    }
    return sim_current_device();
}

rtError_t rtsMalloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,
                    rtMallocConfig_t *cfg) {
    (void)policy;
    (void)advise;
    if (cfg != NULL && cfg->numAttrs != 0 && cfg->attrs == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return alloc_device(devPtr, size, cfg_device(cfg), KIND_DEVICE);
}

rtError_t rtMemAlloc(void **devPtr, uint64_t size, rtMallocPolicy policy, rtMallocAdvise advise,
                     rtMallocConfig_t *cfg) {
    return rtsMalloc(devPtr, size, policy, advise, cfg);
}

rtError_t rtDvppMalloc(void **devPtr, uint64_t size, const uint16_t moduleId) {
    (void)moduleId;
    return alloc_device(devPtr, size, sim_current_device(), KIND_DEVICE);
}

rtError_t rtDvppMallocWithFlag(void **devPtr, uint64_t size, uint32_t flag, const uint16_t moduleId) {
    (void)flag;
    (void)moduleId;
    return alloc_device(devPtr, size, sim_current_device(), KIND_DEVICE);
}

rtError_t rtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag, const uint16_t moduleId) {
    (void)flag;
    (void)moduleId;
    return alloc_device(ptr, size, sim_current_device(), KIND_DEVICE);
}

#define MEM_SIDE_DEVICE 1U /* rtDrvMemProp_t.side = aclrtMemLocationType: 0 host, 1 device, 4 host NUMA */

rtError_t rtMallocPhysical(rtDrvMemHandle *handle, size_t size, rtDrvMemProp_t *prop, uint64_t flags) {
    (void)flags;
    if (prop == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (prop->side != MEM_SIDE_DEVICE) {
        if (handle == NULL || size == 0) return ACL_ERROR_RT_PARAM_INVALID;
        return alloc_device(handle, size, sim_current_device() < 0 ? 0 : sim_current_device(), KIND_PHYSICAL_HOST);
    }
    int phys = sim_phys_device((int32_t)prop->devid);
    if (phys < 0) return ACL_ERROR_RT_INVALID_DEVICEID;
    rtError_t rc = handle == NULL || size == 0 ? ACL_ERROR_RT_PARAM_INVALID : sim_usage_charge(phys, size);
    if (rc != RT_ERROR_NONE) return rc;
    rc = alloc_device(handle, size, phys, KIND_PHYSICAL);
    return rc;
}

rtError_t rtsMemMallocPhysical(rtMemHandle *handle, size_t size, rtMallocPolicy policy, rtMallocConfig_t *cfg) {
    (void)policy;
    int dev = cfg_device(cfg);
    if (!sim_valid_device(dev)) return dev < 0 ? ACL_ERROR_RT_CONTEXT_NULL : ACL_ERROR_RT_INVALID_DEVICEID;
    rtError_t rc = handle == NULL || size == 0 ? ACL_ERROR_RT_PARAM_INVALID : sim_usage_charge(dev, size);
    if (rc != RT_ERROR_NONE) return rc;
    return alloc_device(handle, size, dev, KIND_PHYSICAL);
}

rtError_t rtFree(void *devPtr) { return release(devPtr, MASK_DEVICE, ACL_ERROR_RT_PARAM_INVALID); }

rtError_t rtFreeWithDevSync(void *devPtr) {
    if (devPtr != NULL) {
        pthread_mutex_lock(&table.lock);
        struct alloc *slot = find_slot((uint64_t)(uintptr_t)devPtr);
        int dev = slot != NULL ? slot->dev : -1;
        pthread_mutex_unlock(&table.lock);
        if (dev >= 0) sim_sleep_until(sim_streams_tail(dev));
    }
    return release(devPtr, MASK_DEVICE, ACL_ERROR_RT_PARAM_INVALID);
}

rtError_t rtsFree(void *devPtr) { return release(devPtr, MASK_DEVICE, ACL_ERROR_RT_PARAM_INVALID); }
rtError_t rtDvppFree(void *devPtr) { return release(devPtr, MASK_DEVICE, ACL_ERROR_RT_PARAM_INVALID); }
rtError_t rtMemFreeManaged(void *ptr) { return release(ptr, MASK_DEVICE, ACL_ERROR_RT_PARAM_INVALID); }

#define MASK_PHYSICAL ((1u << KIND_PHYSICAL) | (1u << KIND_PHYSICAL_HOST))

rtError_t rtFreePhysical(rtDrvMemHandle handle) { return release(handle, MASK_PHYSICAL, ACL_ERROR_RT_INVALID_HANDLE); }

rtError_t rtsMemFreePhysical(rtMemHandle *handle) {
    if (handle == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return release(*handle, MASK_PHYSICAL, ACL_ERROR_RT_INVALID_HANDLE);
}

/* ---- virtual memory management (validated, not modelled: mapping charges nothing) ---- */

rtError_t rtReserveMemAddress(void **devPtr, size_t size, size_t alignment, void *devAddr, uint64_t flags) {
    (void)alignment;
    (void)devAddr; /* a hint only */
    (void)flags;
    int dev = sim_current_device();
    if (devPtr == NULL || size == 0) return ACL_ERROR_RT_PARAM_INVALID;
    return alloc_device(devPtr, size, dev, KIND_VA);
}

rtError_t rtReleaseMemAddress(void *devPtr) { return release(devPtr, 1u << KIND_VA, ACL_ERROR_RT_PARAM_INVALID); }

/* 1: [p, p + size) lies inside a live VA reservation; handle (if not NULL) is a live physical handle. */
static int vmm_args_ok(const void *p, uint64_t size, rtDrvMemHandle handle) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    int va_ok = 0, handle_ok = handle == NULL;
    pthread_mutex_lock(&table.lock);
    for (size_t i = 0; i < table.cap; i++) {
        const struct alloc *s = &table.slots[i];
        if (s->key <= KEY_TOMB) continue;
        if (s->kind == KIND_VA && a >= s->key && size <= s->size && a - s->key <= s->size - size) va_ok = 1;
        if (handle != NULL && s->key == (uint64_t)(uintptr_t)handle && (MASK_PHYSICAL & (1u << s->kind)))
            handle_ok = 1;
    }
    pthread_mutex_unlock(&table.lock);
    return va_ok && handle_ok;
}

rtError_t rtMapMem(void *devPtr, size_t size, size_t offset, rtDrvMemHandle handle, uint64_t flags) {
    (void)offset;
    (void)flags;
    if (devPtr == NULL || handle == NULL || size == 0) return ACL_ERROR_RT_PARAM_INVALID;
    return vmm_args_ok(devPtr, size, handle) ? RT_ERROR_NONE : ACL_ERROR_RT_PARAM_INVALID;
}

rtError_t rtUnmapMem(void *devPtr) {
    if (devPtr == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    return vmm_args_ok(devPtr, 1, NULL) ? RT_ERROR_NONE : ACL_ERROR_RT_PARAM_INVALID;
}

#define PHYSICAL_GRANULARITY (2ULL * 1024 * 1024) /* huge-page granularity of device memory */

rtError_t rtMemGetAllocationGranularity(rtDrvMemProp_t *prop, rtDrvMemGranularityOptions option, size_t *granularity) {
    if (prop == NULL || granularity == NULL || option >= RT_MEM_ALLOC_GRANULARITY_INVALID)
        return ACL_ERROR_RT_PARAM_INVALID;
    *granularity = PHYSICAL_GRANULARITY;
    return RT_ERROR_NONE;
}

rtError_t rtMallocHost(void **hostPtr, uint64_t size, const uint16_t moduleId) {
    (void)moduleId;
    return alloc_host(hostPtr, size);
}

rtError_t rtFreeHost(void *hostPtr) { return release(hostPtr, 1u << KIND_HOST, ACL_ERROR_RT_PARAM_INVALID); }

/* ---- memory information ---- */

/* 310-series chips carry DDR device memory; 910-series carry HBM. */
static int device_memory_is_ddr(int dev) { return strncmp(sim_host()->dev[dev].chip_name, "310", 3) == 0; }

static void device_free_total(int dev, size_t *freeSize, size_t *totalSize) {
    struct sim_host *h = sim_host();
    uint64_t total = h->dev[dev].hbm_bytes;
    uint64_t used = __atomic_load_n(&h->hbm_used[dev], __ATOMIC_ACQUIRE);
    *totalSize = (size_t)total;
    *freeSize = (size_t)(used >= total ? 0 : total - used);
}

static rtError_t mem_info(int dev, rtMemInfoType_t type, size_t *freeSize, size_t *totalSize) {
    if (freeSize == NULL || totalSize == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (dev < 0) return ACL_ERROR_RT_CONTEXT_NULL;
    int ddr_query;
    switch (type) {
    case RT_MEMORYINFO_DDR: case RT_MEMORYINFO_DDR_HUGE: case RT_MEMORYINFO_DDR_NORMAL:
    case RT_MEMORYINFO_DDR_P2P_HUGE: case RT_MEMORYINFO_DDR_P2P_NORMAL:
        ddr_query = 1;
        break;
    case RT_MEMORYINFO_HBM: case RT_MEMORYINFO_HBM_HUGE: case RT_MEMORYINFO_HBM_NORMAL:
    case RT_MEMORYINFO_HBM_P2P_HUGE: case RT_MEMORYINFO_HBM_P2P_NORMAL: case RT_MEMORYINFO_HBM_HUGE1G:
    case RT_MEMORYINFO_HBM_P2P_HUGE1G:
        ddr_query = 0;
        break;
    case RT_MEMORYINFO_NORMAL: case RT_MEMORYINFO_HUGE: case RT_MEMORYINFO_HUGE1G:
    case RT_MEMORYINFO_P2P_NORMAL: case RT_MEMORYINFO_P2P_HUGE: case RT_MEMORYINFO_P2P_HUGE1G:
        ddr_query = device_memory_is_ddr(dev); /* generic types: whatever the device has */
        break;
    default:
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    sim_usage_reap_dead();
    if (ddr_query != device_memory_is_ddr(dev)) {
        *freeSize = 0;
        *totalSize = 0;
        return RT_ERROR_NONE;
    }
    device_free_total(dev, freeSize, totalSize);
    return RT_ERROR_NONE;
}

rtError_t rtMemGetInfoEx(rtMemInfoType_t memInfoType, size_t *freeSize, size_t *totalSize) {
    return mem_info(sim_current_device(), memInfoType, freeSize, totalSize);
}

rtError_t rtsMemGetInfo(rtMemInfoType memInfoType, size_t *freeSize, size_t *totalSize) {
    return mem_info(sim_current_device(), memInfoType, freeSize, totalSize);
}

rtError_t rtMemGetInfo(size_t *freeSize, size_t *totalSize) {
    int dev = sim_current_device();
    if (dev < 0) return freeSize == NULL || totalSize == NULL ? ACL_ERROR_RT_PARAM_INVALID : ACL_ERROR_RT_CONTEXT_NULL;
    return mem_info(dev, device_memory_is_ddr(dev) ? RT_MEMORYINFO_DDR : RT_MEMORYINFO_HBM, freeSize, totalSize);
}

rtError_t rtMemGetInfoByType(const int32_t userDev, const rtMemType_t type, rtMemInfo_t *const info) {
    const int32_t devId = sim_phys_device(userDev) < 0 ? -1 : sim_phys_device(userDev);
    if (info == NULL) return ACL_ERROR_RT_PARAM_INVALID;
    if (!sim_valid_device(devId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    int want_ddr;
    if (type == RT_MEM_INFO_TYPE_DDR_SIZE || type == RT_MEM_INFO_TYPE_DDR_P2P_SIZE) want_ddr = 1;
    else if (type == RT_MEM_INFO_TYPE_HBM_SIZE || type == RT_MEM_INFO_TYPE_HBM_P2P_SIZE) want_ddr = 0;
    else return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    sim_usage_reap_dead();
    memset(&info->phyInfo, 0, sizeof(info->phyInfo));
    if (want_ddr == device_memory_is_ddr(devId)) {
        size_t f, t;
        device_free_total(devId, &f, &t);
        info->phyInfo.total = t;
        info->phyInfo.free = f;
        info->phyInfo.hugeTotal = t;
        info->phyInfo.hugeFree = f;
    }
    return RT_ERROR_NONE;
}

rtError_t rtGetMemUsageInfo(uint32_t deviceId, rtMemUsageInfo_t *memUsageInfo, size_t inputNum, size_t *outputNum) {
    if (memUsageInfo == NULL || outputNum == NULL || inputNum == 0) return ACL_ERROR_RT_PARAM_INVALID;
    if (!sim_valid_device((int32_t)deviceId)) return ACL_ERROR_RT_INVALID_DEVICEID;
    memset(&memUsageInfo[0], 0, sizeof(memUsageInfo[0]));
    strcpy(memUsageInfo[0].name, "APP");
    memUsageInfo[0].curMemSize = sim_usage_own((int)deviceId);
    memUsageInfo[0].memPeakSize = memUsageInfo[0].curMemSize;
    *outputNum = 1;
    return RT_ERROR_NONE;
}

/* ---- copies: ranges are validated, device bytes are not stored (device-to-host reads zeros) ---- */

static int device_range_ok(const void *p, uint64_t cnt) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    int ok = 0;
    pthread_mutex_lock(&table.lock);
    for (size_t i = 0; i < table.cap && !ok; i++) {
        const struct alloc *s = &table.slots[i];
        if (s->key <= KEY_TOMB || (MASK_PHYSICAL & (1u << s->kind))) continue;
        ok = a >= s->key && cnt <= s->size && a - s->key <= s->size - cnt;
    }
    pthread_mutex_unlock(&table.lock);
    return ok;
}

static rtError_t copy(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind) {
    if (dst == NULL || src == NULL || cnt > destMax) return ACL_ERROR_RT_PARAM_INVALID;
    switch (kind) {
    case RT_MEMCPY_HOST_TO_HOST:
        memmove(dst, src, (size_t)cnt);
        return RT_ERROR_NONE;
    case RT_MEMCPY_HOST_TO_DEVICE:
        return device_range_ok(dst, cnt) ? RT_ERROR_NONE : ACL_ERROR_RT_PARAM_INVALID;
    case RT_MEMCPY_DEVICE_TO_HOST:
        if (!device_range_ok(src, cnt)) return ACL_ERROR_RT_PARAM_INVALID;
        memset(dst, 0, (size_t)cnt);
        return RT_ERROR_NONE;
    case RT_MEMCPY_DEVICE_TO_DEVICE:
        return device_range_ok(src, cnt) && device_range_ok(dst, cnt) ? RT_ERROR_NONE : ACL_ERROR_RT_PARAM_INVALID;
    default:
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    }
}

rtError_t rtMemcpy(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind) {
    return copy(dst, destMax, src, cnt, kind);
}

rtError_t rtMemcpyAsync(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind,
                        rtStream_t stm) {
    (void)stm;
    return copy(dst, destMax, src, cnt, kind);
}

rtError_t rtMemset(void *devPtr, uint64_t destMax, uint32_t val, uint64_t cnt) {
    (void)val;
    if (devPtr == NULL || cnt > destMax) return ACL_ERROR_RT_PARAM_INVALID;
    return device_range_ok(devPtr, cnt) ? RT_ERROR_NONE : ACL_ERROR_RT_PARAM_INVALID;
}

/* ---- fork: the child starts without the parent's device memory, like a fresh device context ---- */

static void mem_atfork_prepare(void) { pthread_mutex_lock(&table.lock); }
static void mem_atfork_parent(void) { pthread_mutex_unlock(&table.lock); }

static void mem_atfork_child(void) {
    for (size_t i = 0; i < table.cap; i++) {
        struct alloc *a = &table.slots[i];
        if (a->key > KEY_TOMB && a->kind != KIND_HOST) erase(a); /* host memory was copied: still ours */
    }
    pthread_mutex_unlock(&table.lock);
}

__attribute__((constructor)) static void rt_mem_ctor(void) {
    pthread_atfork(mem_atfork_prepare, mem_atfork_parent, mem_atfork_child);
}
