/*
 * Quota-region core without CANN: open/initialise/validate, exact admission, multi-device limits,
 * 8-process stress with a sampler, kill -9 reclaim, PID-reuse immunity, the refusal paths (over the
 * limit, a wait for pending charges that resolve or time out, a dead owner reaped), separate slots per process.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../region.h"
#include "check.h"

#define MiB (1024ull * 1024ull)

static char dir[512];

static void path_of(char *out, const char *name) { snprintf(out, 600, "%s/%s", dir, name); }

static struct vnpu_init_config cfg(uint32_t devs, uint64_t limit) {
    struct vnpu_init_config c;
    memset(&c, 0, sizeof c);
    c.device_count = devs;
    for (uint32_t d = 0; d < devs; d++) c.mem_limit[d] = limit;
    c.compute_weight = 30;
    c.compute_cap_pct = 0;
    c.priority_class = 1;
    c.policy_flags = VNPU_POLICY_MEM_ENFORCE;
    return c;
}

static enum vnpu_open_status open_claim(struct vnpu_region *r, const char *p, const struct vnpu_init_config *c) {
    char err[512];
    enum vnpu_open_status st = vnpu_region_open(r, p, c, err, sizeof err);
    if (st == VNPU_OPEN_OK) CHECK(vnpu_region_claim_slot(r) >= 0);
    return st;
}

static void test_open_and_validate(void) {
    char p[600], err[512];
    struct vnpu_region r;
    path_of(p, "missing");
    CHECK(vnpu_region_open(&r, p, NULL, err, sizeof err) == VNPU_OPEN_MISSING);
    CHECK(strstr(err, p) != NULL);

    struct vnpu_init_config c = cfg(2, 64 * MiB);
    path_of(p, "fresh");
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_OK);
    struct stat sb;
    CHECK(stat(p, &sb) == 0);
    CHECK_EQ_U64(sb.st_size, VNPU_REGION_FILE_BYTES);
    CHECK_EQ_U64(sb.st_mode & 0777, 0666);
    CHECK_EQ_U64(vnpu_load64(&r, VNPU_H_MAGIC), VNPU_REGION_MAGIC);
    CHECK_EQ_U64(vnpu_load32(&r, VNPU_H_INIT_STATE), VNPU_INIT_READY);
    CHECK_EQ_U64(vnpu_region_device_count(&r), 2);
    CHECK_EQ_U64(vnpu_region_limit(&r, 1), 64 * MiB);
    CHECK_EQ_U64(vnpu_region_limit(&r, 2), 0); /* beyond device_count: no limit */
    CHECK_EQ_U64(vnpu_load32(&r, vnpu_devcfg_off(0) + VNPU_DC_COMPUTE_WEIGHT), 30);
    CHECK(vnpu_load64(&r, VNPU_H_EPOCH) != 0);
    vnpu_region_close(&r);
    /* reopen without config: reads the existing region, never re-initialises it */
    CHECK(vnpu_region_open(&r, p, NULL, err, sizeof err) == VNPU_OPEN_OK);
    CHECK_EQ_U64(vnpu_region_limit(&r, 0), 64 * MiB);
    vnpu_region_close(&r);

    /* bad magic: refused and the file is left as it was */
    path_of(p, "badmagic");
    int fd = open(p, O_CREAT | O_RDWR, 0666);
    char junk[VNPU_REGION_FILE_BYTES];
    memset(junk, 'x', sizeof junk);
    CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
    close(fd);
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_BAD_MAGIC);
    CHECK(strstr(err, "magic") != NULL && strstr(err, p) != NULL);
    fd = open(p, O_RDONLY);
    char back[16];
    CHECK(read(fd, back, 16) == 16 && memcmp(back, junk, 16) == 0);
    close(fd);

    /* unknown major */
    path_of(p, "major2");
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_OK);
    *(uint16_t *)(r.base + VNPU_H_MAJOR) = 2;
    vnpu_region_close(&r);
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_BAD_MAJOR);
    CHECK(strstr(err, "version_major = 2") != NULL);

    /* truncated file that claims to be ready */
    path_of(p, "short");
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_OK);
    vnpu_region_close(&r);
    CHECK(truncate(p, 8192) == 0);
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_BAD_GEOMETRY);
    CHECK(strstr(err, "file size") != NULL);

    /* an initialiser died half-way (INITIALISING, lock gone): the next opener with config redoes it */
    path_of(p, "halfinit");
    fd = open(p, O_CREAT | O_RDWR, 0666);
    CHECK(ftruncate(fd, VNPU_REGION_FILE_BYTES) == 0);
    uint32_t initialising = VNPU_INIT_INITIALISING;
    CHECK(pwrite(fd, &initialising, 4, VNPU_H_INIT_STATE) == 4);
    close(fd);
    CHECK(vnpu_region_open(&r, p, NULL, err, sizeof err) == VNPU_OPEN_NOT_READY);
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_OK);
    CHECK_EQ_U64(vnpu_load32(&r, VNPU_H_INIT_STATE), VNPU_INIT_READY);
    vnpu_region_close(&r);
}

