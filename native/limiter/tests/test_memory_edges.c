/*
 * Memory accounting edge cases of issue 12, driven by test_memory_edges.sh with libvnpu.so preloaded
 * (quota 1 GiB per device). Each mode prints "<mode> ok" or the first mismatch and exits 1.
 *   reset        rtDeviceReset frees the process's device memory once the last reference goes (and
 *                the limiter releases its charges then, not before); rtDeviceResetForce at once
 *   hostphys     rtMallocPhysical of host memory (side 0) is not charged to the device quota
 *   undescribed  a device the region does not describe fails closed (207001), not unlimited
 *   alloc1       one 1 MiB allocation on device 0 (prints its return code)
 *   alloc DEV MIB   rtSetDevice(DEV) and one allocation; prints "alloc dev=DEV set=RC rc=RC"
 *   hold-slots REGION   (run without the preload) claims all 256 slots and holds them until stdin closes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../region.h"
#include "runtime/rt.h"

#define MIB (1024ULL * 1024ULL)

static int fails;

#define EXPECT(call, want)                                                                             \
    do {                                                                                               \
        rtError_t got_ = (call);                                                                       \
        if (got_ != (rtError_t)(want)) {                                                               \
            printf("%s:%d: %s = %d, expected %d\n", __FILE__, __LINE__, #call, (int)got_, (int)(want)); \
            fails++;                                                                                   \
        }                                                                                              \
    } while (0)

static void reset_mode(void)
{
    void *p = NULL, *q = NULL, *r = NULL;
    EXPECT(rtSetDevice(0), 0);
    EXPECT(rtMalloc(&p, 768 * MIB, RT_MEMORY_HBM, 0), 0);
    EXPECT(rtDeviceReset(0), 0); /* last reference: the runtime freed p, so must the limiter */
    EXPECT(rtSetDevice(0), 0);
    EXPECT(rtMalloc(&q, 768 * MIB, RT_MEMORY_HBM, 0), 0);
    EXPECT(rtFree(p), 107000); /* the runtime no longer knows it; nothing changes */
    EXPECT(rtSetDevice(0), 0);  /* two references now */
    EXPECT(rtDeviceReset(0), 0); /* one left: q still allocated and charged */
    EXPECT(rtMalloc(&r, 512 * MIB, RT_MEMORY_HBM, 0), 207001);
    EXPECT(rtDeviceResetForce(0), 0); /* everything freed at once */
    EXPECT(rtSetDevice(0), 0);
    EXPECT(rtMalloc(&r, 1024 * MIB, RT_MEMORY_HBM, 0), 0);
    EXPECT(rtFree(r), 0);
}

static void hostphys_mode(void)
{
    EXPECT(rtSetDevice(0), 0);
    rtDrvMemHandle h = NULL;
    rtDrvMemProp_t prop;
    memset(&prop, 0, sizeof prop);
    prop.side = 0; /* host */
    prop.devid = 0;
    EXPECT(rtMallocPhysical(&h, 2048 * MIB, &prop, 0), 0);
    EXPECT(rtFreePhysical(h), 0);
    prop.side = 1; /* device HBM: over the 1 GiB quota */
    EXPECT(rtMallocPhysical(&h, 2048 * MIB, &prop, 0), 207001);
}

static void undescribed_mode(void)
{
    void *p = NULL;
    EXPECT(rtSetDevice(1), 0); /* the region describes device 0 only */
    EXPECT(rtMalloc(&p, MIB, RT_MEMORY_HBM, 0), 207001);
    EXPECT(rtSetDevice(0), 0);
    EXPECT(rtMalloc(&p, MIB, RT_MEMORY_HBM, 0), 0);
}

static int hold_slots(const char *path)
{
    static struct vnpu_region r[VNPU_REGION_SLOT_COUNT];
    char err[512];
    for (unsigned i = 0; i < VNPU_REGION_SLOT_COUNT; i++) {
        if (vnpu_region_open(&r[i], path, NULL, err, sizeof err) != VNPU_OPEN_OK || vnpu_region_claim_slot(&r[i]) < 0) {
            printf("hold-slots: slot %u: %s\n", i, err);
            return 1;
        }
    }
    printf("holding\n");
    fflush(stdout);
    char b;
    while (read(0, &b, 1) > 0) {
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "hold-slots") == 0 && argc == 3)
        return hold_slots(argv[2]);
    if (strcmp(mode, "reset") == 0)
        reset_mode();
    else if (strcmp(mode, "hostphys") == 0)
        hostphys_mode();
    else if (strcmp(mode, "undescribed") == 0)
        undescribed_mode();
    else if (strcmp(mode, "alloc") == 0 && argc == 4) {
        void *p = NULL;
        int dev = atoi(argv[2]);
        rtError_t set = rtSetDevice(dev);
        rtError_t rc = rtMalloc(&p, strtoull(argv[3], NULL, 10) * MIB, RT_MEMORY_HBM, 0);
        printf("alloc dev=%d set=%d rc=%d\n", dev, (int)set, (int)rc);
        return 0;
    } else if (strcmp(mode, "alloc1") == 0) {
        void *p = NULL;
        rtSetDevice(0);
        printf("alloc1 rc=%d\n", (int)rtMalloc(&p, MIB, RT_MEMORY_HBM, 0));
        return 0;
    } else {
        fprintf(stderr, "usage: test_memory_edges reset|hostphys|undescribed|alloc1|hold-slots REGION\n");
        return 2;
    }
    if (fails)
        return 1;
    printf("%s ok\n", mode);
    return 0;
}
