/*
 * The limiter's read-only view of the compute registry (issues 12 and 23, threat model of
 * docs/compute-registry.md): header validation; a registry writable by group/others, a FIFO or a
 * symlink at its path are refused without hanging; every entry field is range-checked (a hostile
 * priority INT32_MIN or weight 0xFFFFFFFF cannot skew the share computation); a registry truncated
 * under the reader never raises SIGBUS and leaves the container alone with its own parameters; the
 * container's own weight/cap/priority always come from its own configuration. Neighbours' usage comes
 * only from the agent's publication: used device time + headroom while fresh, idle when inactive,
 * weighted share when saturated, unknown or stale (agent gone). The C agent's publisher opens regions
 * non-blocking: a FIFO, a symlink, a replaced or wrong-sized file, a file lease (as root) is an error
 * for that one region, never a stall; read locks and leases on the registry delay nobody.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers, NULL), 2);
    for (int i = 0; i < 2; i++)
        if (peers[i].key == 22) {
            CHECK_EQ_U64(peers[i].weight, 10000);
            CHECK_EQ_U64(peers[i].cap_pct, 100);
            CHECK(peers[i].prio == VNPU_REG_PRIO_NORMAL);
        }
    poke(p, o + VNPU_RE_DEVICE_INDEX, &dev, 4); /* out of range: the entry is ignored */
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers, NULL), 1);
    /* self (key 11) is registered with weight 100, but its own region says 300 and cap 20: its own
     * configuration wins; the registry's copy of itself is never used */
    struct vnpu_reg_self self = {11, 300, 20, VNPU_REG_PRIO_NORMAL, VNPU_SHARE_AS_GIVEN};
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
    member(&m, 33, 1, 0, VNPU_REG_PRIO_NORMAL, NULL); /* never published: counts at its weighted share */
    CHECK(vnpu_agent_register(p, &m) >= 0);
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_self self = {44, 3, 0, VNPU_REG_PRIO_NORMAL, VNPU_SHARE_AS_GIVEN};
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    int n = 0;
    int s = vnpu_reg_scan(&r, &self, mono(), in, &n);
    CHECK_EQ_U64(n, 2);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 750000);
    CHECK(truncate(p, 0) == 0); /* what a tenant with write access would do: no SIGBUS, self alone */
    CHECK(vnpu_reg_read_peers(&r, (struct vnpu_reg_peer[VNPU_REG_ENTRY_COUNT]){0}, NULL) == -1);
    s = vnpu_reg_scan(&r, &self, mono(), in, &n);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(vnpu_share_ppm(in, n, s), 1000000);
    vnpu_reg_close(&r);
}

/* a stand-in quota region: the compute words of device 0 the publisher reads */
struct counters {
    uint64_t busy, blocked, act;
};
static void set_counters(const char *p, const struct counters *c)
{
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, &c->busy, 8, VNPU_DEVSTATE_OFF + VNPU_DS_BUSY_NS) == 8);
    CHECK(pwrite(fd, &c->blocked, 8, VNPU_DEVSTATE_OFF + VNPU_DS_BLOCKED_NS) == 8);
    CHECK(pwrite(fd, &c->act, 8, VNPU_DEVSTATE_OFF + VNPU_DS_LAST_LAUNCH_NS) == 8);
    close(fd);
}

static int64_t scan_share(struct vnpu_reg *r, const struct vnpu_reg_self *self, int64_t now, struct vnpu_share_input *in)
{
    int n = 0;
    int s = vnpu_reg_scan(r, self, now, in, &n);
    return vnpu_share_ppm(in, n, s);
}

#define MS 1000000LL