static void test_exact_quota(void) {
    char p[600];
    path_of(p, "exact");
    struct vnpu_init_config c = cfg(2, 100 * MiB);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    CHECK(vnpu_region_admit(&r, 0, 60 * MiB) == 0);
    CHECK(vnpu_region_admit(&r, 0, 40 * MiB) == 0);
    CHECK(vnpu_region_admit(&r, 0, 1) == 1); /* the next byte */
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 100 * MiB);
    /* device 1 has its own limit: no aggregation */
    CHECK(vnpu_region_admit(&r, 1, 100 * MiB) == 0);
    CHECK(vnpu_region_admit(&r, 1, 1) == 1);
    vnpu_region_release(&r, 0, 40 * MiB);
    CHECK(vnpu_region_admit(&r, 0, 1) == 0);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 60 * MiB + 1);
    CHECK(vnpu_region_admit(&r, 0, UINT64_MAX) == 1);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_OOM_REJECTIONS), 2);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(1) + VNPU_DS_OOM_REJECTIONS), 1);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_PEAK_BYTES), 100 * MiB);
    /* release never goes below zero */
    vnpu_region_release(&r, 1, 200 * MiB);
    CHECK_EQ_U64(vnpu_region_used(&r, 1), 0);
    /* limit lowered below usage at run time: refusals, usage readable, no wrap */
    *(uint64_t *)(r.base + vnpu_devcfg_off(0) + VNPU_DC_MEM_LIMIT) = 10 * MiB;
    CHECK(vnpu_region_admit(&r, 0, 1) == 1);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 60 * MiB + 1);
    /* enforcement off: charged but never refused */
    *(uint32_t *)(r.base + VNPU_H_POLICY_FLAGS) = 0;
    CHECK(vnpu_region_admit(&r, 0, 500 * MiB) == 0);
    /* minor 4: commit_seq is the admissions count (60, 40, 1, 500 MiB on device 0; refusals do not
     * count); the old admissions field is no longer written */
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_COMMIT_SEQ), 4);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(1) + VNPU_DS_COMMIT_SEQ), 1);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_ADMISSIONS), 0);
    /* the peak stays the highest verified sum (admissions below it skip the scan that bounds it) */
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_PEAK_BYTES), 100 * MiB);
    vnpu_region_close(&r);
}

/* ---- 8-process stress: sampler never sees sum > limit; final sum == live allocations ---- */

static void stress_child(const char *p, uint64_t limit, int wfd, unsigned seed) {
    struct vnpu_region r;
    CHECK(open_claim(&r, p, NULL) == VNPU_OPEN_OK);
    uint64_t held[64] = {0};
    uint64_t live = 0, grants = 0, refusals = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > 1500) break;
        int k = (int)(rand_r(&seed) % 64);
        if (held[k]) {
            vnpu_region_release(&r, 0, held[k]);
            live -= held[k];
            held[k] = 0;
        } else {
            uint64_t sz = (uint64_t)(rand_r(&seed) % (unsigned)(limit / 8)) + 1;
            if (vnpu_region_admit(&r, 0, sz) == 0) {
                held[k] = sz;
                live += sz;
                grants++;
            } else {
                refusals++;
            }
        }
    }
    char line[128];
    int n = snprintf(line, sizeof line, "%llu %llu %llu\n", (unsigned long long)live, (unsigned long long)grants,
                     (unsigned long long)refusals);
    CHECK(write(wfd, line, (size_t)n) == n);
    close(wfd);
    /* stay alive (holding the slot) until the parent has compared */
    pause();
    _exit(0);
}

