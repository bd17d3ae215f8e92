#include "compute_registry.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safe_open.h"
#include "vnpu_region.h"

const char *vnpu_reg_strerror(enum vnpu_reg_status st)
{
    switch (st) {
    case VNPU_REG_OK: return "ok";
    case VNPU_REG_MISSING: return "registry file does not exist";
    case VNPU_REG_IO: return "registry file cannot be opened or read";
    case VNPU_REG_BAD_MAGIC: return "registry file has a wrong magic";
    case VNPU_REG_BAD_MAJOR: return "registry file has an unknown major version";
    case VNPU_REG_TOO_SMALL: return "registry file is smaller than its layout needs";
    case VNPU_REG_NOT_READY: return "registry file is not initialised";
    case VNPU_REG_BAD_GEOMETRY: return "registry file has an unexpected entry count or size";
    case VNPU_REG_WRITABLE: return "registry file is writable by group or others (only the node agent may write it)";
    }
    return "unknown registry error";
}

static uint16_t rd16(const unsigned char *b, unsigned off)
{
    uint16_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}
static uint32_t rd32(const unsigned char *b, unsigned off)
{
    uint32_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}
static uint64_t rd64(const unsigned char *b, unsigned off)
{
    uint64_t v;
    memcpy(&v, b + off, sizeof v);
    return v;
}

/* Header checks of vnpu_registry.h on a copy of the first VNPU_REG_HDR_BYTES. */
static enum vnpu_reg_status check_header(const unsigned char *h, uint64_t size)
{
    if (rd64(h, VNPU_RH_MAGIC) != VNPU_REG_MAGIC)
        return VNPU_REG_BAD_MAGIC;
    if (rd16(h, VNPU_RH_MAJOR) != VNPU_REG_MAJOR)
        return VNPU_REG_BAD_MAJOR;
    if (rd64(h, VNPU_RH_FILE_BYTES) < VNPU_REG_FILE_BYTES || size < VNPU_REG_FILE_BYTES)
        return VNPU_REG_TOO_SMALL;
    if (rd32(h, VNPU_RH_ENTRY_COUNT) != VNPU_REG_ENTRY_COUNT || rd32(h, VNPU_RH_ENTRY_BYTES) != VNPU_REG_ENTRY_BYTES
        || rd32(h, VNPU_RH_HEADER_BYTES) != VNPU_REG_HDR_BYTES)
        return VNPU_REG_BAD_GEOMETRY;
    if (rd32(h, VNPU_RH_INIT_STATE) != VNPU_REG_INIT_READY)
        return VNPU_REG_NOT_READY;
    return VNPU_REG_OK;
}

static int64_t stale_ns_for(uint32_t period_ms)
{
    uint64_t ms = (uint64_t)(period_ms >= 1 && period_ms <= 1000 ? period_ms : VNPU_REG_DEFAULT_PUB_PERIOD_MS)
                  * VNPU_REG_STALE_PERIODS;
    if (ms < VNPU_REG_STALE_MIN_MS)
        ms = VNPU_REG_STALE_MIN_MS;
    return (int64_t)ms * 1000000LL;
}

void vnpu_reg_none(struct vnpu_reg *r)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->phys_id = -1;
    r->stale_ns = stale_ns_for(0);
    r->active_window_ns = (int64_t)VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS * 1000000LL;
    r->burst_ns = (int64_t)VNPU_REG_DEFAULT_BURST_US * 1000LL;
    r->prio_wait_ns = (int64_t)VNPU_REG_DEFAULT_PRIO_WAIT_MS * 1000000LL;
}

void vnpu_reg_retry_later(struct vnpu_reg *r, const char *path)
{
    vnpu_reg_none(r);
    snprintf(r->path, sizeof r->path, "%s", path);
}

