/*
 * Registry file tests: validation of every header field a reader checks, joining (same key shares
 * an entry, a new key claims a free one), liveness by record locks across processes (a SIGKILLed
 * container stops counting at once and its entry is reclaimed), and the busy scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "compute_registry.h"

static char dir[512];

static void path_of(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

static int64_t mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void poke16(const char *p, unsigned off, uint16_t v)
{
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, &v, sizeof v, off) == (ssize_t)sizeof v);
    close(fd);
}

static void poke64(const char *p, unsigned off, uint64_t v)
{
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, &v, sizeof v, off) == (ssize_t)sizeof v);
    close(fd);
}

static struct vnpu_reg_member member(uint64_t key, uint32_t w)
{
    struct vnpu_reg_member m;
    memset(&m, 0, sizeof m);
    m.key = key;
    m.weight = w;
    m.prio = VNPU_REG_PRIO_NORMAL;
    snprintf(m.name, sizeof m.name, "c%llu", (unsigned long long)key);
    return m;
}

static void test_validation(void)
{
    char p[600];
    struct vnpu_reg r;
    int err;
    path_of(p, sizeof p, "missing.reg");
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_MISSING);

    path_of(p, sizeof p, "v.reg");
    CHECK_EQ_U64(vnpu_reg_create(p, 3), 0);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_OK);
    CHECK_EQ_U64(*(int32_t *)(r.base + VNPU_RH_PHYS_ID), 3);
    CHECK_EQ_U64(r.burst_ns, VNPU_REG_DEFAULT_BURST_US * 1000ULL);
    CHECK_EQ_U64(r.active_window_ns, VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS * 1000000ULL);
    vnpu_reg_close(&r);

    poke16(p, VNPU_RH_MAJOR, 2);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_BAD_MAJOR);
    /* create re-initialises a file it cannot read */
    CHECK_EQ_U64(vnpu_reg_create(p, 3), 0);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_OK);
    vnpu_reg_close(&r);

    poke64(p, VNPU_RH_MAGIC, 0x1122334455667788ULL);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_BAD_MAGIC);
    CHECK_EQ_U64(vnpu_reg_create(p, 3), 0);

    poke64(p, VNPU_RH_FILE_BYTES, 1024);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_TOO_SMALL);
    CHECK_EQ_U64(vnpu_reg_create(p, 3), 0);
    CHECK(truncate(p, 4096) == 0);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_TOO_SMALL);
    CHECK_EQ_U64(vnpu_reg_create(p, 3), 0);

    uint32_t state = VNPU_REG_INIT_INITIALISING;
    int fd = open(p, O_RDWR);
    CHECK(pwrite(fd, &state, 4, VNPU_RH_INIT_STATE) == 4);
    close(fd);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_NOT_READY);

    path_of(p, sizeof p, "empty.reg");
    fd = open(p, O_RDWR | O_CREAT, 0666);
    close(fd);
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_NOT_READY);
}

static void test_join_and_keys(void)
{
    char p[600];
    path_of(p, sizeof p, "j.reg");
    CHECK_EQ_U64(vnpu_reg_create(p, 0), 0);
    struct vnpu_reg a, b, c;
    int err;
    CHECK_EQ_U64(vnpu_reg_open(p, &a, &err), VNPU_REG_OK);
    CHECK_EQ_U64(vnpu_reg_open(p, &b, &err), VNPU_REG_OK);
    CHECK_EQ_U64(vnpu_reg_open(p, &c, &err), VNPU_REG_OK);
    struct vnpu_reg_member m1 = member(11, 1), m2 = member(22, 3);
    m2.cap_pct = 250; /* clamped to 100 when stored */
    CHECK_EQ_U64(vnpu_reg_join(&a, &m1), VNPU_REG_OK);
    CHECK_EQ_U64(vnpu_reg_join(&b, &m2), VNPU_REG_OK);
    CHECK(a.entry != b.entry);
    CHECK_EQ_U64(vnpu_reg_join(&c, &m1), VNPU_REG_OK);
    CHECK_EQ_U64(c.entry, a.entry); /* a second process of the same container shares the entry */
    CHECK_EQ_U64(*(uint32_t *)vnpu_reg_field(&b, b.entry, VNPU_RE_WEIGHT), 3);
    CHECK_EQ_U64(*(uint32_t *)vnpu_reg_field(&b, b.entry, VNPU_RE_CAP_PCT), 100);
    CHECK_EQ_U64(*(uint64_t *)vnpu_reg_field(&b, b.entry, VNPU_RE_KEY), 22);
    CHECK(strcmp((char *)vnpu_reg_field(&b, b.entry, VNPU_RE_NAME), "c22") == 0);
    vnpu_reg_close(&a);
    vnpu_reg_close(&b);
    vnpu_reg_close(&c);
}

/* Child: joins with key, reports its entry through the pipe, then waits to be killed. */
static pid_t spawn_member(const char *p, uint64_t key, int *entry_out)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        struct vnpu_reg r;
        int err;
        if (vnpu_reg_open(p, &r, &err) != VNPU_REG_OK)
            _exit(3);
        struct vnpu_reg_member m = member(key, 1);
        if (vnpu_reg_join(&r, &m) != VNPU_REG_OK)
            _exit(4);
        __atomic_store_n((uint64_t *)vnpu_reg_field(&r, r.entry, VNPU_RE_LAST_LAUNCH_NS), (uint64_t)mono(),
                         __ATOMIC_RELAXED);
        __atomic_store_n((int64_t *)vnpu_reg_field(&r, r.entry, VNPU_RE_GCRA_TAT_NS), mono() + 400000000LL,
                         __ATOMIC_RELAXED); /* holds 0.4 s of debt when killed */
        CHECK(write(fds[1], &r.entry, sizeof r.entry) == (ssize_t)sizeof r.entry);
        for (;;)
            pause();
    }
    close(fds[1]);
    CHECK(read(fds[0], entry_out, sizeof *entry_out) == (ssize_t)sizeof *entry_out);
    close(fds[0]);
    return pid;
}