static void test_publication(void)
{
    char p[600], region[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    path_of(region, sizeof region, "neighbour.region");
    make_region(region, 0);
    struct vnpu_agent_member m;
    member(&m, 55, 1, 0, VNPU_REG_PRIO_NORMAL, region); /* the light neighbour, weight 1 */
    CHECK(vnpu_agent_register(p, &m) >= 0);
    /* nothing of the neighbour lies in the registry directory: no link, no copy of its region */
    struct stat st;
    char lp[700];
    snprintf(lp, sizeof lp, "%s/npu0-%016llx.act", dir, 55ULL);
    CHECK(lstat(lp, &st) != 0 && errno == ENOENT);
    struct vnpu_agent_publisher *pub = vnpu_agent_publisher_open(p, 10, 100);
    CHECK(pub != NULL);
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_self self = {66, 3, 0, VNPU_REG_PRIO_NORMAL, VNPU_SHARE_AS_GIVEN};
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    int64_t t = 1000 * MS, rt = mono();
    /* before any publication: stale, the neighbour counts at its weighted share */
    CHECK_EQ_U64(scan_share(&r, &self, rt, in), 750000);
    struct counters c = {0, 0, 1};
    set_counters(region, &c);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t), 1);
    /* one sample: usage unknown, weighted share */
    CHECK_EQ_U64(scan_share(&r, &self, rt += MS, in), 750000);
    /* 10 ms of device time in 100 ms: used 10 %, active -> it gets 12 %, self the rest */
    c.busy += 10 * MS;
    c.act += 50 * MS;
    set_counters(region, &c);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 100 * MS), 1);
    /* ... but it just woke up (first seen active): at its weighted share for one window and two
     * periods (120 ms), so whoever borrowed its idle time gives it back at once */
    CHECK_EQ_U64(scan_share(&r, &self, rt += MS, in), 750000);
    CHECK(vnpu_reg_fresh(&r, rt));
    CHECK(in[0].busy == 1 && in[0].demand_ppm == 0);
    CHECK_EQ_U64(scan_share(&r, &self, rt += 119 * MS, in), 750000);
    CHECK_EQ_U64(scan_share(&r, &self, rt += 1 * MS, in), 1000000 - vnpu_demand_ppm(100000));
    CHECK(in[0].busy == 1 && in[0].demand_ppm == vnpu_demand_ppm(100000));
    /* the agent is gone: once the publication has not advanced for the stale time, the neighbour
     * counts at its weighted share again (never fail-open past it, never starve it) */
    CHECK_EQ_U64(scan_share(&r, &self, rt += 70 * MS, in), 1000000 - vnpu_demand_ppm(100000));
    CHECK_EQ_U64(scan_share(&r, &self, rt += 150 * MS, in), 750000);
    CHECK(!vnpu_reg_fresh(&r, rt));
    /* saturated: launches waited 40 ms of the last 100 ms -> weighted share whatever it used */
    c.busy += 5 * MS;
    c.blocked += 40 * MS;
    c.act += 50 * MS;
    set_counters(region, &c);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 100 * MS), 1);
    CHECK_EQ_U64(scan_share(&r, &self, rt += MS, in), 750000);
    struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers, NULL), 1);
    CHECK(peers[0].pub_flags & VNPU_REG_PUB_SATURATED);
    CHECK_EQ_U64(peers[0].busy_ns, c.busy);
    /* idle: no activity for longer than the 200 ms window -> self gets the whole device */
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 150 * MS), 1);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 100 * MS), 1);
    CHECK_EQ_U64(scan_share(&r, &self, rt += MS, in), 1000000);
    CHECK(in[0].busy == 0);
    /* the neighbour replaces its region (or shrinks it): an error for that region, logged once; it
     * counts at its weighted share; nothing stalls */
    CHECK(unlink(region) == 0);
    make_region(region, 0);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 10 * MS), 1); /* old descriptor: still its old file */
    /* unregistered: gone from the scan */
    CHECK(vnpu_agent_unregister(p, 55) == 1);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 10 * MS), 1);
    int n = 0;
    vnpu_reg_scan(&r, &self, rt += MS, in, &n);
    CHECK_EQ_U64(n, 1);
    /* registered again with the replaced file: re-opened, the very file registered */
    CHECK(vnpu_agent_register(p, &m) >= 0);
    CHECK_EQ_U64(vnpu_agent_publish(pub, t += 10 * MS), 1);
    CHECK_EQ_U64(vnpu_agent_publisher_errors(pub), 0);
    vnpu_agent_publisher_close(pub);
    vnpu_reg_close(&r);
}

static double elapsed_ms(int64_t since) { return (double)(mono() - since) / 1e6; }