enum vnpu_reg_status vnpu_reg_open(const char *path, struct vnpu_reg *r, int *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->stale_ns = stale_ns_for(0);
    *err = 0;
    int fd = vnpu_open_regular(path, O_RDONLY, 0);
    if (fd < 0) {
        *err = errno;
        return errno == ENOENT ? VNPU_REG_MISSING : VNPU_REG_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = errno;
        close(fd);
        return VNPU_REG_IO;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        close(fd);
        return VNPU_REG_WRITABLE;
    }
    unsigned char h[VNPU_REG_HDR_BYTES];
    memset(h, 0, sizeof h);
    ssize_t n = pread(fd, h, sizeof h, 0);
    if (n < 0) {
        *err = errno;
        close(fd);
        return VNPU_REG_IO;
    }
    enum vnpu_reg_status bad = n < (ssize_t)sizeof h ? (st.st_size == 0 ? VNPU_REG_NOT_READY : VNPU_REG_TOO_SMALL)
                                                     : check_header(h, (uint64_t)st.st_size);
    if (bad != VNPU_REG_OK) {
        close(fd);
        return bad;
    }
    r->fd = fd;
    snprintf(r->path, sizeof r->path, "%s", path);
    r->dev = (uint64_t)st.st_dev;
    r->ino = (uint64_t)st.st_ino;
    r->phys_id = (int32_t)rd32(h, VNPU_RH_PHYS_ID);
    /* the publication counts stale until it is seen advancing */
    r->pub_count = rd64(h, VNPU_RH_PUB_COUNT);
    r->pub_seen_ns = 0;
    uint32_t win = rd32(h, VNPU_RH_ACTIVE_WINDOW_MS), burst = rd32(h, VNPU_RH_BURST_US), pw = rd32(h, VNPU_RH_PRIO_WAIT_MS);
    /* out-of-range tunables fall back to defaults: a bad value must not make waits unbounded */
    r->active_window_ns = (int64_t)(win >= 10 && win <= 10000 ? win : VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS) * 1000000LL;
    r->burst_ns = (int64_t)(burst >= 1000 && burst <= 1000000 ? burst : VNPU_REG_DEFAULT_BURST_US) * 1000LL;
    r->prio_wait_ns = (int64_t)(pw <= 10000 ? pw : VNPU_REG_DEFAULT_PRIO_WAIT_MS) * 1000000LL;
    return VNPU_REG_OK;
}

int vnpu_reg_read_peers(const struct vnpu_reg *r, struct vnpu_reg_peer *peers, struct vnpu_reg_pub *pub)
{
    static __thread unsigned char buf[VNPU_REG_FILE_BYTES]; /* 8 KiB: off the measurement thread's stack */
    if (r->fd < 0)
        return -1;
    /* the agent changes entries and publications under a seqlock: retry a torn read a few times, then
     * use what we have (every field is range-checked, so a torn entry is at worst one stale figure) */
    for (int attempt = 0; attempt < 4; attempt++) {
        ssize_t n = pread(r->fd, buf, sizeof buf, 0);
        if (n != (ssize_t)sizeof buf || check_header(buf, (uint64_t)n) != VNPU_REG_OK)
            return -1;
        uint32_t seq = rd32(buf, VNPU_RH_WRITE_SEQ);
        if (seq & 1u)
            continue;
        uint32_t again;
        if (pread(r->fd, &again, sizeof again, VNPU_RH_WRITE_SEQ) == (ssize_t)sizeof again && again == seq)
            break;
    }
    if (pub) {
        pub->count = rd64(buf, VNPU_RH_PUB_COUNT);
        pub->period_ms = rd32(buf, VNPU_RH_PUB_PERIOD_MS);
        pub->window_ms = rd32(buf, VNPU_RH_PUB_WINDOW_MS);
    }
    int np = 0;
    for (uint32_t i = 0; i < VNPU_REG_ENTRY_COUNT; i++) {
        const unsigned char *e = buf + VNPU_REG_ENTRIES_OFF + i * VNPU_REG_ENTRY_BYTES;
        if (rd32(e, VNPU_RE_STATE) != VNPU_REG_ENTRY_ACTIVE)
            continue;
        struct vnpu_reg_peer p;
        p.entry = i;
        p.key = rd64(e, VNPU_RE_KEY);
        p.dev_index = rd32(e, VNPU_RE_DEVICE_INDEX);
        if (p.key == 0 || p.dev_index >= VNPU_REGION_MAX_DEVICES)
            continue;
        uint32_t w = rd32(e, VNPU_RE_WEIGHT), cap = rd32(e, VNPU_RE_CAP_PCT);
        int32_t prio = (int32_t)rd32(e, VNPU_RE_PRIORITY_CLASS);
        p.weight = w < 1 ? 1 : w > 10000 ? 10000 : w;
        p.cap_pct = cap > 100 ? 100 : cap;
        p.prio = prio == VNPU_REG_PRIO_HIGH ? VNPU_REG_PRIO_HIGH : VNPU_REG_PRIO_NORMAL;
        p.generation = rd32(e, VNPU_RE_GENERATION);
        p.policy = (uint32_t)vnpu_share_policy_of_entry(rd32(e, VNPU_RE_FLAGS));
        p.pub_flags = rd32(e, VNPU_RE_PUB_FLAGS) & (VNPU_REG_PUB_VALID | VNPU_REG_PUB_ACTIVE | VNPU_REG_PUB_SATURATED);
        uint32_t used = rd32(e, VNPU_RE_USED_PPM), blocked = rd32(e, VNPU_RE_BLOCKED_PPM);
        p.used_ppm = used > VNPU_SHARE_FULL ? VNPU_SHARE_FULL : used;
        p.blocked_ppm = blocked > VNPU_SHARE_FULL ? VNPU_SHARE_FULL : blocked;
        p.busy_ns = rd64(e, VNPU_RE_BUSY_NS);
        p.launches = rd64(e, VNPU_RE_LAUNCHES);
        peers[np++] = p;
    }
    return np;
}

