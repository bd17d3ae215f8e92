/*
 * Driver of test_hook_edges.sh (libvnpu.so and libhuge_runtime.so preloaded, 4 GiB quota on device
 * 0): the rare paths of the hooked rtMalloc/rtFree pair, each checked by what the limiter's
 * rtMemGetInfo reports free afterwards (total minus the bytes charged). Prints "<step> ok" lines,
 * or the first mismatch and exits 1.
 *   unknown   frees of a pointer never allocated and of NULL change nothing
 *   replaced  an address the runtime hands out again while the limiter still holds it: the stale
 *             charge goes, the new one is charged
 *   failed    a real free that fails keeps the bytes charged; the next free releases them
 *   growth    3000 live allocations (every stripe of the pointer table grows past its first table)
 *             are charged exactly and released exactly
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#define MIB (1024ull * 1024ull)
#define GROWN 3000

typedef int32_t (*set_fn)(int32_t);
typedef int32_t (*malloc_fn)(void **, uint64_t, uint32_t, uint16_t);
typedef int32_t (*free_fn)(void *);
typedef int32_t (*info_fn)(size_t *, size_t *);

static malloc_fn alloc;
static free_fn release;
static info_fn info;
static int fails;

static uint64_t free_bytes(void) {
    size_t fr = 0, total = 0;
    if (info(&fr, &total) != 0) return UINT64_MAX;
    return fr;
}

#define EXPECT(what, got, want)                                                                           \
    do {                                                                                                  \
        unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want);              \
        if (g_ != w_) {                                                                                   \
            printf("%s:%d: %s: %s = %llu, expected %llu\n", __FILE__, __LINE__, what, #got, g_, w_);      \
            fails++;                                                                                      \
        }                                                                                                 \
    } while (0)

int main(void) {
    set_fn set = (set_fn)dlsym(RTLD_DEFAULT, "rtSetDevice");
    alloc = (malloc_fn)dlsym(RTLD_DEFAULT, "rtMalloc");
    release = (free_fn)dlsym(RTLD_DEFAULT, "rtFree");
    info = (info_fn)dlsym(RTLD_DEFAULT, "rtMemGetInfo");
    void (*reuse)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "hugeRtReuse");
    void (*fail_frees)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "hugeRtFailFrees");
    if (!set || !alloc || !release || !info || !reuse || !fail_frees) {
        fprintf(stderr, "hook_edges: libvnpu.so and libhuge_runtime.so must be preloaded\n");
        return 2;
    }
    if (set(0) != 0) return 3;
    const uint64_t all = free_bytes();
    EXPECT("quota", all, 4096 * MIB);

    void *p = NULL, *q = NULL;
    EXPECT("unknown", alloc(&p, 64 * MIB, 0, 0), 0);
    EXPECT("unknown", release((void *)0x7fff00000000ull), 0); /* the runtime takes it; not ours */
    EXPECT("unknown", release(NULL), 107000);
    EXPECT("unknown", free_bytes(), all - 64 * MIB);
    EXPECT("unknown", release(p), 0);
    EXPECT("unknown", free_bytes(), all);
    if (!fails) printf("unknown ok\n");

    EXPECT("replaced", alloc(&p, 100 * MIB, 0, 0), 0);
    reuse(p); /* freed behind the limiter's back, then handed out again */
    EXPECT("replaced", alloc(&q, 30 * MIB, 0, 0), 0);
    EXPECT("replaced", q == p, 1);
    EXPECT("replaced", free_bytes(), all - 30 * MIB);
    EXPECT("replaced", release(q), 0);
    EXPECT("replaced", free_bytes(), all);
    if (!fails) printf("replaced ok\n");

    EXPECT("failed", alloc(&p, 200 * MIB, 0, 0), 0);
    fail_frees(1);
    EXPECT("failed", release(p), 507899);
    EXPECT("failed", free_bytes(), all - 200 * MIB);
    EXPECT("failed", release(p), 0);
    EXPECT("failed", free_bytes(), all);
    EXPECT("failed", release(p), 0); /* a second free: unknown now, nothing changes */
    EXPECT("failed", free_bytes(), all);
    if (!fails) printf("failed ok\n");

    static void *live[GROWN];
    for (int i = 0; i < GROWN; i++) EXPECT("growth", alloc(&live[i], MIB, 0, 0), 0);
    EXPECT("growth", free_bytes(), all - GROWN * MIB);
    for (int i = 0; i < GROWN; i += 2) EXPECT("growth", release(live[i]), 0);
    EXPECT("growth", free_bytes(), all - GROWN / 2 * MIB);
    for (int i = 1; i < GROWN; i += 2) EXPECT("growth", release(live[i]), 0);
    EXPECT("growth", free_bytes(), all);
    if (!fails) printf("growth ok\n");
    return fails ? 1 : 0;
}
