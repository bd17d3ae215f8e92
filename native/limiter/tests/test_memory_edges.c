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
 *   usage REGION  (run without the preload) prints "used=B consistent=0|1 limit=B peak=B" of device 0
 *   clone / glibc-clone  a child made by a raw clone(SIGCHLD) syscall / by glibc's clone() (no fork
 *                handler runs in either) allocates 512 MiB and exits: it had a slot of its own while
 *                it lived and the parent, holding 256 MiB, can then use the remaining 768 MiB
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* Sum of the slot charges on device 0 of the region at NPU_LOCAL_SHM_PATH held by pid (0: all). */
static uint64_t charged_to(pid_t pid)
{
    struct vnpu_region r;
    char err[512];
    if (vnpu_region_open(&r, getenv("NPU_LOCAL_SHM_PATH"), NULL, err, sizeof err) != VNPU_OPEN_OK) {
        printf("open region: %s\n", err);
        fails++;
        return 0;
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < VNPU_REGION_SLOT_COUNT; i++) {
        uint64_t o = vnpu_slot_off(i);
        if (vnpu_load32(&r, o + VNPU_S_STATE) == VNPU_SLOT_FREE) continue;
        if (pid == 0 || (pid_t)(int32_t)vnpu_load32(&r, o + VNPU_S_PID) == pid) sum += vnpu_load64(&r, o + VNPU_S_USED_BYTES);
    }
    vnpu_region_close(&r);
    return sum;
}

static int to_parent[2], to_child[2];

static int clone_child_body(void *arg)
{
    (void)arg;
    void *p = NULL;
    char b = 'x';
    rtError_t set = rtSetDevice(0);
    rtError_t rc = rtMalloc(&p, 512 * MIB, RT_MEMORY_HBM, 0);
    if (set != 0 || rc != 0) b = 'f';
    if (write(to_parent[1], &b, 1) != 1) _exit(3);
    if (read(to_child[0], &b, 1) < 0) _exit(4); /* until the parent looked at the region */
    _exit(b == 'f' ? 1 : 0);
}

static void clone_mode(int raw)
{
    void *p = NULL, *q = NULL;
    EXPECT(rtSetDevice(0), 0);
    EXPECT(rtMalloc(&p, 256 * MIB, RT_MEMORY_HBM, 0), 0);
    if (pipe(to_parent) != 0 || pipe(to_child) != 0) {
        printf("pipe failed\n");
        fails++;
        return;
    }
    pid_t kid;
    static char stack[256 * 1024] __attribute__((aligned(16)));
    if (raw) {
        /* fork semantics without fork(): the child continues here on a copy of this stack */
        kid = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
        if (kid == 0)
            clone_child_body(NULL);
    } else {
        kid = clone(clone_child_body, stack + sizeof stack, SIGCHLD, NULL);
    }
    if (kid < 0) {
        printf("clone failed\n");
        fails++;
        return;
    }
    char b = 0;
    if (read(to_parent[0], &b, 1) != 1 || b != 'x') {
        printf("child: allocation failed\n");
        fails++;
    }
    uint64_t mine = charged_to(getpid()), its = charged_to(kid);
    if (mine != 256 * MIB || its != 512 * MIB) {
        printf("while the child lives: parent's slot %llu MiB (expected 256), child's %llu MiB (expected 512)\n",
               (unsigned long long)(mine / MIB), (unsigned long long)(its / MIB));
        fails++;
    }
    if (write(to_child[1], &b, 1) != 1)
        fails++;
    int status = 0;
    waitpid(kid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("child status %d\n", status);
        fails++;
    }
    EXPECT(rtMalloc(&q, 768 * MIB, RT_MEMORY_HBM, 0), 0); /* the child's 512 MiB are reclaimed, not ours */
    EXPECT(rtMalloc(&q, 1, RT_MEMORY_HBM, 0), 207001);
    if (charged_to(0) != 1024 * MIB) {
        printf("after the child: %llu MiB charged, expected 1024\n", (unsigned long long)(charged_to(0) / MIB));
        fails++;
    }
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

static int usage_of(const char *path)
{
    struct vnpu_region r;
    char err[512];
    if (vnpu_region_open(&r, path, NULL, err, sizeof err) != VNPU_OPEN_OK) {
        printf("usage: %s\n", err);
        return 1;
    }
    uint64_t used = 0;
    int consistent = vnpu_region_used_snapshot(&r, 0, &used);
    printf("used=%llu consistent=%d limit=%llu peak=%llu\n", (unsigned long long)used, consistent,
           (unsigned long long)vnpu_region_limit(&r, 0),
           (unsigned long long)vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_PEAK_BYTES));
    vnpu_region_close(&r);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "usage") == 0 && argc == 3)
        return usage_of(argv[2]);
    if (strcmp(mode, "hold-slots") == 0 && argc == 3)
        return hold_slots(argv[2]);
    if (strcmp(mode, "reset") == 0)
        reset_mode();
    else if (strcmp(mode, "hostphys") == 0)
        hostphys_mode();
    else if (strcmp(mode, "undescribed") == 0)
        undescribed_mode();
    else if (strcmp(mode, "clone") == 0)
        clone_mode(1);
    else if (strcmp(mode, "glibc-clone") == 0)
        clone_mode(0);
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
        fprintf(stderr, "usage: test_memory_edges reset|hostphys|undescribed|clone|glibc-clone|alloc1|hold-slots REGION\n");
        return 2;
    }
    if (fails)
        return 1;
    printf("%s ok\n", mode);
    return 0;
}
