#include "registry_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vnpu_region.h"
#include "vnpu_registry.h"

#define SHARE_FULL 1000000ULL

/* ---------- small I/O helpers ---------- */
static int put(int fd, uint64_t off, const void *v, size_t n)
{
    return pwrite(fd, v, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}
#define PUT(fd, off, T, val) ({ T v_ = (val); put((fd), (off), &v_, sizeof v_); })

static int get(int fd, uint64_t off, void *v, size_t n)
{
    return pread(fd, v, n, (off_t)off) == (ssize_t)n ? 0 : -1;
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
static void wr32(unsigned char *b, unsigned off, uint32_t v) { memcpy(b + off, &v, sizeof v); }
static void wr64(unsigned char *b, unsigned off, uint64_t v) { memcpy(b + off, &v, sizeof v); }

/* Non-blocking, no-follow open of a file a tenant can reach; regular files only. */
static int open_tenant_file(const char *path, int flags)
{
    int fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno != 0 ? errno : EINVAL;
        close(fd);
        return S_ISREG(st.st_mode) ? -e : -EINVAL;
    }
    return fd;
}

/* A lock byte, retried for at most wait_ms (bounded); 0: one try. Open-file-description locks: a
 * process that publishes and registers keeps each lock on its own descriptor (closing another
 * descriptor of the file drops nothing); they conflict with the Java agent's classic record locks. */
static int lock_byte(int fd, short type, uint64_t off, int wait_ms)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = 1;
    for (int i = 0;; i++) {
        if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
            return 0;
        if (errno != EACCES && errno != EAGAIN)
            return -1;
        if (i >= wait_ms) {
            errno = EBUSY;
            return -1;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

int vnpu_agent_file_path(const char *registry, char *buf, unsigned len)
{
    const char *slash = strrchr(registry, '/');
    int dl = slash ? (int)(slash - registry) : 1;
    const char *dir = slash ? registry : ".";
    const char *base = slash ? slash + 1 : registry;
    int n = snprintf(buf, len, "%.*s" VNPU_REG_AGENT_DIR_SUFFIX "/%s.lock", dl, dir, base);
    return n < 0 || (unsigned)n >= len ? -ENAMETOOLONG : 0;
}

/* Opens (creating it 0600 in a 0700 directory, full-size) the agents' file of registry path. */
static int open_agent_file(const char *path)
{
    char af[1024];
    if (vnpu_agent_file_path(path, af, sizeof af) != 0)
        return -ENAMETOOLONG;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", af);
    *strrchr(dir, '/') = 0;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return -errno;
    int fd = open(af, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    if (st.st_size < (off_t)VNPU_AGF_FILE_BYTES) {
        /* full-size at creation (written, not sparse): a full file system later cannot fail a write */
        static const unsigned char zero[VNPU_AGF_FILE_BYTES];
        if (put(fd, (uint64_t)st.st_size, zero, VNPU_AGF_FILE_BYTES - (size_t)st.st_size) != 0) {
            int e = errno;
            close(fd);
            return -e;
        }
    }
    return fd;
}

static int header_ok(int fd)
{
    uint64_t magic = 0, fb = 0;
    uint16_t major = 0;
    uint32_t cnt = 0, eb = 0, hb = 0, st = 0;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || sb.st_size < (off_t)VNPU_REG_FILE_BYTES)
        return 0;
    get(fd, VNPU_RH_MAGIC, &magic, 8);
    get(fd, VNPU_RH_MAJOR, &major, 2);
    get(fd, VNPU_RH_FILE_BYTES, &fb, 8);
    get(fd, VNPU_RH_ENTRY_COUNT, &cnt, 4);
    get(fd, VNPU_RH_ENTRY_BYTES, &eb, 4);
    get(fd, VNPU_RH_HEADER_BYTES, &hb, 4);
    get(fd, VNPU_RH_INIT_STATE, &st, 4);
    return magic == VNPU_REG_MAGIC && major == VNPU_REG_MAJOR && fb >= VNPU_REG_FILE_BYTES && cnt == VNPU_REG_ENTRY_COUNT
           && eb == VNPU_REG_ENTRY_BYTES && hb == VNPU_REG_HDR_BYTES && st == VNPU_REG_INIT_READY;
}

int vnpu_agent_create(const char *path, int32_t phys_id)
{
    int agf = open_agent_file(path);
    if (agf < 0)
        return agf;
    if (lock_byte(agf, F_WRLCK, VNPU_REG_LOCK_INIT, 2000) != 0) {
        int e = errno;
        close(agf);
        return -e;
    }
    int rc = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    (void)fchmod(fd, 0644); /* only the agent writes it (docs/compute-registry.md) */
    if (!header_ok(fd)) {
        static const unsigned char zero[VNPU_REG_FILE_BYTES];
        /* readers check magic and init_state: clearing the whole file first hides it from them */
        if (put(fd, 0, zero, sizeof zero) != 0) {
            rc = -errno;
            goto out;
        }
        uint64_t epoch = 0;
        while (epoch == 0)
            if (getrandom(&epoch, sizeof epoch, 0) != (ssize_t)sizeof epoch)
                epoch = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        if (PUT(fd, VNPU_RH_INIT_STATE, uint32_t, VNPU_REG_INIT_INITIALISING) || PUT(fd, VNPU_RH_MAJOR, uint16_t, VNPU_REG_MAJOR)
            || PUT(fd, VNPU_RH_MINOR, uint16_t, VNPU_REG_MINOR) || PUT(fd, VNPU_RH_HEADER_BYTES, uint32_t, VNPU_REG_HDR_BYTES)
            || PUT(fd, VNPU_RH_FILE_BYTES, uint64_t, VNPU_REG_FILE_BYTES)
            || PUT(fd, VNPU_RH_ENTRY_COUNT, uint32_t, VNPU_REG_ENTRY_COUNT)
            || PUT(fd, VNPU_RH_ENTRY_BYTES, uint32_t, VNPU_REG_ENTRY_BYTES) || PUT(fd, VNPU_RH_PHYS_ID, int32_t, phys_id)
            || PUT(fd, VNPU_RH_EPOCH, uint64_t, epoch)
            || PUT(fd, VNPU_RH_CREATED_NS, uint64_t, (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec)
            || PUT(fd, VNPU_RH_ACTIVE_WINDOW_MS, uint32_t, VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS)
            || PUT(fd, VNPU_RH_BURST_US, uint32_t, VNPU_REG_DEFAULT_BURST_US)
            || PUT(fd, VNPU_RH_PRIO_WAIT_MS, uint32_t, VNPU_REG_DEFAULT_PRIO_WAIT_MS)
            || PUT(fd, VNPU_RH_CREATOR, uint32_t, VNPU_REG_CREATOR_TOOL) || PUT(fd, VNPU_RH_MAGIC, uint64_t, VNPU_REG_MAGIC)
            || PUT(fd, VNPU_RH_INIT_STATE, uint32_t, VNPU_REG_INIT_READY))
            rc = -errno;
        /* a fresh registry has no entries: the member table is cleared with it */
        static const unsigned char zm[VNPU_AGF_FILE_BYTES];
        if (rc == 0 && put(agf, 0, zm, sizeof zm) != 0)
            rc = -errno;
    }
out:
    if (fd >= 0)
        close(fd);
    lock_byte(agf, F_UNLCK, VNPU_REG_LOCK_INIT, 0);
    close(agf);
    return rc;
}

static uint64_t entry_off(int i) { return VNPU_REG_ENTRIES_OFF + (uint64_t)i * VNPU_REG_ENTRY_BYTES; }

/* Marks a write in progress (write_seq odd); an agent killed inside a write left it odd: step past. */
static int seq_begin(int fd, uint32_t *begin)
{
    uint32_t s = 0;
    if (get(fd, VNPU_RH_WRITE_SEQ, &s, 4) != 0)
        return -1;
    *begin = (s & 1u) ? s + 2 : s + 1;
    return put(fd, VNPU_RH_WRITE_SEQ, begin, 4);
}
static int seq_end(int fd, uint32_t begin)
{
    uint32_t e = begin + 1;
    return put(fd, VNPU_RH_WRITE_SEQ, &e, 4);
}

/* Registry and agents' file opened and the admin lock held; -errno. */
static int admin_begin(const char *path, int *fd, int *agf)
{
    *agf = open_agent_file(path);
    if (*agf < 0)
        return *agf;
    if (lock_byte(*agf, F_WRLCK, VNPU_REG_LOCK_ADMIN, 2000) != 0) {
        int e = errno;
        close(*agf);
        return -e;
    }
    *fd = open_tenant_file(path, O_RDWR);
    if (*fd < 0) {
        int e = *fd;
        lock_byte(*agf, F_UNLCK, VNPU_REG_LOCK_ADMIN, 0);
        close(*agf);
        return e;
    }
    return 0;
}
static void admin_end(int fd, int agf)
{
    close(fd);
    lock_byte(agf, F_UNLCK, VNPU_REG_LOCK_ADMIN, 0);
    close(agf);
}

int vnpu_agent_register(const char *path, const struct vnpu_agent_member *m)
{
    int fd, agf;
    int rc = admin_begin(path, &fd, &agf);
    if (rc < 0)
        return rc;
    int found = -1, free_at = -1;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        uint32_t st = 0;
        uint64_t key = 0;
        get(fd, entry_off(i) + VNPU_RE_STATE, &st, 4);
        get(fd, entry_off(i) + VNPU_RE_KEY, &key, 8);
        if (st == VNPU_REG_ENTRY_ACTIVE && key == m->key && found < 0)
            found = i;
        if (st == VNPU_REG_ENTRY_FREE && free_at < 0)
            free_at = i;
    }
    int i = found >= 0 ? found : free_at;
    rc = i;
    unsigned char slot[VNPU_AGF_MEMBER_BYTES];
    memset(slot, 0, sizeof slot);
    if (i >= 0 && m->region) {
        struct stat st;
        if (lstat(m->region, &st) != 0 || !S_ISREG(st.st_mode) || strlen(m->region) >= VNPU_AGF_PATH_BYTES) {
            rc = -EINVAL;
        } else {
            wr64(slot, VNPU_AGF_KEY, m->key);
            wr64(slot, VNPU_AGF_DEV, (uint64_t)st.st_dev);
            wr64(slot, VNPU_AGF_INO, (uint64_t)st.st_ino);
            memcpy(slot + VNPU_AGF_PATH, m->region, strlen(m->region));
        }
    }
    if (i < 0) {
        rc = -ENOSPC;
    } else if (rc >= 0) {
        unsigned char e[VNPU_REG_ENTRY_BYTES];
        memset(e, 0, sizeof e);
        uint32_t gen = 0;
        get(fd, entry_off(i) + VNPU_RE_GENERATION, &gen, 4);
        wr32(e, VNPU_RE_STATE, VNPU_REG_ENTRY_ACTIVE);
        wr32(e, VNPU_RE_FLAGS, m->flags & VNPU_REG_EF_POLICY_MASK);
        wr64(e, VNPU_RE_KEY, m->key);
        wr32(e, VNPU_RE_WEIGHT, m->weight);
        wr32(e, VNPU_RE_CAP_PCT, m->cap_pct);
        wr32(e, VNPU_RE_PRIORITY_CLASS, (uint32_t)m->prio);
        wr32(e, VNPU_RE_GENERATION, gen + 1);
        snprintf((char *)e + VNPU_RE_NAME, VNPU_REG_NAME_BYTES, "%s", m->name ? m->name : "");
        wr32(e, VNPU_RE_DEVICE_INDEX, m->dev_index);
        uint32_t seq;
        if (!m->region)
            wr64(slot, VNPU_AGF_KEY, m->key);
        memcpy(slot + VNPU_AGF_ENTRY, e, sizeof e);
        /* the member slot first: the publisher never reads a region for an entry it does not describe */
        if (put(agf, (uint64_t)i * VNPU_AGF_MEMBER_BYTES, slot, sizeof slot) || seq_begin(fd, &seq)
            || put(fd, entry_off(i), e, sizeof e) || seq_end(fd, seq))
            rc = -errno;
    }
    admin_end(fd, agf);
    return rc;
}

int vnpu_agent_unregister(const char *path, uint64_t key)
{
    int fd, agf;
    int rc = admin_begin(path, &fd, &agf);
    if (rc < 0)
        return rc;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        uint32_t st = 0;
        uint64_t k = 0;
        get(fd, entry_off(i) + VNPU_RE_STATE, &st, 4);
        get(fd, entry_off(i) + VNPU_RE_KEY, &k, 8);
        if (st != VNPU_REG_ENTRY_ACTIVE || k != key)
            continue;
        uint32_t seq;
        if (seq_begin(fd, &seq) == 0) {
            PUT(fd, entry_off(i) + VNPU_RE_STATE, uint32_t, VNPU_REG_ENTRY_FREE);
            seq_end(fd, seq);
        }
        static const unsigned char zero[VNPU_AGF_MEMBER_BYTES];
        put(agf, (uint64_t)i * VNPU_AGF_MEMBER_BYTES, zero, sizeof zero);
        rc = 1;
    }
    admin_end(fd, agf);
    return rc;
}

/* ---------- the publisher ---------- */
#define HIST 128

struct pub_slot {
    uint64_t key, dev, ino;
    uint32_t dev_index;
    int fd;            /* -1: not open (or it failed) */
    int failed;        /* logged once for this member */
    int64_t failed_at; /* last failed open: retried every second (a lease is transient) */
    int n, head;       /* history ring */
    int64_t t[HIST];
    uint64_t busy[HIST], blocked[HIST];
    uint64_t last_act, last_busy, launches, throttled;
    uint32_t share;
    int64_t act_seen;  /* our clock when the container was last seen active */
    uint32_t flags, used, blk;
};

struct vnpu_agent_publisher {
    char path[1024];
    int fd, agf;
    int publishing;    /* holds VNPU_REG_LOCK_PUBLISH */
    uint32_t period_ms, window_ms;
    uint64_t count, errors;
    struct pub_slot s[VNPU_REG_ENTRY_COUNT];
};

struct vnpu_agent_publisher *vnpu_agent_publisher_open(const char *path, uint32_t period_ms, uint32_t window_ms)
{
    struct vnpu_agent_publisher *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->path, sizeof p->path, "%s", path);
    p->period_ms = period_ms >= 1 && period_ms <= 1000 ? period_ms : VNPU_REG_DEFAULT_PUB_PERIOD_MS;
    p->window_ms = window_ms >= p->period_ms && window_ms <= 10000 ? window_ms : VNPU_REG_DEFAULT_PUB_WINDOW_MS;
    p->agf = open_agent_file(path);
    /* held from here on: while an agent has the registry open for writing nobody can lease it */
    p->fd = open_tenant_file(path, O_RDWR);
    if (p->agf < 0 || p->fd < 0) {
        errno = p->agf < 0 ? -p->agf : -p->fd;
        vnpu_agent_publisher_close(p);
        return NULL;
    }
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++)
        p->s[i].fd = -1;
    return p;
}