static void test_stress(void) {
    char p[600];
    path_of(p, "stress");
    const uint64_t limit = 256 * MiB;
    struct vnpu_init_config c = cfg(1, limit);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    int pipes[8][2];
    pid_t kids[8];
    for (int i = 0; i < 8; i++) {
        CHECK(pipe(pipes[i]) == 0);
        kids[i] = fork();
        CHECK(kids[i] >= 0);
        if (kids[i] == 0) {
            close(pipes[i][0]);
            stress_child(p, limit, pipes[i][1], 1234u + (unsigned)i);
        }
        close(pipes[i][1]);
    }
    /* sample while the children run */
    uint64_t samples = 0, max_seen = 0, torn = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        uint64_t u;
        if (vnpu_region_used_snapshot(&r, 0, &u)) {
            if (u > max_seen) max_seen = u;
            samples++;
        } else {
            torn++;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1400);
    uint64_t live_total = 0, grants = 0, refusals = 0;
    for (int i = 0; i < 8; i++) {
        char buf[128] = {0};
        ssize_t n = read(pipes[i][0], buf, sizeof buf - 1);
        CHECK(n > 0);
        unsigned long long a, b, cc;
        CHECK(sscanf(buf, "%llu %llu %llu", &a, &b, &cc) == 3);
        live_total += a;
        grants += b;
        refusals += cc;
        close(pipes[i][0]);
    }
    printf("stress: %llu consistent samples (%llu torn), max seen %llu of %llu, %llu grants, %llu refusals\n",
           (unsigned long long)samples, (unsigned long long)torn, (unsigned long long)max_seen, (unsigned long long)limit,
           (unsigned long long)grants, (unsigned long long)refusals);
    CHECK(max_seen <= limit);
    /* Activity floors only prove the race really happened; they are low because the run is
     * time-bounded and a loaded host (the ASan pass, parallel builds) may give it little CPU. */
    CHECK(samples > 100);
    CHECK(grants > 100 && refusals > 0);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), live_total);
    CHECK(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_PEAK_BYTES) <= limit);
    for (int i = 0; i < 8; i++) kill(kids[i], SIGKILL);
    for (int i = 0; i < 8; i++) waitpid(kids[i], NULL, 0);
    CHECK_EQ_U64(vnpu_region_reap(&r), 8);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 0);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_REAPED_BYTES), live_total);
    vnpu_region_close(&r);
}

/* ---- kill -9 in the middle: the next admission that needs the bytes reclaims them ---- */

