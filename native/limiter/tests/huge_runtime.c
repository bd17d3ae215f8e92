/*
 * A tenant's own stand-in for the CANN runtime (test tooling: a tenant controls every library in its
 * container): it hands out an address for any size, however large, and reports 1 EiB of HBM. With it
 * preloaded after libvnpu.so, test_huge_alloc.sh checks that an allocation the limiter's pointer
 * table cannot record (2^56 bytes or more: entries are packed) is never left uncounted.
 * test_hook_edges.sh drives the hooked pair's rare paths through two entry points the limiter does
 * not hook: hugeRtReuse(p) makes the next rtMalloc hand out p again (the tenant freed it through a
 * path the limiter does not see), hugeRtFailFrees(n) makes the next n rtFree calls fail.
 */
#include <stddef.h>
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

static uintptr_t next_va = 0x100000000000ull;
static int32_t current = -1;
static void *reuse;
static int fail_frees;

EXPORT void hugeRtReuse(void *p) { reuse = p; }
EXPORT void hugeRtFailFrees(int n) { fail_frees = n; }

EXPORT int32_t rtSetDevice(int32_t dev) {
    current = dev;
    return 0;
}

EXPORT int32_t rtGetDevice(int32_t *dev) {
    if (current < 0) return 107002;
    *dev = current;
    return 0;
}

EXPORT int32_t rtMalloc(void **p, uint64_t size, uint32_t type, uint16_t moduleId) {
    (void)size, (void)type, (void)moduleId;
    *p = reuse ? reuse : (void *)(next_va += 0x200000);
    reuse = NULL;
    return 0;
}

EXPORT int32_t rtFree(void *p) {
    if (fail_frees > 0) {
        fail_frees--;
        return 507899; /* an internal error: the memory stays allocated */
    }
    return p ? 0 : 107000;
}

EXPORT int32_t rtMemGetInfo(size_t *freeSize, size_t *totalSize) {
    *freeSize = *totalSize = (size_t)1 << 60;
    return 0;
}