uint64_t vnpu_agent_publisher_errors(const struct vnpu_agent_publisher *p) { return p->errors; }

void vnpu_agent_publisher_close(struct vnpu_agent_publisher *p)
{
    if (!p)
        return;
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++)
        if (p->s[i].fd >= 0)
            close(p->s[i].fd);
    if (p->fd >= 0)
        close(p->fd);
    if (p->agf >= 0)
        close(p->agf); /* drops the publish lock */
    free(p);
}

static void slot_reset(struct pub_slot *s)
{
    if (s->fd >= 0)
        close(s->fd);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* Opens the member's region: non-blocking, no-follow, the very file registered, sane size. */
static int open_region(struct vnpu_agent_publisher *p, struct pub_slot *s, const char *region, int64_t now)
{
    int fd = open_tenant_file(region, O_RDONLY);
    const char *why = NULL;
    struct stat st;
    if (fd == -EINVAL)
        why = "not a regular file";
    else if (fd < 0)
        why = strerror(-fd);
    else if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if ((uint64_t)st.st_dev != s->dev || (uint64_t)st.st_ino != s->ino)
        why = "not the file registered (replaced)";
    else if (st.st_size != (off_t)VNPU_REGION_FILE_BYTES)
        why = "not the size of a quota region";
    if (why) {
        if (fd >= 0)
            close(fd);
        if (!s->failed) {
            fprintf(stderr, "registry_agent: %s: %s: its usage is not published (it counts at its weighted share)\n",
                    region, why);
            p->errors++;
        }
        s->failed = 1;
        s->failed_at = now;
        return -1;
    }
    s->fd = fd;
    return 0;
}

/* Reads one member's counters and updates its published figures. */
static void sample(struct vnpu_agent_publisher *p, struct pub_slot *s, int64_t now, int64_t active_window_ns)
{
    unsigned char ds[VNPU_DEVSTATE_BYTES];
    if (s->fd < 0 || pread(s->fd, ds, sizeof ds, (off_t)(VNPU_DEVSTATE_OFF + (uint64_t)s->dev_index * VNPU_DEVSTATE_BYTES))
                         != (ssize_t)sizeof ds) {
        s->flags = 0;
        return;
    }
    uint64_t busy = rd64(ds, VNPU_DS_BUSY_NS), blocked = rd64(ds, VNPU_DS_BLOCKED_NS);
    uint64_t act = rd64(ds, VNPU_DS_LAST_LAUNCH_NS);
    s->launches = rd64(ds, VNPU_DS_LAUNCHES);
    s->throttled = rd64(ds, VNPU_DS_THROTTLED_NS);
    s->share = rd32(ds, VNPU_DS_SHARE_PPM);
    if (s->n > 0 && (act != s->last_act || busy != s->last_busy))
        s->act_seen = now;
    s->last_act = act;
    s->last_busy = busy;
    int idx = (s->head + s->n) % HIST;
    if (s->n == HIST) {
        s->head = (s->head + 1) % HIST;
        idx = (s->head + HIST - 1) % HIST;
    } else {
        s->n++;
    }
    s->t[idx] = now;
    s->busy[idx] = busy;
    s->blocked[idx] = blocked;
    /* the oldest sample still inside the window */
    int64_t win = (int64_t)p->window_ms * 1000000LL;
    int o = s->head;
    for (int k = 0; k < s->n; k++) {
        int j = (s->head + k) % HIST;
        if (now - s->t[j] <= win) {
            o = j;
            break;
        }
    }
    if (o == idx || now <= s->t[o]) {
        s->flags = 0; /* one sample: nothing known yet */
        return;
    }
    uint64_t dt = (uint64_t)(now - s->t[o]);
    uint64_t db = busy >= s->busy[o] ? busy - s->busy[o] : 0;
    uint64_t dk = blocked >= s->blocked[o] ? blocked - s->blocked[o] : 0;
    s->used = (uint32_t)(db >= dt ? SHARE_FULL : db * SHARE_FULL / dt);
    s->blk = (uint32_t)(dk >= dt ? SHARE_FULL : dk * SHARE_FULL / dt);
    s->flags = VNPU_REG_PUB_VALID;
    if (s->act_seen != 0 && now - s->act_seen <= active_window_ns)
        s->flags |= VNPU_REG_PUB_ACTIVE;
    if (s->blk >= VNPU_REG_SATURATED_PPM)
        s->flags |= VNPU_REG_PUB_SATURATED | VNPU_REG_PUB_ACTIVE;
}

int vnpu_agent_publish(struct vnpu_agent_publisher *p, int64_t now)
{
    if (!p->publishing) {
        if (lock_byte(p->agf, F_WRLCK, VNPU_REG_LOCK_PUBLISH, 0) != 0)
            return 0; /* another agent process publishes */
        p->publishing = 1;
    }
    static __thread unsigned char reg[VNPU_REG_FILE_BYTES];
    static __thread unsigned char mem[VNPU_AGF_FILE_BYTES];
    if (get(p->fd, 0, reg, sizeof reg) != 0 || get(p->agf, 0, mem, sizeof mem) != 0)
        return -EIO;
    uint32_t win = rd32(reg, VNPU_RH_ACTIVE_WINDOW_MS);
    int64_t active_window_ns = (int64_t)(win >= 10 && win <= 10000 ? win : VNPU_REG_DEFAULT_ACTIVE_WINDOW_MS) * 1000000LL;
    /* read the regions without any lock held: every read is a pread on a non-blocking descriptor */
    for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
        const unsigned char *e = reg + entry_off(i);
        const unsigned char *m = mem + (size_t)i * VNPU_AGF_MEMBER_BYTES;
        struct pub_slot *s = &p->s[i];
        uint64_t key = rd64(e, VNPU_RE_KEY);
        if (rd32(e, VNPU_RE_STATE) != VNPU_REG_ENTRY_ACTIVE || rd64(m, VNPU_AGF_KEY) != key || key == 0) {
            if (s->key != 0)
                slot_reset(s);
            continue;
        }
        if (s->key != key || s->dev != rd64(m, VNPU_AGF_DEV) || s->ino != rd64(m, VNPU_AGF_INO)) {
            slot_reset(s);
            s->key = key;
            s->dev = rd64(m, VNPU_AGF_DEV);
            s->ino = rd64(m, VNPU_AGF_INO);
        }
        s->dev_index = rd32(e, VNPU_RE_DEVICE_INDEX) % VNPU_REGION_MAX_DEVICES;
        if (s->dev == 0 && s->ino == 0)
            s->failed = 1; /* registered without a region: never published */
        if (s->fd < 0 && (!s->failed || now - s->failed_at >= 1000000000LL) && !(s->dev == 0 && s->ino == 0)) {
            char region[VNPU_AGF_PATH_BYTES + 1];
            memcpy(region, m + VNPU_AGF_PATH, VNPU_AGF_PATH_BYTES);
            region[VNPU_AGF_PATH_BYTES] = 0;
            (void)open_region(p, s, region, now);
        }
        sample(p, s, now, active_window_ns);
    }
    /* write the publication in place, under the admin lock and the seqlock */
    if (lock_byte(p->agf, F_WRLCK, VNPU_REG_LOCK_ADMIN, 0) != 0)
        return 0; /* a registration is under way: publish next period */
    int rc = 1;
    if (get(p->fd, 0, reg, sizeof reg) != 0) {
        rc = -EIO;
    } else {
        for (int i = 0; i < (int)VNPU_REG_ENTRY_COUNT; i++) {
            unsigned char *e = reg + entry_off(i);
            const struct pub_slot *s = &p->s[i];
            int mine = rd32(e, VNPU_RE_STATE) == VNPU_REG_ENTRY_ACTIVE && s->key != 0 && rd64(e, VNPU_RE_KEY) == s->key;
            wr32(e, VNPU_RE_PUB_FLAGS, mine ? s->flags : 0);
            wr32(e, VNPU_RE_USED_PPM, mine ? s->used : 0);
            wr32(e, VNPU_RE_BLOCKED_PPM, mine ? s->blk : 0);
            wr64(e, VNPU_RE_BUSY_NS, mine ? s->last_busy : 0);
            wr64(e, VNPU_RE_LAUNCHES, mine ? s->launches : 0);
            wr64(e, VNPU_RE_THROTTLED_NS, mine ? s->throttled : 0);
            wr32(e, VNPU_RE_SHARE_PPM, mine ? s->share : 0);
        }
        p->count = rd64(reg, VNPU_RH_PUB_COUNT) + 1;
        unsigned char h[32];
        memset(h, 0, sizeof h);
        /* VNPU_RH_PUB_PERIOD_MS (76) .. VNPU_RH_PUB_PID (100) + 4 */
        wr32(h, VNPU_RH_PUB_PERIOD_MS - 76, p->period_ms);
        wr64(h, VNPU_RH_PUB_COUNT - 76, p->count);
        wr64(h, VNPU_RH_PUB_NS - 76, (uint64_t)now);
        wr32(h, VNPU_RH_PUB_WINDOW_MS - 76, p->window_ms);
        wr32(h, VNPU_RH_PUB_PID - 76, (uint32_t)getpid());
        uint32_t seq;
        if (seq_begin(p->fd, &seq) || put(p->fd, VNPU_REG_ENTRIES_OFF, reg + VNPU_REG_ENTRIES_OFF,
                                          VNPU_REG_FILE_BYTES - VNPU_REG_ENTRIES_OFF)
            || put(p->fd, 76, h, 28) || seq_end(p->fd, seq))
            rc = -errno;
    }
    lock_byte(p->agf, F_UNLCK, VNPU_REG_LOCK_ADMIN, 0);
    return rc;
}