static void test_kill9_and_pid_reuse(void) {
    char p[600];
    path_of(p, "kill9");
    const uint64_t limit = 100 * MiB;
    struct vnpu_init_config c = cfg(1, limit);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t kid = fork();
    CHECK(kid >= 0);
    if (kid == 0) {
        struct vnpu_region k;
        CHECK(open_claim(&k, p, NULL) == VNPU_OPEN_OK);
        CHECK(vnpu_region_admit(&k, 0, 70 * MiB) == 0);
        CHECK(write(ready[1], "x", 1) == 1);
        for (;;) { /* keep allocating/freeing small blocks until killed */
            if (vnpu_region_admit(&k, 0, 1 * MiB) == 0) vnpu_region_release(&k, 0, 1 * MiB);
        }
    }
    char x;
    CHECK(read(ready[0], &x, 1) == 1);
    CHECK(vnpu_region_admit(&r, 0, 40 * MiB) == 1); /* child alive: 70 MiB are its */
    /* PID reuse: make the child's slot claim to be us (a live PID); ownership is the lock, not the PID */
    int kid_slot = -1;
    for (uint32_t i = 0; i < VNPU_REGION_SLOT_COUNT; i++)
        if (*(int32_t *)(r.base + vnpu_slot_off(i) + VNPU_S_PID) == kid) kid_slot = (int)i;
    CHECK(kid_slot >= 0 && kid_slot != r.slot);
    CHECK_EQ_U64(vnpu_region_reap(&r), 0); /* alive: never reaped */
    kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    *(int32_t *)(r.base + vnpu_slot_off((uint32_t)kid_slot) + VNPU_S_PID) = getpid();
    uint64_t start = *(uint64_t *)(r.base + vnpu_slot_off(r.slot) + VNPU_S_STARTTIME);
    *(uint64_t *)(r.base + vnpu_slot_off((uint32_t)kid_slot) + VNPU_S_STARTTIME) = start;
    CHECK(vnpu_region_admit(&r, 0, 40 * MiB) == 0); /* reclaimed by this admission */
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 40 * MiB);
    uint64_t reaped = vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_REAPED_BYTES);
    CHECK(reaped == 70 * MiB || reaped == 71 * MiB); /* killed between admit and release: 1 MiB more */
    CHECK_EQ_U64(vnpu_load32(&r, vnpu_slot_off((uint32_t)kid_slot) + VNPU_S_STATE), VNPU_SLOT_FREE);
    /* a new process gets a slot (possibly the same index) with a new generation */
    uint64_t gen = vnpu_load64(&r, vnpu_slot_off((uint32_t)kid_slot) + VNPU_S_GENERATION);
    pid_t k2 = fork();
    if (k2 == 0) {
        struct vnpu_region k;
        CHECK(open_claim(&k, p, NULL) == VNPU_OPEN_OK);
        _exit(k.slot == kid_slot && vnpu_load64(&k, vnpu_slot_off((uint32_t)k.slot) + VNPU_S_GENERATION) == gen + 1
                  ? 0 : 3);
    }
    int ws;
    waitpid(k2, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    vnpu_region_close(&r);
}

/* ---- refusals (issue 29): which path decided each one, in vnpu_admit_stats ---- */

/* stands in for the neighbour's admission resuming while we wait: once the admitter under test has
 * started waiting, the neighbour's pending charge is backed out (commit = 0) or committed */
struct resolver {
    struct vnpu_region *r;
    int slot;
    uint64_t bytes, waited_before;
    int commit;
};

static void *resolve_pending(void *arg) {
    struct resolver *v = arg;
    while (__atomic_load_n(&vnpu_admit_stats.waited, __ATOMIC_SEQ_CST) == v->waited_before) sched_yield();
    uint64_t base = vnpu_slot_off((uint32_t)v->slot);
    if (v->commit) __atomic_fetch_add((uint64_t *)(v->r->base + base + VNPU_S_USED_BYTES), v->bytes, __ATOMIC_SEQ_CST);
    __atomic_fetch_sub((uint64_t *)(v->r->base + base + VNPU_S_PENDING_BYTES), v->bytes, __ATOMIC_SEQ_CST);
    return NULL;
}

/* the neighbour (kid_slot: 60 MiB committed, nothing pending) publishes 30 MiB pending and resolves
 * it (backs out, or commits) while our admission of 30 MiB waits; expect_rc: what the admission must
 * decide. On a loaded machine the resolving thread may not run within the wait's bound: such an
 * attempt is a contended timeout (never a wrong decision) and is undone and tried again. Leaves the
 * neighbour as it found it. */