/* the sharing policy travels in the entry's flags (never published: each counts at its weighted share) */
static void test_policy_flags(void)
{
    char p[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    struct vnpu_agent_member m;
    member(&m, 71, 50, 0, VNPU_REG_PRIO_NORMAL, NULL);
    m.flags = VNPU_REG_EF_FIXED_SHARE; /* fixed 50 %: its cap is its share */
    int fixed_entry = vnpu_agent_register(p, &m);
    CHECK(fixed_entry >= 0);
    member(&m, 72, 100, 0, VNPU_REG_PRIO_HIGH, NULL);
    m.flags = VNPU_REG_EF_BEST_EFFORT | 0x100u; /* unknown bits are not written */
    CHECK(vnpu_agent_register(p, &m) >= 0);
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers, NULL), 2);
    for (int i = 0; i < 2; i++)
        CHECK_EQ_U64(peers[i].policy, peers[i].key == 71 ? VNPU_SHARE_FIXED : VNPU_SHARE_BEST_EFFORT);
    uint32_t raw = 0;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        uint64_t key = 0;
        CHECK(pread(r.fd, &key, 8, VNPU_REG_ENTRIES_OFF + (off_t)i * VNPU_REG_ENTRY_BYTES + VNPU_RE_KEY) == 8);
        if (key == 72)
            CHECK(pread(r.fd, &raw, 4, VNPU_REG_ENTRIES_OFF + (off_t)i * VNPU_REG_ENTRY_BYTES + VNPU_RE_FLAGS) == 4);
    }
    CHECK_EQ_U64(raw, VNPU_REG_EF_BEST_EFFORT);
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    /* elastic 25 % next to the fixed 50 % and a (high-class) best-effort one: 50 % */
    struct vnpu_reg_self self = {73, 25, 0, VNPU_REG_PRIO_NORMAL, VNPU_SHARE_ELASTIC};
    CHECK_EQ_U64(scan_share(&r, &self, mono(), in), 500000);
    /* best-effort 25 next to them: what the fixed one leaves, split 25:100 with the other best-effort */
    self.policy = VNPU_SHARE_BEST_EFFORT;
    CHECK_EQ_U64(scan_share(&r, &self, mono(), in), 100000);
    /* fixed-share self with no cap in its region: capped at its share */
    self.policy = VNPU_SHARE_FIXED;
    CHECK_EQ_U64(scan_share(&r, &self, mono(), in), 250000);
    /* contradictory flags on the fixed neighbour: read as best-effort, never as more */
    uint32_t both = VNPU_REG_EF_FIXED_SHARE | VNPU_REG_EF_ELASTIC;
    poke(p, VNPU_REG_ENTRIES_OFF + (uint64_t)fixed_entry * VNPU_REG_ENTRY_BYTES + VNPU_RE_FLAGS, &both, 4);
    self.policy = VNPU_SHARE_ELASTIC;
    CHECK_EQ_U64(scan_share(&r, &self, mono(), in), VNPU_SHARE_FULL);
    vnpu_reg_close(&r);
}

