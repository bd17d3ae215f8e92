#include "ptrmap.h"

#include "cpu_relax.h"

#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#define STRIPES 16
#define INITIAL_CAP 64 /* entries per stripe, power of two */
#define SPINS_BEFORE_YIELD 64

/*
 * Each stripe is guarded by a test-and-test-and-set lock: one atomic exchange to take it and a
 * plain release store to drop it, where a pthread mutex costs two atomic read-modify-writes and two
 * library calls on every allocation and every free (issue 29: alloc+free <= +50 ns). Critical
 * sections are a few probes (a growth maps and rehashes once per doubling); a waiter spins briefly,
 * then yields the CPU, so a holder that was preempted gets to finish.
 */
/*
 * A stored entry is 16 bytes, the device and kind packed above the byte count, so that the tables a
 * process with few live allocations touches stay small (16 stripes x 64 entries = 16 KiB, a quarter of
 * an L1 data cache): the runtime hands out a new address per allocation, so every insert lands on a
 * different line, and a 24-byte entry with 256 per stripe spread them over 96 KiB, missing L1 on each
 * allocation and each free (issue 29: about half of the pointer table's cost in the hooked pair).
 */
#define META_BYTES_MASK VNPU_PTRMAP_MAX_BYTES
#define META_DEV_SHIFT 56 /* 4 bits: dev < VNPU_REGION_MAX_DEVICES (16) */
#define META_KIND_SHIFT 60 /* 4 bits */
_Static_assert(META_BYTES_MASK >> META_DEV_SHIFT == 0 && (META_BYTES_MASK + 1) >> META_DEV_SHIFT == 1,
               "bytes end where the device starts");
_Static_assert(VNPU_PTRMAP_MAX_DEV == 0xF && VNPU_PTRMAP_MAX_KIND == 0xF, "device and kind are 4 bits each");

struct slot {
    uintptr_t key; /* 0 = empty */
    uint64_t meta; /* bytes | dev << 56 | kind << 60 */
};

static int packable(uint32_t dev, uint64_t bytes, uint32_t kind) {
    return dev <= VNPU_PTRMAP_MAX_DEV && kind <= VNPU_PTRMAP_MAX_KIND && bytes <= VNPU_PTRMAP_MAX_BYTES;
}

static uint64_t pack(uint32_t dev, uint64_t bytes, uint32_t kind) {
    return bytes | (uint64_t)dev << META_DEV_SHIFT | (uint64_t)kind << META_KIND_SHIFT;
}

static void unpack(const struct slot *s, struct vnpu_ptr_entry *out) {
    out->key = s->key;
    out->bytes = s->meta & META_BYTES_MASK;
    out->dev = (uint32_t)(s->meta >> META_DEV_SHIFT) & 0xF;
    out->kind = (uint32_t)(s->meta >> META_KIND_SHIFT) & 0xF;
}

struct stripe {
    int lock;
    struct slot *tab;
    uint64_t cap;
    uint64_t n;
};

static struct stripe stripes[STRIPES];

/*
 * Every stripe's first table lives in one contiguous array. Sixteen separate page-aligned mappings
 * of 1 KiB would all sit on the same 16 of an L1 cache's 64 sets (a 32 KiB 8-way cache repeats every
 * 4 KiB) and evict each other on every probe; side by side they cover all 64 sets. A stripe that
 * grows past it maps its own table (.bss is as allocator-free as mmap: fork children copy it).
 */
static struct slot first_tabs[STRIPES][INITIAL_CAP];

static int in_first(const struct stripe *s) { return s->tab == first_tabs[s - stripes]; }

static void unmap_tab(struct stripe *s) {
    if (s->tab && !in_first(s)) munmap(s->tab, s->cap * sizeof(struct slot));
}

static __attribute__((noinline, cold)) void stripe_lock_contended(struct stripe *s) {
    unsigned spins = 0;
    do {
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED)) {
            if (++spins < SPINS_BEFORE_YIELD) vnpu_cpu_relax();
            else sched_yield();
        }
    } while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE));
}

/* the uncontended take (every allocation and free) inline: one exchange, no call */
static inline void stripe_lock(struct stripe *s) {
    if (__builtin_expect(__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE), 0)) stripe_lock_contended(s);
}

static void stripe_unlock(struct stripe *s) { __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE); }