static void admit_while_resolved(struct vnpu_region *r, int kid_slot, int commit, int expect_rc) {
    uint64_t base = vnpu_slot_off((uint32_t)kid_slot);
    for (int attempt = 0; attempt < 50; attempt++) {
        struct vnpu_admit_stats s0 = vnpu_admit_stats;
        __atomic_fetch_add((uint64_t *)(r->base + base + VNPU_S_PENDING_BYTES), 30 * MiB, __ATOMIC_SEQ_CST);
        struct resolver v = {r, kid_slot, 30 * MiB, s0.waited, commit};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, resolve_pending, &v) == 0);
        int rc = vnpu_region_admit(r, 0, 30 * MiB);
        CHECK(pthread_join(t, NULL) == 0);
        CHECK_EQ_U64(vnpu_admit_stats.waited, s0.waited + 1);
        if (commit) __atomic_fetch_sub((uint64_t *)(r->base + base + VNPU_S_USED_BYTES), 30 * MiB, __ATOMIC_SEQ_CST);
        if (vnpu_admit_stats.contended_timeout != s0.contended_timeout) {
            CHECK(rc == 1);
            continue;
        }
        CHECK(rc == expect_rc);
        if (rc == 0) {
            CHECK_EQ_U64(vnpu_admit_stats.waited_admitted, s0.waited_admitted + 1);
            CHECK_EQ_U64(vnpu_region_used(r, 0), 90 * MiB);
            vnpu_region_release(r, 0, 30 * MiB);
        } else {
            CHECK_EQ_U64(vnpu_admit_stats.over_limit, s0.over_limit + 1);
        }
        return;
    }
    CHECK(!"the resolving thread never ran within the wait's bound in 50 attempts");
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_refusal_paths(void) {
    char p[600];
    path_of(p, "refusal");
    const uint64_t limit = 100 * MiB;
    struct vnpu_init_config c = cfg(2, limit);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    int ready[2];
    CHECK(pipe(ready) == 0);
    /* a live neighbour: 60 MiB committed on device 0, and a pending 30 MiB that stays (its admission
     * stopped between publishing and committing, as a preempted one is) */
    pid_t kid = fork();
    CHECK(kid >= 0);
    if (kid == 0) {
        struct vnpu_region k;
        CHECK(open_claim(&k, p, NULL) == VNPU_OPEN_OK);
        CHECK(vnpu_region_admit(&k, 0, 60 * MiB) == 0);
        __atomic_fetch_add((uint64_t *)(k.base + vnpu_slot_off((uint32_t)k.slot) + VNPU_S_PENDING_BYTES), 30 * MiB,
                           __ATOMIC_SEQ_CST);
        CHECK(write(ready[1], &k.slot, sizeof k.slot) == (ssize_t)sizeof k.slot);
        for (;;) pause();
    }
    int kid_slot;
    CHECK(read(ready[0], &kid_slot, sizeof kid_slot) == (ssize_t)sizeof kid_slot);
    struct vnpu_admit_stats s0 = vnpu_admit_stats;
    /* does not fit beside the committed 60 MiB: refused at once, no wait, the live owner not reaped */
    CHECK(vnpu_region_admit(&r, 0, 50 * MiB) == 1);
    CHECK_EQ_U64(vnpu_admit_stats.over_limit, s0.over_limit + 1);
    CHECK_EQ_U64(vnpu_admit_stats.waited, s0.waited);
    CHECK_EQ_U64(vnpu_admit_stats.reaped, s0.reaped);
    /* fits beside the committed bytes, not beside the pending ones that stay: it waits the whole
     * bound for them, then is refused and counted as a contended timeout */
    double t0 = mono_s();
    CHECK(vnpu_region_admit(&r, 0, 30 * MiB) == 1);
    CHECK(mono_s() - t0 >= (double)VNPU_ADMIT_CONTENDED_WAIT_NS * 1e-9);
    CHECK_EQ_U64(vnpu_admit_stats.waited, s0.waited + 1);
    CHECK_EQ_U64(vnpu_admit_stats.contended_timeout, s0.contended_timeout + 1);
    /* the holder stopped (SIGSTOP) with its pending bytes: every admission it keeps out still ends,
     * each within the bound (plus what a loaded machine adds: 2 s), however many come */
    CHECK(kill(kid, SIGSTOP) == 0);
    double worst = 0, all0 = mono_s();
    for (int i = 0; i < 5; i++) {
        double a0 = mono_s();
        CHECK(vnpu_region_admit(&r, 0, 30 * MiB) == 1);
        double took = mono_s() - a0;
        CHECK(took >= (double)VNPU_ADMIT_CONTENDED_WAIT_NS * 1e-9);
        if (took > worst) worst = took;
    }
    printf("test_region: 5 admissions kept out by a stopped holder: %.1f ms in all, the longest %.1f ms\n",
           (mono_s() - all0) * 1e3, worst * 1e3);
    CHECK(worst < (double)VNPU_ADMIT_CONTENDED_WAIT_NS * 1e-9 + 2.0);
    CHECK_EQ_U64(vnpu_admit_stats.contended_timeout, s0.contended_timeout + 6);
    CHECK(kill(kid, SIGCONT) == 0);
    CHECK_EQ_U64(vnpu_admit_stats.over_limit, s0.over_limit + 1);
    __atomic_fetch_sub((uint64_t *)(r.base + vnpu_slot_off((uint32_t)kid_slot) + VNPU_S_PENDING_BYTES), 30 * MiB,
                       __ATOMIC_SEQ_CST);
    /* the neighbour backs its pending charge out while we wait: admitted (no false refusal) */
    admit_while_resolved(&r, kid_slot, 0, 0);
    /* the neighbour commits its pending charge while we wait: then it does not fit, an ordinary
     * over-limit refusal, not a timeout */
    admit_while_resolved(&r, kid_slot, 1, 1);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 60 * MiB);
    /* another device is not in the way: admitted at once */
    CHECK(vnpu_region_admit(&r, 1, 90 * MiB) == 0);
    vnpu_region_release(&r, 1, 90 * MiB);
    /* the neighbour dies with its bytes: the next admission that needs them reaps it and is admitted */
    kill(kid, SIGKILL);
    waitpid(kid, NULL, 0);
    CHECK(vnpu_region_admit(&r, 0, 90 * MiB) == 0);
    CHECK_EQ_U64(vnpu_admit_stats.reaped, s0.reaped + 1);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 90 * MiB);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_REAPED_BYTES), 60 * MiB);
    vnpu_region_release(&r, 0, 90 * MiB);
    vnpu_region_close(&r);
}

