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

void vnpu_reg_none(struct vnpu_reg *r)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->phys_id = -1;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++)
        r->act[i].fd = -1;
    r->active_window_ns = (int64_t)VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS * 1000000LL;
    r->burst_ns = (int64_t)VNPU_REG_DEFAULT_BURST_US * 1000LL;
    r->prio_wait_ns = (int64_t)VNPU_REG_DEFAULT_PRIO_WAIT_MS * 1000000LL;
}

enum vnpu_reg_status vnpu_reg_open(const char *path, struct vnpu_reg *r, int *err)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++)
        r->act[i].fd = -1;
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
    r->phys_id = (int32_t)rd32(h, VNPU_RH_PHYS_ID);
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(r->dir, sizeof r->dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(r->dir, sizeof r->dir, ".");
    uint32_t win = rd32(h, VNPU_RH_ACTIVE_WINDOW_MS), burst = rd32(h, VNPU_RH_BURST_US), pw = rd32(h, VNPU_RH_PRIO_WAIT_MS);
    /* out-of-range tunables fall back to defaults: a bad value must not make waits unbounded */
    r->active_window_ns = (int64_t)(win >= 10 && win <= 10000 ? win : VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS) * 1000000LL;
    r->burst_ns = (int64_t)(burst >= 1000 && burst <= 1000000 ? burst : VNPU_REG_DEFAULT_BURST_US) * 1000LL;
    r->prio_wait_ns = (int64_t)(pw <= 10000 ? pw : VNPU_REG_DEFAULT_PRIO_WAIT_MS) * 1000000LL;
    return VNPU_REG_OK;
}

int vnpu_reg_read_peers(const struct vnpu_reg *r, struct vnpu_reg_peer *peers)
{
    static __thread unsigned char buf[VNPU_REG_FILE_BYTES]; /* 8 KiB: off the measurement thread's stack */
    if (r->fd < 0)
        return -1;
    /* the agent changes entries under a seqlock: retry a torn read a few times, then use what we have
     * (every field is range-checked, so a torn entry is at worst one stale registration) */
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
    int np = 0;
    for (uint32_t i = 0; i < VNPU_REG_ENTRY_COUNT; i++) {
        const unsigned char *e = buf + VNPU_REG_ENTRIES_OFF + i * VNPU_REG_ENTRY_BYTES;
        if (rd32(e, VNPU_RE_STATE) != VNPU_REG_ENTRY_ACTIVE)
            continue;
        struct vnpu_reg_peer p;
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
        peers[np++] = p;
    }
    return np;
}

static void act_close(struct vnpu_reg_act *a)
{
    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
    a->key = 0;
    a->generation = 0;
}

static struct vnpu_reg_act *act_for(struct vnpu_reg *r, const struct vnpu_reg_peer *p)
{
    struct vnpu_reg_act *free_slot = NULL;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        struct vnpu_reg_act *a = &r->act[i];
        if (a->key == p->key && a->generation == p->generation)
            return a;
        if (a->key == p->key)
            act_close(a); /* re-registered: the link may name another region now */
        if (a->key == 0 && !free_slot)
            free_slot = a;
    }
    if (!free_slot)
        return NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/" VNPU_REG_ACTIVITY_FMT, r->dir, (int)r->phys_id, (unsigned long long)p->key);
    free_slot->key = p->key;
    free_slot->generation = p->generation;
    free_slot->fd = vnpu_open_regular(path, O_RDONLY, 0);
    return free_slot;
}

int64_t vnpu_reg_activity(struct vnpu_reg *r, const struct vnpu_reg_peer *p)
{
    struct vnpu_reg_act *a = act_for(r, p);
    if (!a || a->fd < 0)
        return -1;
    uint64_t ns = 0;
    uint64_t off = VNPU_DEVSTATE_OFF + (uint64_t)p->dev_index * VNPU_DEVSTATE_BYTES + VNPU_DS_LAST_LAUNCH_NS;
    if (pread(a->fd, &ns, sizeof ns, (off_t)off) != (ssize_t)sizeof ns)
        return 0; /* shrunk or unreadable: idle */
    return ns > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ns;
}

int vnpu_reg_scan(struct vnpu_reg *r, const struct vnpu_reg_self *self, int64_t now, struct vnpu_share_input *in,
                  int *n)
{
    struct vnpu_reg_peer peers[VNPU_REG_ENTRY_COUNT];
    int np = vnpu_reg_read_peers(r, peers);
    int k = 0;
    unsigned char seen[VNPU_REG_ENTRY_COUNT] = {0};
    for (int i = 0; i < np; i++) {
        const struct vnpu_reg_peer *p = &peers[i];
        if (p->key == self->key)
            continue;
        int64_t act = vnpu_reg_activity(r, p);
        int busy = act < 0 || (act > 0 && now - act <= r->active_window_ns);
        in[k].weight = p->weight;
        in[k].cap_pct = p->cap_pct;
        in[k].prio = p->prio;
        in[k].busy = busy;
        k++;
        for (int j = 0; j < (int)VNPU_REG_ENTRY_COUNT; j++)
            if (r->act[j].key == p->key)
                seen[j] = 1;
    }
    /* drop links of containers no longer registered */
    for (int j = 0; j < (int)VNPU_REG_ENTRY_COUNT; j++)
        if (r->act[j].key != 0 && !seen[j])
            act_close(&r->act[j]);
    in[k].weight = self->weight < 1 ? 1 : self->weight > 10000 ? 10000 : self->weight;
    in[k].cap_pct = self->cap_pct > 100 ? 100 : self->cap_pct;
    in[k].prio = self->prio == VNPU_REG_PRIO_HIGH ? VNPU_REG_PRIO_HIGH : VNPU_REG_PRIO_NORMAL;
    in[k].busy = 1;
    *n = k + 1;
    return k;
}

void vnpu_reg_close(struct vnpu_reg *r)
{
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++)
        act_close(&r->act[i]);
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}
