/*
 * The limiter's read-only view of the compute registry (issue 12, threat model of
 * docs/compute-registry.md): header validation; a registry writable by group/others, a FIFO or a
 * symlink at its path are refused without hanging; every entry field is range-checked (a hostile
 * priority INT32_MIN or weight 0xFFFFFFFF cannot skew the share computation); a registry truncated
 * under the reader never raises SIGBUS and leaves the container alone with its own parameters; the
 * container's own weight/cap/priority always come from its own configuration; a neighbour is busy only
 * through its activity link (no link: busy; stale or shrunk: idle).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "compute_registry.h"
#include "registry_agent.h"
#include "vnpu_region.h"

static char dir[512];

static void path_of(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

static int64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void poke(const char *p, uint64_t off, const void *v, size_t n)
{
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, v, n, (off_t)off) == (ssize_t)n);
    close(fd);
}

static enum vnpu_reg_status open_status(const char *p)
{
    struct vnpu_reg r;
    int err;
    enum vnpu_reg_status st = vnpu_reg_open(p, &r, &err);
    if (st == VNPU_REG_OK)
        vnpu_reg_close(&r);
    return st;
}

static void fresh(const char *p)
{
    unlink(p);
    CHECK(vnpu_agent_create(p, 0) == 0);
}

static void test_validation(void)
{
    char p[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0644);
    CHECK(open_status(p) == VNPU_REG_OK);
    uint16_t major = 99;
    poke(p, VNPU_RH_MAJOR, &major, 2);
    CHECK(open_status(p) == VNPU_REG_BAD_MAJOR);
    fresh(p);
    uint64_t magic = 1;
    poke(p, VNPU_RH_MAGIC, &magic, 8);
    CHECK(open_status(p) == VNPU_REG_BAD_MAGIC);
    fresh(p);
    uint32_t bytes = 64;
    poke(p, VNPU_RH_ENTRY_BYTES, &bytes, 4);
    CHECK(open_status(p) == VNPU_REG_BAD_GEOMETRY);
    fresh(p);
    CHECK(truncate(p, VNPU_REG_FILE_BYTES - 1) == 0);
    CHECK(open_status(p) == VNPU_REG_TOO_SMALL);
    fresh(p);
    uint32_t init = VNPU_REG_INIT_INITIALISING;
    poke(p, VNPU_RH_INIT_STATE, &init, 4);
    CHECK(open_status(p) == VNPU_REG_NOT_READY);
    /* a registry a tenant could have written is refused */
    fresh(p);
    CHECK(chmod(p, 0666) == 0);
    CHECK(open_status(p) == VNPU_REG_WRITABLE);
    /* a FIFO or a symlink at the path: refused at once, never blocking */
    char f[600];
    path_of(f, sizeof f, "npu1.reg");
    CHECK(mkfifo(f, 0644) == 0);
    CHECK(open_status(f) == VNPU_REG_IO);
    unlink(f);
    fresh(p);
    CHECK(symlink(p, f) == 0);
    CHECK(open_status(f) == VNPU_REG_IO);
    unlink(f);
    path_of(f, sizeof f, "absent.reg");
    CHECK(open_status(f) == VNPU_REG_MISSING);
}

static void member(struct vnpu_agent_member *m, uint64_t key, uint32_t w, uint32_t cap, int32_t prio, const char *region)
{
    memset(m, 0, sizeof *m);
    m->key = key;
    m->weight = w;
    m->cap_pct = cap;
    m->prio = prio;
    m->name = "c";
    m->region = region;
}

/* a stand-in quota region: only the activity word of device 0 matters here */
static void make_region(const char *p, uint64_t activity)
{
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, VNPU_REGION_FILE_BYTES) == 0);
    CHECK(pwrite(fd, &activity, 8, VNPU_DEVSTATE_OFF + VNPU_DS_LAST_LAUNCH_NS) == 8);
    close(fd);
}

