/*
 * registry_tool: the node agent's registry and region writes in C (test tooling, debugging aid; the
 * node agent itself uses vnpu-quota).
 *   registry_tool create PATH PHYS_ID              registry file, mode 0644
 *   registry_tool region REGION_PATH REGISTRY_DIR PHYS_ID WEIGHT CAP_PCT PRIO [MEM_MIB]
 *        quota region for one device (NPU PHYS_ID) with compute on (created if missing), memory
 *        unlimited or MEM_MIB; prints key=
 *   registry_tool register PATH REGION_PATH [DEV_INDEX]
 *        registers the region's container (key, weight, cap, prio of device DEV_INDEX, default 0)
 *        and hard-links the region as its activity link
 *   registry_tool unregister PATH KEY
 *   registry_tool corrupt-major PATH                 (sets major to 99: "unknown version" tests)
 *   registry_tool dump PATH    one line per ACTIVE entry:
 *     entry=I key= weight= cap= prio= dev=   followed, when its activity link is readable, by
 *     launches= busy_ns= throttled_ns= share_ppm= cost_ns= samples= active_ns=  (from its region)
 *     and sym=<name> launches=N for each symbol used
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compute.h"
#include "compute_registry.h"
#include "region.h"
#include "registry_agent.h"

#define SYM_NAME_(name) #name,
static const char *const sym_names[VNPU_SYM_COUNT] = {VNPU_LAUNCH_SYMBOLS(SYM_NAME_)};

/* A quota region (created if missing) whose logical device 0 is NPU phys_id with this compute config. */
static int make_region(const char *path, const char *regdir, int phys, unsigned weight, unsigned cap, int prio,
                       unsigned long long mem_mib)
{
    struct vnpu_init_config c;
    memset(&c, 0, sizeof c);
    c.device_count = 1;
    c.mem_limit[0] = mem_mib * 1024ULL * 1024ULL;
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

static int rd(int fd, uint64_t off, void *v, size_t n) { return pread(fd, v, n, (off_t)off) == (ssize_t)n; }

static int register_region(const char *regpath, const char *region, unsigned dev)
{
    int fd = open(region, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        perror(region);
        return 1;
    }
    struct vnpu_agent_member m;
    memset(&m, 0, sizeof m);
    uint64_t o = vnpu_devcfg_off(dev);
    int ok = rd(fd, VNPU_H_EPOCH, &m.key, 8) && rd(fd, o + VNPU_DC_COMPUTE_WEIGHT, &m.weight, 4)
             && rd(fd, o + VNPU_DC_COMPUTE_CAP_PCT, &m.cap_pct, 4) && rd(fd, o + VNPU_DC_PRIORITY_CLASS, &m.prio, 4);
    close(fd);
    if (!ok) {
        fprintf(stderr, "registry_tool: %s: cannot read the quota region\n", region);
        return 1;
    }
    const char *slash = strrchr(region, '/');
    char name[VNPU_REG_NAME_BYTES];
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : region);
    m.dev_index = dev;
    m.name = name;
    m.region = region;
    int rc = vnpu_agent_register(regpath, &m);
    if (rc < 0) {
        fprintf(stderr, "registry_tool: register %s: %s\n", regpath, strerror(-rc));
        return 1;
    }
    printf("entry=%d key=%llu\n", rc, (unsigned long long)m.key);
    return 0;
}

static void dump_activity(const char *regpath, int32_t phys, uint64_t key, uint32_t dev)
{
    char lp[700];
    const char *slash = strrchr(regpath, '/');
    snprintf(lp, sizeof lp, "%.*s/" VNPU_REG_ACTIVITY_FMT, slash ? (int)(slash - regpath) : 1, slash ? regpath : ".",
             (int)phys, (unsigned long long)key);
    int fd = open(lp, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        printf(" link=none\n");
        return;
    }
    uint64_t ds = vnpu_devstate_off(dev);
    uint64_t l = 0, b = 0, t = 0, c = 0, sm = 0, act = 0;
    uint32_t share = 0;
    rd(fd, ds + VNPU_DS_LAUNCHES, &l, 8);
    rd(fd, ds + VNPU_DS_BUSY_NS, &b, 8);
    rd(fd, ds + VNPU_DS_THROTTLED_NS, &t, 8);
    rd(fd, ds + VNPU_DS_SHARE_PPM, &share, 4);
    rd(fd, ds + VNPU_DS_COST_EMA_NS, &c, 8);
    rd(fd, ds + VNPU_DS_SAMPLES, &sm, 8);
    rd(fd, ds + VNPU_DS_LAST_LAUNCH_NS, &act, 8);
    printf(" launches=%llu busy_ns=%llu throttled_ns=%llu share_ppm=%u cost_ns=%llu samples=%llu active_ns=%llu\n",
           (unsigned long long)l, (unsigned long long)b, (unsigned long long)t, share, (unsigned long long)c,
           (unsigned long long)sm, (unsigned long long)act);
    for (int s = 0; s < VNPU_SYM_COUNT; s++) {
        uint64_t n = 0;
        rd(fd, VNPU_H_SYMBOL_LAUNCHES + 8u * (unsigned)s, &n, 8);
        if (n)
            printf("sym=%s launches=%llu\n", sym_names[s], (unsigned long long)n);
    }
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "create") == 0) {
        int rc = vnpu_agent_create(argv[2], (int32_t)atoi(argv[3]));
        if (rc != 0) {
            fprintf(stderr, "registry_tool: create %s: %s\n", argv[2], strerror(-rc));
            return 1;
        }
        return 0;
    }
    if ((argc == 8 || argc == 9) && strcmp(argv[1], "region") == 0)
        return make_region(argv[2], argv[3], atoi(argv[4]), (unsigned)atoi(argv[5]), (unsigned)atoi(argv[6]),
                           atoi(argv[7]), argc == 9 ? strtoull(argv[8], NULL, 10) : 0);
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "register") == 0)
        return register_region(argv[2], argv[3], argc == 5 ? (unsigned)atoi(argv[4]) : 0u);
    if (argc == 4 && strcmp(argv[1], "unregister") == 0) {
        int rc = vnpu_agent_unregister(argv[2], strtoull(argv[3], NULL, 10));
        if (rc < 0) {
            fprintf(stderr, "registry_tool: unregister %s: %s\n", argv[2], strerror(-rc));
            return 1;
        }
        return rc == 1 ? 0 : 3;
    }
    if (argc == 3 && strcmp(argv[1], "corrupt-major") == 0) {
        int fd = open(argv[2], O_RDWR | O_CLOEXEC);
        uint16_t major = 99;
        int ok = fd >= 0 && pwrite(fd, &major, sizeof major, VNPU_RH_MAJOR) == (ssize_t)sizeof major;
        if (fd >= 0)
            close(fd);
        if (!ok)
            perror(argv[2]);
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
        struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
        int n = vnpu_reg_read_peers(&r, peers);
        for (int i = 0; i < n; i++) {
            printf("entry=%d key=%llu weight=%u cap=%u prio=%d dev=%u", i, (unsigned long long)peers[i].key,
                   peers[i].weight, peers[i].cap_pct, (int)peers[i].prio, peers[i].dev_index);
            dump_activity(argv[2], r.phys_id, peers[i].key, peers[i].dev_index);
        }
        vnpu_reg_close(&r);
        return n < 0;
    }
    fprintf(stderr, "usage: registry_tool create PATH PHYS_ID | region REGION REGDIR PHYS WEIGHT CAP PRIO | "
                    "register PATH REGION [DEV] | unregister PATH KEY | corrupt-major PATH | dump PATH\n");
    return 2;
}
