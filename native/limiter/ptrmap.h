/*
 * Process-local table: device pointer (or physical handle) -> (device, bytes) charged for it.
 * Lock-striped open addressing; storage comes from .bss and mmap, never from malloc, so the table works in
 * any allocator state (including a fork child) and never recurses into hooked code.
 * Critical sections are a few probes long; growth doubles one stripe under its own lock.
 */
#ifndef VNPU_LIMITER_PTRMAP_H
#define VNPU_LIMITER_PTRMAP_H

#include <stdint.h>

struct vnpu_ptr_entry {
    uintptr_t key; /* 0 = empty */
    uint64_t bytes;
    uint32_t dev;
    uint32_t kind;
};

/* Entries are packed into 16 bytes: bytes in 56 bits, device and kind in 4 bits each. The largest
 * recordable size; callers refuse a larger allocation before it is made (hooks.c charge_begin). */
#define VNPU_PTRMAP_MAX_BYTES ((1ull << 56) - 1)
#define VNPU_PTRMAP_MAX_DEV 15u
#define VNPU_PTRMAP_MAX_KIND 15u

/* Inserts; returns 0 (new key), 1 (an entry with that key was replaced and copied to *replaced when
 * not NULL), or -1 if memory for growth could not be mapped or the entry cannot be stored (bytes
 * above VNPU_PTRMAP_MAX_BYTES, dev or kind above their maximum) (nothing stored). */
int vnpu_ptrmap_put(uintptr_t key, uint32_t dev, uint64_t bytes, uint32_t kind, struct vnpu_ptr_entry *replaced);
/* Removes key; returns 1 and fills *out if it was present, 0 otherwise. */
int vnpu_ptrmap_take(uintptr_t key, struct vnpu_ptr_entry *out);
/* Removes every entry of device dev (the runtime freed them all: device reset); returns their bytes
 * and, when entries is not NULL, their count. */
uint64_t vnpu_ptrmap_drop_device(uint32_t dev, uint64_t *entries);
/* Number of entries (tests). */
uint64_t vnpu_ptrmap_size(void);
/* fork handlers: prepare locks every stripe, parent unlocks, child empties (the child owns nothing). */
void vnpu_ptrmap_atfork_prepare(void);
void vnpu_ptrmap_atfork_parent(void);
void vnpu_ptrmap_atfork_child(void);
/* the same for a raw clone() child (fork.h): mutexes re-initialised, table emptied */
void vnpu_ptrmap_clone_child(void);
/* Drops every entry and returns the memory (tests, leak checks). */
void vnpu_ptrmap_reset(void);

#endif