static void test_range_checks_and_own_parameters(void)
{
    char p[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    struct vnpu_agent_member m;
    member(&m, 11, 100, 0, VNPU_REG_PRIO_NORMAL, NULL);
    int e11 = vnpu_agent_register(p, &m);
    member(&m, 22, 300, 0, VNPU_REG_PRIO_NORMAL, NULL);
    int e22 = vnpu_agent_register(p, &m);
    CHECK(e11 >= 0 && e22 >= 0 && e11 != e22);
    /* a hostile (or corrupt) entry: priority INT32_MIN, weight 2^32-1, cap 1000 */
    uint64_t o = VNPU_REG_ENTRIES_OFF + (uint64_t)e22 * VNPU_REG_ENTRY_BYTES;
    int32_t prio = INT32_MIN;
    uint32_t w = 0xFFFFFFFFu, cap = 1000, dev = 99;
    poke(p, o + VNPU_RE_PRIORITY_CLASS, &prio, 4);
    poke(p, o + VNPU_RE_WEIGHT, &w, 4);
    poke(p, o + VNPU_RE_CAP_PCT, &cap, 4);
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers), 2);
    for (int i = 0; i < 2; i++)
        if (peers[i].key == 22) {
            CHECK_EQ_U64(peers[i].weight, 10000);
            CHECK_EQ_U64(peers[i].cap_pct, 100);
            CHECK(peers[i].prio == VNPU_REG_PRIO_NORMAL);
        }
    poke(p, o + VNPU_RE_DEVICE_INDEX, &dev, 4); /* out of range: the entry is ignored */
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers), 1);
    /* self (key 11) is registered with weight 100, but its own region says 300 and cap 20: its own
     * configuration wins; the registry's copy of itself is never used */
    struct vnpu_reg_self self = {11, 300, 20, VNPU_REG_PRIO_NORMAL};
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    int n = 0;
    int s = vnpu_reg_scan(&r, &self, mono(), in, &n);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(s, 0);
    CHECK_EQ_U64(in[s].weight, 300);
    CHECK_EQ_U64(in[s].cap_pct, 20);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 200000);
    vnpu_reg_close(&r);
}

static void test_truncated_registry_never_faults(void)
{
    char p[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    struct vnpu_agent_member m;
    member(&m, 33, 1, 0, VNPU_REG_PRIO_NORMAL, NULL); /* no activity link: counts as busy */
    CHECK(vnpu_agent_register(p, &m) >= 0);
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_self self = {44, 3, 0, VNPU_REG_PRIO_NORMAL};
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    int n = 0;
    int s = vnpu_reg_scan(&r, &self, mono(), in, &n);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 750000);
    CHECK(truncate(p, 0) == 0); /* what a tenant with write access would do: no SIGBUS, self alone */
    CHECK(vnpu_reg_read_peers(&r, (struct vnpu_reg_peer[VNPU_REG_ENTRY_COUNT]){0}) == -1);
    s = vnpu_reg_scan(&r, &self, mono(), in, &n);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 1000000);
    vnpu_reg_close(&r);
}

static void test_activity_links(void)
{
    char p[600], region[600], lp[700];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    path_of(region, sizeof region, "neighbour.region");
    int64_t now = mono();
    make_region(region, (uint64_t)now);
    struct vnpu_agent_member m;
    member(&m, 55, 1, 0, VNPU_REG_PRIO_NORMAL, region);
    CHECK(vnpu_agent_register(p, &m) >= 0);
    snprintf(lp, sizeof lp, "%s/" VNPU_REG_ACTIVITY_FMT, dir, 0, 55ULL);
    struct stat a, b;
    CHECK(stat(lp, &a) == 0 && stat(region, &b) == 0 && a.st_ino == b.st_ino); /* a hard link */
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_self self = {66, 3, 0, VNPU_REG_PRIO_NORMAL};
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    int n = 0;
    int s = vnpu_reg_scan(&r, &self, now + 1000000, in, &n);
    CHECK(in[0].busy == 1);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 750000);
    /* stale activity (beyond the 200 ms window): idle, self gets the whole device */
    s = vnpu_reg_scan(&r, &self, now + 300000000LL, in, &n);
    CHECK(in[0].busy == 0);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 1000000);
    /* the neighbour shrinks its own region: idle, no fault */
    CHECK(truncate(region, 0) == 0);
    s = vnpu_reg_scan(&r, &self, now + 1000000, in, &n);
    CHECK(in[0].busy == 0);
    /* unregistered: gone from the scan and the link removed */
    CHECK(vnpu_agent_unregister(p, 55) == 1);
    CHECK(access(lp, F_OK) != 0 && errno == ENOENT);
    s = vnpu_reg_scan(&r, &self, now, in, &n);
    CHECK_EQ_U64(n, 1);
    vnpu_reg_close(&r);
}

int main(void)
{
    const char *t = getenv("VNPU_TEST_TMP");
    snprintf(dir, sizeof dir, "%s", t && *t ? t : "/tmp");
    test_validation();
    test_range_checks_and_own_parameters();
    test_truncated_registry_never_faults();
    test_activity_links();
    printf("test_compute_registry: ok\n");
    return 0;
}