static uint64_t mix(uintptr_t k) {
    uint64_t x = (uint64_t)k;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static struct stripe *stripe_of(uint64_t h) { return &stripes[h & (STRIPES - 1)]; }

static struct slot *map_entries(uint64_t cap) {
    void *p = mmap(NULL, cap * sizeof(struct slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void insert_raw(struct slot *tab, uint64_t cap, const struct slot *e) {
    uint64_t i = (mix(e->key) >> 4) & (cap - 1);
    while (tab[i].key && tab[i].key != e->key) i = (i + 1) & (cap - 1);
    tab[i] = *e;
}

static int grow(struct stripe *s) {
    if (!s->cap) {
        s->tab = first_tabs[s - stripes];
        memset(s->tab, 0, sizeof first_tabs[0]);
        s->cap = INITIAL_CAP;
        return 0;
    }
    uint64_t ncap = s->cap * 2;
    struct slot *nt = map_entries(ncap);
    if (!nt) return -1;
    for (uint64_t i = 0; i < s->cap; i++)
        if (s->tab[i].key) insert_raw(nt, ncap, &s->tab[i]);
    unmap_tab(s);
    s->tab = nt;
    s->cap = ncap;
    return 0;
}

/* The rare insert: the stripe must grow first (its first insert, or a doubling), or its key is
 * present already (an address the runtime handed out again). Under the stripe's lock. */
static __attribute__((noinline, cold)) int put_slow(struct stripe *s, uint64_t h, uintptr_t key, uint64_t meta,
                                                    struct vnpu_ptr_entry *replaced) {
    if ((s->n + 1) * 4 > s->cap * 3 && grow(s) != 0) return -1; /* load factor <= 3/4 */
    uint64_t mask = s->cap - 1, i = (h >> 4) & mask;
    while (s->tab[i].key && s->tab[i].key != key) i = (i + 1) & mask;
    int rc = 0;
    if (!s->tab[i].key) {
        s->n++;
    } else {
        rc = 1;
        if (replaced) unpack(&s->tab[i], replaced);
    }
    s->tab[i].key = key;
    s->tab[i].meta = meta;
    return rc;
}

/* Under the stripe's lock; the usual insert (room without growing, the first empty slot reached
 * before the key) inline. */
static inline __attribute__((always_inline)) int put_locked(struct stripe *s, uint64_t h, uintptr_t key,
                                                            uint64_t meta, struct vnpu_ptr_entry *replaced) {
    if (__builtin_expect((s->n + 1) * 4 <= s->cap * 3, 1)) {
        struct slot *tab = s->tab;
        uint64_t mask = s->cap - 1, i = (h >> 4) & mask;
        uintptr_t k;
        while ((k = tab[i].key) != 0 && k != key) i = (i + 1) & mask;
        if (__builtin_expect(k == 0, 1)) {
            tab[i].key = key;
            tab[i].meta = meta;
            s->n++;
            return 0;
        }
    }
    return put_slow(s, h, key, meta, replaced);
}

/* A stripe another thread holds: wait for it, then the whole insert. Out of line and reached by a
 * tail call, so the uncontended insert saves no registers around a call. */
static __attribute__((noinline, cold)) int put_contended(struct stripe *s, uint64_t h, uintptr_t key, uint64_t meta,
                                                         struct vnpu_ptr_entry *replaced) {
    stripe_lock_contended(s);
    int rc = put_locked(s, h, key, meta, replaced);
    stripe_unlock(s);
    return rc;
}

int vnpu_ptrmap_put(uintptr_t key, uint32_t dev, uint64_t bytes, uint32_t kind, struct vnpu_ptr_entry *replaced) {
    if (!packable(dev, bytes, kind)) return -1;
    uint64_t h = mix(key);
    struct stripe *s = stripe_of(h);
    uint64_t meta = pack(dev, bytes, kind);
    if (__builtin_expect(__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE), 0))
        return put_contended(s, h, key, meta, replaced);
    int rc = put_locked(s, h, key, meta, replaced);
    stripe_unlock(s);
    return rc;
}

/* Backward-shift deletion from the hole at i (keeps probe chains intact without tombstones); only
 * when the slot after i is taken: a table at most 3/4 full usually has it empty. */
static __attribute__((noinline)) void shift_back(struct slot *tab, uint64_t mask, uint64_t i) {
    uint64_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!tab[j].key) break;
        uint64_t home = (mix(tab[j].key) >> 4) & mask;
        /* move j into the hole unless its home lies cyclically in (hole, j] */
        int in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            tab[hole] = tab[j];
            hole = j;
        }
    }
    tab[hole].key = 0;
    tab[hole].meta = 0;
}

