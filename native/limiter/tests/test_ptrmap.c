/* Pointer table: insert/replace/take, growth, backward-shift deletion, concurrent stripes. */
#include <pthread.h>
#include <stdint.h>

#include "../ptrmap.h"
#include "check.h"

#define N 200000

static void *worker(void *arg) {
    uintptr_t base = (uintptr_t)arg;
    for (uintptr_t i = 1; i <= 20000; i++) CHECK(vnpu_ptrmap_put(base + i * 64, 1, i, 0, NULL) == 0);
    for (uintptr_t i = 1; i <= 20000; i += 2) {
        struct vnpu_ptr_entry e;
        CHECK(vnpu_ptrmap_take(base + i * 64, &e) == 1);
        CHECK_EQ_U64(e.bytes, i);
    }
    return NULL;
}

int main(void) {
    struct vnpu_ptr_entry e;
    CHECK(vnpu_ptrmap_take(0x1000, &e) == 0);
    /* dense keys like a device allocator returns (same low bits), many growths */
    for (uint64_t i = 1; i <= N; i++) CHECK(vnpu_ptrmap_put(0x100000000ull + i * 512, (uint32_t)(i % 16), i * 3, 7, NULL) == 0);
    CHECK_EQ_U64(vnpu_ptrmap_size(), N);
    CHECK(vnpu_ptrmap_put(0x100000000ull + 512, 2, 99, 1, &e) == 1); /* replace */
    CHECK_EQ_U64(e.bytes, 3);
    CHECK_EQ_U64(e.dev, 1);
    CHECK_EQ_U64(vnpu_ptrmap_size(), N);
    CHECK(vnpu_ptrmap_take(0x100000000ull + 512, &e) == 1);
    CHECK_EQ_U64(e.bytes, 99);
    CHECK_EQ_U64(e.dev, 2);
    /* delete every third key, then every remaining key must still be found with its value */
    for (uint64_t i = 3; i <= N; i += 3) CHECK(vnpu_ptrmap_take(0x100000000ull + i * 512, &e) == 1);
    for (uint64_t i = 2; i <= N; i++) {
        int present = vnpu_ptrmap_take(0x100000000ull + i * 512, &e);
        CHECK(present == (i % 3 != 0));
        if (present) {
            CHECK_EQ_U64(e.bytes, i * 3);
            CHECK_EQ_U64(e.dev, i % 16);
            CHECK_EQ_U64(e.kind, 7);
        }
    }
    CHECK_EQ_U64(vnpu_ptrmap_size(), 0);
    /* 4 threads on disjoint key ranges */
    pthread_t t[4];
    for (int k = 0; k < 4; k++) pthread_create(&t[k], NULL, worker, (void *)(uintptr_t)((uintptr_t)(k + 1) << 36));
    for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
    CHECK_EQ_U64(vnpu_ptrmap_size(), 4 * 10000);
    vnpu_ptrmap_reset();
    CHECK_EQ_U64(vnpu_ptrmap_size(), 0);
    /* entries are packed (bytes in 56 bits, device and kind in 4 each): the largest packable values
     * come back whole; anything wider is not stored (the hook then does not charge it) */
    CHECK(vnpu_ptrmap_put(0x7000, 15, (1ull << 56) - 1, 15, NULL) == 0);
    CHECK(vnpu_ptrmap_take(0x7000, &e) == 1);
    CHECK_EQ_U64(e.bytes, (1ull << 56) - 1);
    CHECK_EQ_U64(e.dev, 15);
    CHECK_EQ_U64(e.kind, 15);
    CHECK(vnpu_ptrmap_put(0x7000, 0, 1ull << 56, 0, NULL) == -1);
    CHECK(vnpu_ptrmap_put(0x7000, 16, 1, 0, NULL) == -1);
    CHECK(vnpu_ptrmap_put(0x7000, 0, 1, 16, NULL) == -1);
    CHECK(vnpu_ptrmap_take(0x7000, &e) == 0);
    CHECK_EQ_U64(vnpu_ptrmap_size(), 0);
    /* after a reset the first tables are used again: stale entries from before must be gone */
    for (uint64_t i = 1; i <= 40; i++) CHECK(vnpu_ptrmap_put(0x200000000ull + i * 512, 0, i, 0, NULL) == 0);
    vnpu_ptrmap_reset();
    for (uint64_t i = 1; i <= 40; i++) CHECK(vnpu_ptrmap_take(0x200000000ull + i * 512, &e) == 0);
    printf("test_ptrmap: ok\n");
    return 0;
}
