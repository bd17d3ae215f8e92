/*
 * vnpu-registry: creates and prints compute registry files (test tooling and a debugging aid; the
 * node agent creates registries through vnpu-quota).
 *   registry_tool create PATH PHYS_ID
 *   registry_tool region REGION_PATH REGISTRY_DIR PHYS_ID WEIGHT CAP_PCT PRIO
 *                                        quota region for one device with compute on; prints key=
 *   registry_tool corrupt-major PATH     (sets major to 99: "unknown version" tests)
 *   registry_tool dump PATH              one line per ACTIVE entry:
 *     entry=I key= weight= cap= prio= launches= busy_ns= throttled_ns= share_ppm= cost_ns= samples= live=
 *     followed by sym=<name> launches=N for each symbol used
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"
#include "compute_registry.h"
#include "region.h"

#define SYM_NAME_(name) #name,
static const char *const sym_names[VNPU_SYM_COUNT] = {VNPU_LAUNCH_SYMBOLS(SYM_NAME_)};

/* A quota region (created if missing) whose logical device 0 is NPU phys_id with this compute config. */
static int make_region(const char *path, const char *regdir, int phys, unsigned weight, unsigned cap, int prio)
{
    struct vnpu_init_config c;
    memset(&c, 0, sizeof c);
    c.device_count = 1;
    c.compute_weight = weight;
    c.compute_cap_pct = cap;
    c.priority_class = prio;
    c.policy_flags = VNPU_POLICY_MEM_ENFORCE | VNPU_POLICY_COMPUTE_ENFORCE;
    struct vnpu_region r;
    char err[512];
    enum vnpu_open_status st = vnpu_region_open(&r, path, &c, err, sizeof err);
    if (st != VNPU_OPEN_OK) {
        fprintf(stderr, "registry_tool: %s\n", err);
        return 1;
    }
    /* what the node agent writes: registry directory and phy ID, under the config seqlock */
    uint32_t *seq = (uint32_t *)(r.base + VNPU_H_CONFIG_SEQ);
    __atomic_add_fetch(seq, 1u, __ATOMIC_SEQ_CST);
    snprintf((char *)r.base + VNPU_H_REGISTRY_DIR, VNPU_REGION_PATH_BYTES, "%s", regdir);
    __atomic_store_n((int32_t *)(r.base + vnpu_devcfg_off(0) + VNPU_DC_PHYS_ID), (int32_t)phys, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(seq, 1u, __ATOMIC_SEQ_CST);
    printf("key=%llu\n", (unsigned long long)vnpu_load64(&r, VNPU_H_EPOCH));
    vnpu_region_close(&r);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "create") == 0) {
        int rc = vnpu_reg_create(argv[2], (int32_t)atoi(argv[3]));
        if (rc != 0) {
            fprintf(stderr, "registry_tool: create %s: %s\n", argv[2], strerror(-rc));
            return 1;
        }
        return 0;
    }
    if (argc == 8 && strcmp(argv[1], "region") == 0)
        return make_region(argv[2], argv[3], atoi(argv[4]), (unsigned)atoi(argv[5]), (unsigned)atoi(argv[6]),
                           atoi(argv[7]));
    if (argc == 3 && strcmp(argv[1], "corrupt-major") == 0) {
        FILE *f = fopen(argv[2], "r+b");
        if (!f || fseek(f, VNPU_RH_MAJOR, SEEK_SET) != 0) {
            perror(argv[2]);
            return 1;
        }
        uint16_t major = 99;
        int ok = fwrite(&major, sizeof major, 1, f) == 1;
        fclose(f);
        return ok ? 0 : 1;
    }
    if (argc == 3 && strcmp(argv[1], "dump") == 0) {
        struct vnpu_reg r;
        int err = 0;
        enum vnpu_reg_status st = vnpu_reg_open(argv[2], &r, &err);
        if (st != VNPU_REG_OK) {
            fprintf(stderr, "registry_tool: %s: %s\n", argv[2], vnpu_reg_strerror(st));
            return 1;
        }
        for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
#define U64(off) (unsigned long long)__atomic_load_n((uint64_t *)vnpu_reg_field(&r, i, (off)), __ATOMIC_RELAXED)
#define U32(off) (unsigned)__atomic_load_n((uint32_t *)vnpu_reg_field(&r, i, (off)), __ATOMIC_RELAXED)
            if (U32(VNPU_RE_STATE) != VNPU_REG_ENTRY_ACTIVE)
                continue;
            printf("entry=%d key=%llu weight=%u cap=%u prio=%d launches=%llu busy_ns=%llu throttled_ns=%llu "
                   "share_ppm=%u cost_ns=%llu samples=%llu live=%d\n",
                   i, U64(VNPU_RE_KEY), U32(VNPU_RE_WEIGHT), U32(VNPU_RE_CAP_PCT), (int)U32(VNPU_RE_PRIORITY_CLASS),
                   U64(VNPU_RE_LAUNCHES), U64(VNPU_RE_BUSY_NS), U64(VNPU_RE_THROTTLED_NS), U32(VNPU_RE_SHARE_PPM),
                   U64(VNPU_RE_COST_NS), U64(VNPU_RE_SAMPLES), vnpu_reg_entry_live(&r, i));
            for (int s = 0; s < VNPU_SYM_COUNT; s++)
                if (U64(VNPU_RE_SYMBOL_LAUNCHES + 8u * (unsigned)s))
                    printf("sym=%s launches=%llu\n", sym_names[s],
                           U64(VNPU_RE_SYMBOL_LAUNCHES + 8u * (unsigned)s));
        }
        vnpu_reg_close(&r);
        return 0;
    }
    fprintf(stderr, "usage: registry_tool create PATH PHYS_ID | region REGION REGDIR PHYS WEIGHT CAP PRIO | "
                    "corrupt-major PATH | dump PATH\n");
    return 2;
}
