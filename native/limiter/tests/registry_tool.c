/*
 * registry_tool: the node agent's registry and region writes in C (test tooling, debugging aid; the
 * node agent itself uses vnpu-quota).
 *   registry_tool create PATH PHYS_ID              registry file, mode 0644
 *   registry_tool region REGION_PATH REGISTRY_DIR PHYS_ID WEIGHT CAP_PCT PRIO [MEM_MIB [POLICY]]
 *        quota region for one device (NPU PHYS_ID) with compute on (created if missing), memory
 *        unlimited or MEM_MIB (0 = unlimited), sharing policy fixed-share|elastic|best-effort (default:
 *        none, the weight and cap as given); prints key=. PHYS_ID may list several NPUs (0,1: device
 *        i of the region is NPU i of the list) and CAP_PCT one cap per device (100,10)
 *   registry_tool register PATH REGION_PATH [DEV_INDEX]
 *        registers the region's container (key, weight, cap, prio of device DEV_INDEX, default 0, and
 *        the region's sharing policy as entry flags)
 *        and records the region in the agents' member table (for the publisher)
 *   registry_tool unregister PATH KEY
 *   registry_tool agent PATH [PERIOD_MS]
 *        the publisher: publishes every registered container's usage every PERIOD_MS (default 10)
 *        until killed or its parent exits; prints "agent publishing" once it holds the publish lock
 *   registry_tool corrupt-major PATH                 (sets major to 99: "unknown version" tests)
 *   registry_tool dump PATH    one line per ACTIVE entry:
 *     entry=I key= weight= cap= prio= dev= flags= used_ppm= blocked_ppm= pub_busy_ns= policy=  followed, when
 *     its region (agents' member table) is readable, by
 *     launches= busy_ns= throttled_ns= share_ppm= cost_ns= samples= active_ns= blocked_ns= (from its region)
 *     and sym=<name> launches=N for each symbol used; last line: pub_count=N
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "compute.h"
#include "compute_registry.h"
#include "region.h"
#include "registry_agent.h"

#define SYM_NAME_(name) #name,
static const char *const sym_names[VNPU_SYM_COUNT] = {VNPU_LAUNCH_SYMBOLS(SYM_NAME_)};

/* A quota region (created if missing) whose logical device 0 is NPU phys_id with this compute config. */
static int policy_flag(const char *name, uint32_t *out)
{
    static const struct { const char *name; uint32_t flag; } policies[] = {
        {"fixed-share", VNPU_POLICY_FIXED_SHARE}, {"elastic", VNPU_POLICY_ELASTIC},
        {"best-effort", VNPU_POLICY_BEST_EFFORT}, {"none", 0}};
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (strcmp(name, policies[i].name) == 0) {
            *out = policies[i].flag;
            return 0;
        }
    fprintf(stderr, "registry_tool: POLICY = %s: not fixed-share, elastic, best-effort or none\n", name);
    return -1;
}

/* "a,b,c" -> up to max unsigned values; the count, 0 when malformed */
static unsigned parse_list(const char *what, const char *text, unsigned *out, unsigned max)
{
    unsigned n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno || v > 100000 || n == max || (*end != ',' && *end != 0)) {
            fprintf(stderr, "registry_tool: %s = %s: expected up to %u comma-separated numbers\n", what, text, max);
            return 0;
        }
        out[n++] = (unsigned)v;
        if (*end == 0)
            return n;
        p = end + 1;
    }
}