int vnpu_reg_fresh(const struct vnpu_reg *r, int64_t now)
{
    return r->pub_seen_ns != 0 && now - r->pub_seen_ns <= r->stale_ns;
}

/* Once a second: the file now at the path, if it is another one (or there was none), replaces ours. */
static void recheck(struct vnpu_reg *r, int64_t now)
{
    if (r->path[0] == 0 || (r->checked_ns != 0 && now - r->checked_ns < VNPU_REG_RECHECK_NS))
        return;
    r->checked_ns = now;
    struct stat st;
    if (lstat(r->path, &st) != 0 || (r->fd >= 0 && (uint64_t)st.st_dev == r->dev && (uint64_t)st.st_ino == r->ino))
        return;
    struct vnpu_reg fresh;
    int err = 0;
    if (vnpu_reg_open(r->path, &fresh, &err) != VNPU_REG_OK)
        return; /* keep what we have (or nothing): the next check tries again */
    fresh.checked_ns = now;
    vnpu_reg_close(r);
    *r = fresh;
}

/* The grace of a neighbour that woke up: the publication window (10..10,000 ms, else the default) and
 * two periods, by when the publication holds a whole window of its use. */
static int64_t wake_ns_for(const struct vnpu_reg_pub *pub)
{
    uint64_t w = pub->window_ms >= 10 && pub->window_ms <= 10000 ? pub->window_ms : VNPU_REG_DEFAULT_PUB_WINDOW_MS;
    uint64_t p = pub->period_ms >= 1 && pub->period_ms <= 1000 ? pub->period_ms : VNPU_REG_DEFAULT_PUB_PERIOD_MS;
    return (int64_t)(w + 2 * p) * 1000000LL;
}

/* Whether peer p (active) woke up less than r->wake_ns ago; the first time it is seen active counts. */
static int woke_recently(struct vnpu_reg *r, const struct vnpu_reg_peer *p, int64_t now)
{
    uint32_t e = p->entry;
    if (r->wake_key[e] != p->key || r->wake_since[e] == 0) {
        r->wake_key[e] = p->key;
        r->wake_since[e] = now;
    }
    return now - r->wake_since[e] < r->wake_ns;
}

int vnpu_reg_scan(struct vnpu_reg *r, const struct vnpu_reg_self *self, int64_t now, struct vnpu_share_input *in,
                  int *n)
{
    recheck(r, now);
    struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
    struct vnpu_reg_pub pub = {0, 0, 0};
    int np = vnpu_reg_read_peers(r, peers, &pub);
    if (np >= 0) {
        if (pub.count != r->pub_count) {
            r->pub_count = pub.count;
            r->pub_seen_ns = now;
        }
        r->stale_ns = stale_ns_for(pub.period_ms);
        r->wake_ns = wake_ns_for(&pub);
    }
    int fresh = vnpu_reg_fresh(r, now);
    int k = 0;
    for (int i = 0; i < np; i++) {
        const struct vnpu_reg_peer *p = &peers[i];
        if (p->key == self->key)
            continue;
        in[k].weight = p->weight;
        in[k].cap_pct = p->cap_pct;
        in[k].prio = p->prio;
        in[k].busy = 1;
        in[k].demand_ppm = 0; /* at its weighted share */
        vnpu_share_apply_policy(&in[k], (enum vnpu_share_policy)p->policy);
        if (fresh && (p->pub_flags & VNPU_REG_PUB_VALID)) {
            if (!(p->pub_flags & VNPU_REG_PUB_ACTIVE)) {
                in[k].busy = 0;
                r->wake_since[p->entry] = 0;
            } else if (!woke_recently(r, p, now) && !(p->pub_flags & VNPU_REG_PUB_SATURATED)) {
                in[k].demand_ppm = vnpu_demand_ppm(p->used_ppm);
            }
        }
        k++;
    }
    in[k].weight = self->weight < 1 ? 1 : self->weight > 10000 ? 10000 : self->weight;
    in[k].cap_pct = self->cap_pct > 100 ? 100 : self->cap_pct;
    in[k].prio = self->prio == VNPU_REG_PRIO_HIGH ? VNPU_REG_PRIO_HIGH : VNPU_REG_PRIO_NORMAL;
    in[k].busy = 1;
    in[k].demand_ppm = 0;
    vnpu_share_apply_policy(&in[k], (enum vnpu_share_policy)self->policy);
    *n = k + 1;
    return k;
}

void vnpu_reg_close(struct vnpu_reg *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}