/* ---- the same file opened twice in one process would break classic POSIX locks; OFD locks keep
 * the owner's slot alive even when another descriptor of the file is closed ---- */
static void test_foreign_close_keeps_ownership(void) {
    char p[600];
    path_of(p, "foreign");
    struct vnpu_init_config c = cfg(1, 10 * MiB);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    CHECK(vnpu_region_admit(&r, 0, 5 * MiB) == 0);
    int fd = open(p, O_RDONLY);
    close(fd); /* e.g. the application reading the region itself */
    pid_t kid = fork();
    if (kid == 0) {
        struct vnpu_region k;
        CHECK(open_claim(&k, p, NULL) == VNPU_OPEN_OK);
        _exit(vnpu_region_reap(&k) == 0 && vnpu_region_used(&k, 0) == 5 * MiB ? 0 : 4);
    }
    int ws;
    waitpid(kid, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    vnpu_region_close(&r);
}

/* issue 12: an unlimited device still counts exactly; a charge that would wrap is refused */
static void test_unlimited_counts_exactly(void) {
    char p[600];
    path_of(p, "unlimited");
    struct vnpu_init_config c = cfg(1, 0);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    CHECK(vnpu_region_admit(&r, 0, UINT64_MAX - 5) == 0);
    CHECK(vnpu_region_admit(&r, 0, 10) == 1);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), UINT64_MAX - 5);
    CHECK(vnpu_region_admit(&r, 0, 5) == 0);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), UINT64_MAX);
    vnpu_region_release(&r, 0, UINT64_MAX - 5);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 5);
    vnpu_region_release(&r, 0, 5);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 0);
    /* an unlimited device counts its admissions in commit_seq too (minor 4), the refusal not */
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_COMMIT_SEQ), 2);
    vnpu_region_close(&r);
}

/* issue 12: a header that stops reading READY is never re-initialised while a slot owner lives, and
 * the file is never shrunk under a mapping */
static void test_no_reinit_under_live_owner(void) {
    char p[600], err[512];
    path_of(p, "reinit");
    struct vnpu_init_config c = cfg(1, 64 * MiB);
    int ready[2], done[2];
    CHECK(pipe(ready) == 0 && pipe(done) == 0);
    pid_t kid = fork();
    if (kid == 0) {
        struct vnpu_region k;
        if (open_claim(&k, p, &c) != VNPU_OPEN_OK || vnpu_region_admit(&k, 0, 3 * MiB) != 0) _exit(3);
        char b = 1;
        if (write(ready[1], &b, 1) != 1) _exit(4);
        if (read(done[0], &b, 1) != 1) _exit(5); /* holds its slot until told */
        _exit(vnpu_region_used(&k, 0) == 3 * MiB ? 0 : 6);
    }
    char b;
    CHECK(read(ready[0], &b, 1) == 1);
    uint32_t initialising = VNPU_INIT_INITIALISING;
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0 && pwrite(fd, &initialising, 4, VNPU_H_INIT_STATE) == 4);
    close(fd);
    struct vnpu_region r;
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_NOT_READY);
    CHECK(strstr(err, "live owner") != NULL);
    struct stat sb;
    CHECK(stat(p, &sb) == 0);
    CHECK_EQ_U64(sb.st_size, VNPU_REGION_FILE_BYTES);
    CHECK(write(done[1], &b, 1) == 1);
    int ws;
    waitpid(kid, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0); /* its charge survived the attempt */
    /* the owner is gone: now it may be initialised again */
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) == VNPU_OPEN_OK);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 0);
    vnpu_region_close(&r);
    close(ready[0]);
    close(ready[1]);
    close(done[0]);
    close(done[1]);
}