static int join_in_child(const char *p, uint64_t key)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct vnpu_reg r;
        int err;
        if (vnpu_reg_open(p, &r, &err) != VNPU_REG_OK)
            _exit(100);
        struct vnpu_reg_member m = member(key, 1);
        _exit((int)vnpu_reg_join(&r, &m));
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_liveness_and_reclaim(void)
{
    char p[600];
    path_of(p, sizeof p, "l.reg");
    CHECK_EQ_U64(vnpu_reg_create(p, 0), 0);
    struct vnpu_reg me;
    int err;
    CHECK_EQ_U64(vnpu_reg_open(p, &me, &err), VNPU_REG_OK);
    struct vnpu_reg_member mine = member(1, 1);
    CHECK_EQ_U64(vnpu_reg_join(&me, &mine), VNPU_REG_OK);

    int e = -1;
    pid_t child = spawn_member(p, 2, &e);
    CHECK(e >= 0 && e != me.entry);
    CHECK_EQ_U64(vnpu_reg_entry_live(&me, e), 1);
    struct vnpu_share_input in[VNPU_REG_ENTRY_COUNT];
    vnpu_reg_scan(&me, mono(), in);
    CHECK_EQ_U64(in[e].busy, 1);
    CHECK_EQ_U64(vnpu_share_ppm(in, VNPU_REG_ENTRY_COUNT, me.entry), 500000);

    kill(child, SIGKILL);
    CHECK(waitpid(child, NULL, 0) == child);
    /* the kernel dropped its lock: idle at once, although its last launch is recent */
    CHECK_EQ_U64(vnpu_reg_entry_live(&me, e), 0);
    vnpu_reg_scan(&me, mono(), in);
    CHECK_EQ_U64(in[e].busy, 0);
    CHECK_EQ_U64(vnpu_share_ppm(in, VNPU_REG_ENTRY_COUNT, me.entry), VNPU_SHARE_FULL);

    /* fill every other entry with live members; the dead one is reclaimed for the last newcomer */
    pid_t kids[VNPU_REG_ENTRY_COUNT];
    int nk = 0;
    for (uint64_t k = 100; nk < (int)VNPU_REG_ENTRY_COUNT - 2; k++) {
        int ee;
        kids[nk++] = spawn_member(p, k, &ee);
        CHECK(ee != e && ee != me.entry);
    }
    int reused = -1;
    kids[nk++] = spawn_member(p, 999, &reused);
    CHECK_EQ_U64(reused, e);
    /* the reclaimed entry starts without the dead container's debt or statistics */
    struct vnpu_reg probe;
    CHECK_EQ_U64(vnpu_reg_open(p, &probe, &err), VNPU_REG_OK);
    CHECK_EQ_U64(*(uint64_t *)vnpu_reg_field(&probe, e, VNPU_RE_KEY), 999);
    /* all entries live now: one more container is refused (the caller then fails open); joined from
     * another process, since record locks never conflict with the caller's own */
    CHECK_EQ_U64(join_in_child(p, 5000), VNPU_REG_FULL);
    for (int i = 0; i < nk; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    CHECK_EQ_U64(join_in_child(p, 5000), VNPU_REG_OK);
    vnpu_reg_close(&probe);
    vnpu_reg_close(&me);
}

static void test_pinned_entries_survive(void)
{
    char p[600];
    path_of(p, sizeof p, "pin.reg");
    CHECK_EQ_U64(vnpu_reg_create(p, 0), 0);
    struct vnpu_reg r;
    int err;
    CHECK_EQ_U64(vnpu_reg_open(p, &r, &err), VNPU_REG_OK);
    /* the node agent registered key 77 (pinned, nobody running): a limiter with that key joins it */
    *(uint64_t *)vnpu_reg_field(&r, 5, VNPU_RE_KEY) = 77;
    *(uint32_t *)vnpu_reg_field(&r, 5, VNPU_RE_FLAGS) = VNPU_REG_ENTRYF_PINNED;
    *(uint32_t *)vnpu_reg_field(&r, 5, VNPU_RE_WEIGHT) = 4;
    __atomic_store_n((uint32_t *)vnpu_reg_field(&r, 5, VNPU_RE_STATE), VNPU_REG_ENTRY_ACTIVE, __ATOMIC_RELEASE);
    struct vnpu_reg_member m = member(77, 2);
    CHECK_EQ_U64(vnpu_reg_join(&r, &m), VNPU_REG_OK);
    CHECK_EQ_U64(r.entry, 5);
    CHECK_EQ_U64(*(uint32_t *)vnpu_reg_field(&r, 5, VNPU_RE_FLAGS), VNPU_REG_ENTRYF_PINNED);
    CHECK_EQ_U64(*(uint32_t *)vnpu_reg_field(&r, 5, VNPU_RE_WEIGHT), 2); /* the region's config wins */
    vnpu_reg_close(&r);
}

int main(void)
{
    const char *t = getenv("VNPU_TEST_TMP");
    snprintf(dir, sizeof dir, "%s", t ? t : "/tmp");
    test_validation();
    test_join_and_keys();
    test_liveness_and_reclaim();
    test_pinned_entries_survive();
    printf("test_compute_registry: ok\n");
    return 0;
}