static int make_region(const char *path, const char *regdir, const char *phys_list, unsigned weight,
                       const char *cap_list, int prio, unsigned long long mem_mib, uint32_t share_policy)
{
    unsigned phys[VNPU_REGION_MAX_DEVICES], caps[VNPU_REGION_MAX_DEVICES];
    unsigned n = parse_list("PHYS_ID", phys_list, phys, VNPU_REGION_MAX_DEVICES);
    unsigned ncap = parse_list("CAP_PCT", cap_list, caps, VNPU_REGION_MAX_DEVICES);
    if (n == 0 || ncap == 0)
        return 2;
    if (ncap != 1 && ncap != n) {
        fprintf(stderr, "registry_tool: CAP_PCT = %s: one cap, or one per device of PHYS_ID = %s\n", cap_list, phys_list);
        return 2;
    }
    struct vnpu_init_config c;
    memset(&c, 0, sizeof c);
    c.device_count = n;
    for (unsigned d = 0; d < n; d++)
        c.mem_limit[d] = mem_mib * 1024ULL * 1024ULL;
    c.compute_weight = weight;
    c.compute_cap_pct = caps[0];
    c.priority_class = prio;
    c.policy_flags = VNPU_POLICY_MEM_ENFORCE | VNPU_POLICY_COMPUTE_ENFORCE | share_policy;
    struct vnpu_region r;
    char err[512];
    enum vnpu_open_status st = vnpu_region_open(&r, path, &c, err, sizeof err);
    if (st != VNPU_OPEN_OK) {
        fprintf(stderr, "registry_tool: %s\n", err);
        return 1;
    }
    /* what the node agent writes: registry directory, phy IDs and per-device caps, under the config seqlock */
    uint32_t *seq = (uint32_t *)(r.base + VNPU_H_CONFIG_SEQ);
    __atomic_add_fetch(seq, 1u, __ATOMIC_SEQ_CST);
    snprintf((char *)r.base + VNPU_H_REGISTRY_DIR, VNPU_REGION_PATH_BYTES, "%s", regdir);
    for (unsigned d = 0; d < n; d++) {
        __atomic_store_n((int32_t *)(r.base + vnpu_devcfg_off(d) + VNPU_DC_PHYS_ID), (int32_t)phys[d], __ATOMIC_SEQ_CST);
        __atomic_store_n((uint32_t *)(r.base + vnpu_devcfg_off(d) + VNPU_DC_COMPUTE_CAP_PCT), caps[ncap == 1 ? 0 : d],
                         __ATOMIC_SEQ_CST);
    }
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
    uint32_t policy = 0;
    int ok = rd(fd, VNPU_H_EPOCH, &m.key, 8) && rd(fd, o + VNPU_DC_COMPUTE_WEIGHT, &m.weight, 4)
             && rd(fd, o + VNPU_DC_COMPUTE_CAP_PCT, &m.cap_pct, 4) && rd(fd, o + VNPU_DC_PRIORITY_CLASS, &m.prio, 4)
             && rd(fd, VNPU_H_POLICY_FLAGS, &policy, 4);
    close(fd);
    if (!ok) {
        fprintf(stderr, "registry_tool: %s: cannot read the quota region\n", region);
        return 1;
    }
    const char *slash = strrchr(region, '/');
    char name[VNPU_REG_NAME_BYTES];
    snprintf(name, sizeof name, "%s", slash ? slash + 1 : region);
    m.dev_index = dev;
    /* what vnpu-quota's registration writes: the region's policy bit as the entry's */
    m.flags = (policy & VNPU_POLICY_FIXED_SHARE ? VNPU_REG_EF_FIXED_SHARE : 0)
              | (policy & VNPU_POLICY_ELASTIC ? VNPU_REG_EF_ELASTIC : 0)
              | (policy & VNPU_POLICY_BEST_EFFORT ? VNPU_REG_EF_BEST_EFFORT : 0);
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

static void dump_activity(const char *regpath, int entry, uint32_t dev)
{
    char af[1100];
    unsigned char m[VNPU_AGF_MEMBER_BYTES];
    int afd = vnpu_agent_file_path(regpath, af, sizeof af) == 0 ? open(af, O_RDONLY | O_CLOEXEC) : -1;
    int ok = afd >= 0 && rd(afd, (uint64_t)entry * VNPU_AGF_MEMBER_BYTES, m, sizeof m);
    if (afd >= 0)
        close(afd);
    m[VNPU_AGF_MEMBER_BYTES - 1] = 0;
    int fd = ok ? open((const char *)m + VNPU_AGF_PATH, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (fd < 0) {
        printf(" region=none\n");
        return;
    }
    uint64_t ds = vnpu_devstate_off(dev);
    uint64_t l = 0, b = 0, t = 0, c = 0, sm = 0, act = 0, blk = 0;
    uint32_t share = 0;
    rd(fd, ds + VNPU_DS_LAUNCHES, &l, 8);
    rd(fd, ds + VNPU_DS_BUSY_NS, &b, 8);
    rd(fd, ds + VNPU_DS_THROTTLED_NS, &t, 8);
    rd(fd, ds + VNPU_DS_SHARE_PPM, &share, 4);
    rd(fd, ds + VNPU_DS_COST_EMA_NS, &c, 8);
    rd(fd, ds + VNPU_DS_SAMPLES, &sm, 8);
    rd(fd, ds + VNPU_DS_LAST_LAUNCH_NS, &act, 8);
    rd(fd, ds + VNPU_DS_BLOCKED_NS, &blk, 8);
    printf(" launches=%llu busy_ns=%llu throttled_ns=%llu share_ppm=%u cost_ns=%llu samples=%llu active_ns=%llu"
           " blocked_ns=%llu\n",
           (unsigned long long)l, (unsigned long long)b, (unsigned long long)t, share, (unsigned long long)c,
           (unsigned long long)sm, (unsigned long long)act, (unsigned long long)blk);
    for (int s = 0; s < VNPU_SYM_COUNT; s++) {
        uint64_t n = 0;
        rd(fd, VNPU_H_SYMBOL_LAUNCHES + 8u * (unsigned)s, &n, 8);
        if (n)
            printf("sym=%s launches=%llu\n", sym_names[s], (unsigned long long)n);
    }
    close(fd);
}

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

static int run_agent(const char *path, uint32_t period_ms)
{
    /* a test's agent never outlives the test script that started it */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    struct vnpu_agent_publisher *p = vnpu_agent_publisher_open(path, period_ms, VNPU_REG_DEFAULT_PUB_WINDOW_MS);
    if (!p) {
        fprintf(stderr, "registry_tool: agent %s: %s\n", path, strerror(errno));
        return 1;
    }
    int said = 0;
    while (!stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int rc = vnpu_agent_publish(p, (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
        if (rc == 1 && !said) {
            printf("agent publishing\n");
            fflush(stdout);
            said = 1;
        }
        struct timespec d = {0, (long)period_ms * 1000000L};
        nanosleep(&d, NULL);
    }
    vnpu_agent_publisher_close(p);
    return 0;
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
    if (argc >= 8 && argc <= 10 && strcmp(argv[1], "region") == 0) {
        uint32_t share_policy = 0;
        if (argc == 10 && policy_flag(argv[9], &share_policy) != 0)
            return 2;
        return make_region(argv[2], argv[3], argv[4], (unsigned)atoi(argv[5]), argv[6], atoi(argv[7]), argc >= 9 ? strtoull(argv[8], NULL, 10) : 0, share_policy);
    }
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "register") == 0)
        return register_region(argv[2], argv[3], argc == 5 ? (unsigned)atoi(argv[4]) : 0u);
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "agent") == 0)
        return run_agent(argv[2], argc == 4 ? (uint32_t)atoi(argv[3]) : VNPU_REG_DEFAULT_PUB_PERIOD_MS);
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
        struct vnpu_reg_pub pub = {0, 0, 0};
        int n = vnpu_reg_read_peers(&r, peers, &pub);
        for (int i = 0; i < n; i++) {
            /* entry index of the peer (peers hold ACTIVE entries only, in entry order) */
            int entry = -1;
            for (int k = 0, seen = 0; k < (int)VNPU_REG_ENTRY_COUNT && entry < 0; k++) {
                uint32_t st = 0;
                uint64_t key = 0;
                rd(r.fd, VNPU_REG_ENTRIES_OFF + (uint64_t)k * VNPU_REG_ENTRY_BYTES + VNPU_RE_STATE, &st, 4);
                rd(r.fd, VNPU_REG_ENTRIES_OFF + (uint64_t)k * VNPU_REG_ENTRY_BYTES + VNPU_RE_KEY, &key, 8);
                if (st == VNPU_REG_ENTRY_ACTIVE && key == peers[i].key)
                    entry = k;
                (void)seen;
            }
            printf("entry=%d key=%llu weight=%u cap=%u prio=%d dev=%u flags=%u used_ppm=%u blocked_ppm=%u pub_busy_ns=%llu"
                   " policy=%u",
                   entry, (unsigned long long)peers[i].key, peers[i].weight, peers[i].cap_pct, (int)peers[i].prio,
                   peers[i].dev_index, peers[i].pub_flags, peers[i].used_ppm, peers[i].blocked_ppm,
                   (unsigned long long)peers[i].busy_ns, peers[i].policy);
            dump_activity(argv[2], entry, peers[i].dev_index);
        }
        printf("pub_count=%llu\n", (unsigned long long)pub.count);
        vnpu_reg_close(&r);
        return n < 0;
    }
    fprintf(stderr, "usage: registry_tool create PATH PHYS_ID | region REGION REGDIR PHYS WEIGHT CAP PRIO | "
                    "register PATH REGION [DEV] | unregister PATH KEY | agent PATH [PERIOD_MS] | corrupt-major PATH | dump PATH\n");
    return 2;
}