/* issue 12: regular files only, no symlink, never blocking; own descriptors >= 3 */
static void test_safe_open(void) {
    char p[600], q[600], err[512];
    struct vnpu_region r;
    struct vnpu_init_config c = cfg(1, 64 * MiB);
    path_of(p, "fifo");
    CHECK(mkfifo(p, 0666) == 0);
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) != VNPU_OPEN_OK); /* returns at once */
    path_of(q, "target");
    CHECK(vnpu_region_open(&r, q, &c, err, sizeof err) == VNPU_OPEN_OK);
    vnpu_region_close(&r);
    path_of(p, "link");
    CHECK(symlink(q, p) == 0);
    CHECK(vnpu_region_open(&r, p, &c, err, sizeof err) != VNPU_OPEN_OK);
    pid_t kid = fork();
    if (kid == 0) {
        close(0);
        close(1);
        close(2); /* a process started with the standard descriptors closed */
        if (vnpu_region_open(&r, q, &c, err, sizeof err) != VNPU_OPEN_OK) _exit(3);
        _exit(r.fd >= 3 ? 0 : 4);
    }
    int ws;
    waitpid(kid, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

/* Processes that come and go (each killed holding its slot, no memory-info query in between) reuse
 * the dead owners' slots: the high-water mark, which every admission scans up to, stays at the number
 * of processes alive at once instead of growing by one per process. */
static void test_churn_keeps_hwm(void) {
    char p[600];
    path_of(p, "churn");
    struct vnpu_init_config c = cfg(1, 100 * MiB);
    struct vnpu_region r;
    CHECK(open_claim(&r, p, &c) == VNPU_OPEN_OK);
    for (int n = 0; n < 40; n++) {
        int ready[2];
        CHECK(pipe(ready) == 0);
        pid_t kid = fork();
        CHECK(kid >= 0);
        if (kid == 0) {
            struct vnpu_region k;
            CHECK(open_claim(&k, p, NULL) == VNPU_OPEN_OK);
            CHECK(vnpu_region_admit(&k, 0, 1 * MiB) == 0);
            CHECK(write(ready[1], "x", 1) == 1);
            pause();
            _exit(0);
        }
        char x;
        CHECK(read(ready[0], &x, 1) == 1);
        close(ready[0]);
        close(ready[1]);
        kill(kid, SIGKILL);
        waitpid(kid, NULL, 0);
    }
    /* us, and one child at a time: slot 0 and slot 1 */
    CHECK_EQ_U64(vnpu_load32(&r, VNPU_H_SLOT_HWM), 2);
    /* the last child's charge was reaped when the next one claimed; its own is still in its slot */
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 1 * MiB);
    CHECK_EQ_U64(vnpu_load64(&r, vnpu_devstate_off(0) + VNPU_DS_REAPED_BYTES), 39 * MiB);
    CHECK(vnpu_region_reap(&r) == 1);
    CHECK_EQ_U64(vnpu_region_used(&r, 0), 0);
    vnpu_region_close(&r);
}

int main(void) {
    const char *t = getenv("VNPU_TEST_TMP");
    snprintf(dir, sizeof dir, "%s", t ? t : "/tmp");
    test_open_and_validate();
    test_exact_quota();
    test_stress();
    test_kill9_and_pid_reuse();
    test_refusal_paths();
    test_foreign_close_keeps_ownership();
    test_unlimited_counts_exactly();
    test_no_reinit_under_live_owner();
    test_safe_open();
    test_churn_keeps_hwm();
    printf("test_region: ok\n");
    return 0;
}