/* A region that is not a plain file of its own: FIFO, symlink, directory, wrong size, replaced. */
static void test_publisher_hostile_regions(void)
{
    char p[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    const char *kinds[] = {"fifo", "symlink", "dir", "huge", "replaced"};
    char paths[5][600];
    for (int k = 0; k < 5; k++) {
        char name[64];
        snprintf(name, sizeof name, "hostile-%s.region", kinds[k]);
        path_of(paths[k], sizeof paths[k], name);
        unlink(paths[k]);
        rmdir(paths[k]);
        make_region(paths[k], 1);
        struct vnpu_agent_member m;
        member(&m, 100 + (uint64_t)k, 1, 0, VNPU_REG_PRIO_NORMAL, paths[k]);
        CHECK(vnpu_agent_register(p, &m) >= 0);
        /* what the tenant does afterwards to its own region path (the replaced one keeps its old
         * file alive under another name until the rename, so the new one gets another inode) */
        char keep[3100];
        snprintf(keep, sizeof keep, "%s.old", paths[k]);
        if (k == 4)
            CHECK(rename(paths[k], keep) == 0);
        else
            CHECK(unlink(paths[k]) == 0);
        if (k == 0)
            CHECK(mkfifo(paths[k], 0666) == 0);
        else if (k == 1)
            CHECK(symlink(p, paths[k]) == 0);
        else if (k == 2)
            CHECK(mkdir(paths[k], 0755) == 0);
        else if (k == 3) {
            make_region(paths[k], 1);
            CHECK(truncate(paths[k], 1LL << 40) == 0); /* sparse 1 TiB */
        } else {
            /* a new file renamed over it (allocated while the old one lived: another inode) */
            char other[3100];
            snprintf(other, sizeof other, "%s.new", paths[k]);
            make_region(other, 1);
            struct stat a, b;
            CHECK(stat(other, &a) == 0);
            CHECK(rename(other, paths[k]) == 0);
            CHECK(stat(paths[k], &b) == 0 && a.st_ino == b.st_ino);
        }
    }
    struct vnpu_agent_publisher *pub = vnpu_agent_publisher_open(p, 10, 100);
    CHECK(pub != NULL);
    int64_t t0 = mono();
    for (int i = 0; i < 3; i++)
        CHECK_EQ_U64(vnpu_agent_publish(pub, 1000 * MS + i * 100 * MS), 1);
    CHECK(elapsed_ms(t0) < 500);
    CHECK_EQ_U64(vnpu_agent_publisher_errors(pub), 5); /* one per region, not one per round */
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
    CHECK_EQ_U64(vnpu_reg_read_peers(&r, peers, NULL), 5);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_U64(peers[i].pub_flags, 0); /* unknown: each counts at its weighted share */
    vnpu_reg_close(&r);
    vnpu_agent_publisher_close(pub);
    for (int k = 0; k < 5; k++) {
        char keep[3100];
        snprintf(keep, sizeof keep, "%s.old", paths[k]);
        unlink(keep);
        unlink(paths[k]);
        rmdir(paths[k]);
    }
}

/* A child holding something until killed: a lease (F_SETLEASE) or a read lock on path. */
static pid_t hold(const char *path, int lease)
{
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        int fd = open(path, O_RDONLY);
        char ok = 'n';
        if (fd >= 0) {
            if (lease) {
                ok = fcntl(fd, F_SETLEASE, lease) == 0 ? 'y' : 'n';
            } else {
                struct flock fl;
                memset(&fl, 0, sizeof fl);
                fl.l_type = F_RDLCK;
                fl.l_whence = SEEK_SET;
                fl.l_len = 0; /* the whole file and beyond: every lock byte anybody could use */
                ok = fcntl(fd, F_SETLK, &fl) == 0 ? 'y' : 'n';
            }
        }
        if (write(ready[1], &ok, 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char ok = 0;
    CHECK(read(ready[0], &ok, 1) == 1);
    close(ready[0]);
    if (ok != 'y') {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static void unhold(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Read locks and leases a tenant takes delay neither the agent nor a neighbour's limiter. */
static void test_locks_and_leases(void)
{
    char p[600], region[600];
    path_of(p, sizeof p, "npu0.reg");
    fresh(p);
    path_of(region, sizeof region, "leased.region");
    make_region(region, 1);
    struct vnpu_agent_member m;
    member(&m, 77, 1, 0, VNPU_REG_PRIO_NORMAL, region);
    CHECK(vnpu_agent_register(p, &m) >= 0);
    /* a read lock over the whole registry (what a read-only mount allows): registration and
     * publication take their locks elsewhere, the limiter takes none */
    pid_t h = hold(p, 0);
    CHECK(h > 0);
    int64_t t0 = mono();
    member(&m, 78, 1, 0, VNPU_REG_PRIO_NORMAL, NULL);
    CHECK(vnpu_agent_register(p, &m) >= 0);
    CHECK(vnpu_agent_unregister(p, 78) == 1);
    struct vnpu_agent_publisher *pub = vnpu_agent_publisher_open(p, 10, 100);
    CHECK(pub != NULL);
    CHECK_EQ_U64(vnpu_agent_publish(pub, 1000 * MS), 1);
    CHECK(elapsed_ms(t0) < 500);
    unhold(h);
    if (geteuid() != 0) {
        printf("test_compute_registry: lease checks skipped: F_SETLEASE on another user's file needs root (euid %d)\n",
               (int)geteuid());
        vnpu_agent_publisher_close(pub);
        return;
    }
    /* a write lease on the neighbour's region (root in a container owns root files), taken while no
     * agent has the region open (a restarted agent; while one holds it open no lease is possible):
     * the publisher's open fails at once for that region, nothing waits the 45 s lease-break time */
    vnpu_agent_publisher_close(pub);
    h = hold(region, F_WRLCK);
    CHECK(h > 0);
    struct vnpu_agent_publisher *pub2 = vnpu_agent_publisher_open(p, 10, 100);
    CHECK(pub2 != NULL);
    t0 = mono();
    CHECK_EQ_U64(vnpu_agent_publish(pub2, 2000 * MS), 1);
    CHECK(elapsed_ms(t0) < 500);
    CHECK_EQ_U64(vnpu_agent_publisher_errors(pub2), 1);
    unhold(h);
    /* a lease on the registry itself: impossible while an agent holds it open for writing */
    int fd = open(p, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(fcntl(fd, F_SETLEASE, F_RDLCK) != 0);
    close(fd);
    /* the limiter never blocks on it either (it opens read-only, non-blocking): a read lease cannot
     * block a read-only open, and a write lease is impossible while it is open */
    struct vnpu_reg r;
    int err;
    t0 = mono();
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    CHECK(elapsed_ms(t0) < 500);
    vnpu_reg_close(&r);
    vnpu_agent_publisher_close(pub2);
}

/* The agent replaced the registry (atomic rename, when a tenant's lease kept it from opening the old
 * file) or created it late: within a second of the reader's clock the reader uses the new file. */
static void test_replaced_registry_is_followed(void)
{
    char p[600], q[600];
    path_of(p, sizeof p, "npu0.reg");
    path_of(q, sizeof q, "npu0.reg.new");
    fresh(p);
    struct vnpu_reg r;
    int err;
    CHECK(vnpu_reg_open(p, &r, &err) == VNPU_REG_OK);
    unlink(q);
    CHECK(vnpu_agent_create(q, 0) == 0);
    struct vnpu_agent_member m;
    member(&m, 91, 1, 0, VNPU_REG_PRIO_NORMAL, NULL);
    CHECK(vnpu_agent_register(q, &m) >= 0);
    struct vnpu_reg_self self = {92, 1, 0, VNPU_REG_PRIO_NORMAL, VNPU_SHARE_AS_GIVEN};
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT + 1];
    int n = 0;
    int64_t t = mono();
    vnpu_reg_scan(&r, &self, t, in, &n); /* checked at the first scan: the old file then */
    CHECK_EQ_U64(n, 1);
    CHECK(rename(q, p) == 0);
    vnpu_reg_scan(&r, &self, t + 1000, in, &n);
    CHECK_EQ_U64(n, 1);
    vnpu_reg_scan(&r, &self, t + VNPU_REG_RECHECK_NS + 1, in, &n);
    CHECK_EQ_U64(n, 2);
    vnpu_reg_close(&r);
    /* a registry missing at first is picked up once it exists */
    struct vnpu_reg late;
    char l[600];
    path_of(l, sizeof l, "npu9.reg");
    unlink(l);
    vnpu_reg_retry_later(&late, l);
    vnpu_reg_scan(&late, &self, t, in, &n);
    CHECK_EQ_U64(n, 1);
    CHECK(vnpu_agent_create(l, 9) == 0);
    CHECK(vnpu_agent_register(l, &m) >= 0);
    vnpu_reg_scan(&late, &self, t + VNPU_REG_RECHECK_NS + 1, in, &n);
    CHECK_EQ_U64(n, 2);
    vnpu_reg_close(&late);
}

int main(void)
{
    const char *t = getenv("VNPU_TEST_TMP");
    snprintf(dir, sizeof dir, "%s", t && *t ? t : "/tmp");
    test_validation();
    test_range_checks_and_own_parameters();
    test_truncated_registry_never_faults();
    test_publication();
    test_policy_flags();
    test_publisher_hostile_regions();
    test_locks_and_leases();
    test_replaced_registry_is_followed();
    printf("test_compute_registry: ok\n");
    return 0;
}