/* Under the stripe's lock: removes key, 1 and its meta word in *meta if it was there. */
static inline __attribute__((always_inline)) int take_locked(struct stripe *s, uint64_t h, uintptr_t key,
                                                             uint64_t *meta) {
    if (!s->cap || !key) return 0;
    struct slot *tab = s->tab;
    uint64_t mask = s->cap - 1, i = (h >> 4) & mask;
    uintptr_t k;
    while ((k = tab[i].key) != 0 && k != key) i = (i + 1) & mask;
    if (k != key) return 0;
    *meta = tab[i].meta;
    if (__builtin_expect(tab[(i + 1) & mask].key == 0, 1)) {
        tab[i].key = 0; /* nothing after it to shift back */
        tab[i].meta = 0;
    } else {
        shift_back(tab, mask, i);
    }
    s->n--;
    return 1;
}

static void unpack_meta(uintptr_t key, uint64_t meta, struct vnpu_ptr_entry *out) {
    struct slot e = {key, meta};
    unpack(&e, out);
}

/* the stripe is held by another thread: as put_contended */
static __attribute__((noinline, cold)) int take_contended(struct stripe *s, uint64_t h, uintptr_t key,
                                                          struct vnpu_ptr_entry *out) {
    uint64_t meta = 0;
    stripe_lock_contended(s);
    int found = take_locked(s, h, key, &meta);
    stripe_unlock(s);
    if (found && out) unpack_meta(key, meta, out);
    return found;
}

int vnpu_ptrmap_take(uintptr_t key, struct vnpu_ptr_entry *out) {
    uint64_t h = mix(key);
    struct stripe *s = stripe_of(h);
    if (__builtin_expect(__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE), 0)) return take_contended(s, h, key, out);
    uint64_t meta = 0;
    int found = take_locked(s, h, key, &meta);
    stripe_unlock(s);
    if (found && out) unpack_meta(key, meta, out);
    return found;
}

uint64_t vnpu_ptrmap_drop_device(uint32_t dev, uint64_t *entries) {
    uint64_t bytes = 0, n = 0;
    for (int k = 0; k < STRIPES; k++) {
        for (;;) {
            uintptr_t key = 0;
            stripe_lock(&stripes[k]);
            for (uint64_t i = 0; i < stripes[k].cap && !key; i++)
                if (stripes[k].tab[i].key && ((stripes[k].tab[i].meta >> META_DEV_SHIFT) & 0xF) == dev) key = stripes[k].tab[i].key;
            stripe_unlock(&stripes[k]);
            if (!key) break;
            struct vnpu_ptr_entry e;
            if (vnpu_ptrmap_take(key, &e)) {
                bytes += e.bytes;
                n++;
            }
        }
    }
    if (entries) *entries = n;
    return bytes;
}

uint64_t vnpu_ptrmap_size(void) {
    uint64_t n = 0;
    for (int k = 0; k < STRIPES; k++) {
        stripe_lock(&stripes[k]);
        n += stripes[k].n;
        stripe_unlock(&stripes[k]);
    }
    return n;
}

void vnpu_ptrmap_atfork_prepare(void) {
    for (int k = 0; k < STRIPES; k++) stripe_lock(&stripes[k]);
}

void vnpu_ptrmap_atfork_parent(void) {
    for (int k = STRIPES - 1; k >= 0; k--) stripe_unlock(&stripes[k]);
}

static void clear_locked(struct stripe *s) {
    unmap_tab(s);
    s->tab = NULL;
    s->cap = 0;
    s->n = 0;
}

void vnpu_ptrmap_atfork_child(void) {
    /* the parent's allocations stay charged to the parent: the child frees nothing on their behalf */
    for (int k = STRIPES - 1; k >= 0; k--) {
        clear_locked(&stripes[k]);
        stripe_unlock(&stripes[k]);
    }
}

void vnpu_ptrmap_clone_child(void) {
    /* no prepare handler ran: a stripe another parent thread held stays locked here; start afresh */
    for (int k = 0; k < STRIPES; k++) {
        __atomic_store_n(&stripes[k].lock, 0, __ATOMIC_RELAXED);
        clear_locked(&stripes[k]);
    }
}

void vnpu_ptrmap_reset(void) {
    for (int k = 0; k < STRIPES; k++) {
        stripe_lock(&stripes[k]);
        clear_locked(&stripes[k]);
        stripe_unlock(&stripes[k]);
    }
}
